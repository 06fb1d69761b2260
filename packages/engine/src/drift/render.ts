/**
 * Drift renderers, in the spirit of the plan's: pure functions from a `DriftReport` to text (a
 * terminal or a cron mail), JSON (alerting pipelines; docs/drift-json.md) or Markdown (an
 * issue or chat message). Secrets arrive masked and are printed bare. A long or multi-line
 * value that differs shows as a unified line diff from live (`-`) to the manifests (`+`).
 */
import { formatLocation } from '../source.js';
import { plainStyle, type Style } from '../render/style.js';
import { MARKDOWN_MAX_LENGTH, markdownLineDiff, unreadableMarkdown } from '../render/markdown.js';
import { unmanagedLines } from '../render/unmanaged.js';
import { diffStat, isLongValueChange, longValueDiff } from '../render/line-diff.js';
import { lockNote } from '../lock/record.js';
import { sanitize } from '../render/sanitize.js';
import { targetText, textLineDiff, unreadableText } from '../render/text.js';
import { targetLines } from '../render/targets.js';
import { describeTarget, formatValue, renderJsonDocument } from '../render/values.js';
import { isEnvMask } from '../identity/env-fields.js';
import type { DriftKind, DriftReport, DriftedObject, DriftField } from './model.js';
import { DRIFT_KINDS } from './model.js';

/** How each kind of drift is called in text and Markdown. */
export const DRIFT_TITLES: Record<DriftKind, string> = {
  changed_outside: 'changed outside gatehouse',
  deleted_outside: 'deleted outside gatehouse',
  duplicate: 'duplicate',
  missing: 'missing (not applied yet or deleted outside gatehouse)',
  changed_in_manifests: 'changed in the manifests since the last apply',
  changed: 'changed (cause unknown)',
  unmanaged: 'unmanaged (information)',
};

/** What was not done to the objects of a kind the account cannot list (render/unreadable.ts). */
export const DRIFT_UNREAD = 'checked for drift';

/** `2 changed outside gatehouse, 1 deleted outside gatehouse, 7 in sync.` */
export function driftSummaryLine(report: DriftReport): string {
  const parts = DRIFT_KINDS.filter((k) => report.summary[k] > 0).map((k) => `${report.summary[k]} ${DRIFT_TITLES[k].replace(/ \(.*\)$/, '')}`);
  parts.push(`${report.summary.in_sync} in sync`);
  if (report.summary.unmanaged > 0) parts.push(`${report.summary.unmanaged} unmanaged`);
  return `${parts.join(', ')}.`;
}

/** A drifted field as a plan's field change: live before, manifests after. */
const asChange = (f: DriftField) => ({ before: f.live, after: f.desired, sensitive: f.sensitive });

const fieldLine = (f: DriftField): string => {
  if (f.sensitive)
    return `${sanitize(f.path)}: ${isEnvMask(f.desired) ? `${String(f.desired).replace(/, changed\)$/, ')')} differs` : '(sensitive value differs)'}`;
  if (isLongValueChange(asChange(f))) return `${sanitize(f.path)}: differs from live to manifests (${diffStat(longValueDiff(asChange(f)))}; diff below)`;
  return `${sanitize(f.path)}: live ${formatValue(f.live)}, manifests ${formatValue(f.desired)}`;
};

export function renderDriftText(report: DriftReport, options: { style?: Style } = {}): string {
  const style = options.style ?? plainStyle;
  const lines = [style.bold(`gatehouse drift for ${describeTarget(report)}, stack "${sanitize(report.stack)}"`), ''];
  if (report.lock) lines.push(style.update(`Note: ${sanitize(lockNote(report.lock, 'it may explain what differs'))}.`), '');
  lines.push(...targetText(report, style, 'drift report'));
  if (!report.drifted) lines.push(`No drift. The live objects match the manifests (${report.summary.in_sync} in sync).`, '');
  for (const kind of DRIFT_KINDS) {
    const objects = report.objects.filter((o) => o.drift === kind);
    if (objects.length === 0) continue;
    lines.push(style.bold(`${DRIFT_TITLES[kind][0]!.toUpperCase()}${DRIFT_TITLES[kind].slice(1)}:`));
    for (const o of objects) {
      lines.push(`  ${paint(style, o)(sanitize(`${o.kind} ${o.name}`))}${style.dim(o.id ? ` (${sanitize(o.id)})` : '')}`);
      lines.push(style.dim(`      ${sanitize(o.message)}`));
      for (const f of o.fields) {
        const note = f.drift !== o.drift ? style.dim(`  [${DRIFT_TITLES[f.drift]}]`) : '';
        if (!isLongValueChange(asChange(f))) {
          lines.push(`      ${fieldLine(f)}${note}`);
          continue;
        }
        const [head, ...diff] = textLineDiff(f.path, longValueDiff(asChange(f)), style, '      ');
        lines.push(`${head!.replace(/\)$/, ', - live, + manifests)')}${note}`, ...diff);
      }
      if (o.source) lines.push(style.dim(`      declared at ${sanitize(formatLocation(o.source))}`));
    }
    lines.push('');
  }
  if (report.unmanaged.length > 0) {
    lines.push(style.dim(`Unmanaged objects (information: not declared, not owned by stack "${sanitize(report.stack)}"):`));
    for (const line of unmanagedLines(report.unmanaged)) lines.push(style.dim(sanitize(`    ${line}`)));
    lines.push('');
  }
  lines.push(...unreadableText(report.unreadable, DRIFT_UNREAD, style));
  lines.push(style.bold(`Drift: ${driftSummaryLine(report)}`));
  lines.push(style.dim(`Live state read with ${report.requests} API request${report.requests === 1 ? '' : 's'}.`));
  return `${lines.join('\n')}\n`;
}

function paint(style: Style, o: DriftedObject) {
  if (o.drift === 'changed_outside' || o.drift === 'deleted_outside') return style.delete;
  if (o.drift === 'missing') return style.replace;
  return style.update;
}

/** Pretty-printed JSON with a final newline; the report already is the documented shape. */
export function renderDriftJson(report: DriftReport): string {
  return renderJsonDocument(report, report.target);
}

/** A table cell: control characters escaped (newline included), pipes and backticks neutralized. */
const cell = (text: string) => sanitize(text).replace(/\|/g, '\\|').replace(/`/g, "'");

/**
 * Markdown for an issue or a chat message: a summary table, then a row per drifted object while
 * the text stays under `maxLength` (65,000 by default, under GitHub's limit), with a note of
 * how many rows were cut; the JSON form always has them all.
 */
export function renderDriftMarkdown(report: DriftReport, options: { maxLength?: number } = {}): string {
  const maxLength = options.maxLength ?? MARKDOWN_MAX_LENGTH;
  const where = report.target.embedded ? ` (embedded reference server, \`.gatehouse/server.db\`)` : '';
  const lines = [
    `### gatehouse drift: ${report.drifted ? 'drift found' : 'no drift'}${where}`,
    '',
    `Target \`${cell(describeTarget(report))}\`, stack \`${cell(report.stack)}\`, checked ${report.checked_at}.`,
    '',
  ];
  if (report.lock) lines.push(`> **Locked:** ${cell(lockNote(report.lock, 'it may explain what differs'))}.`, '');
  const targeted = targetLines(report.targets, 'drift report');
  if (targeted) for (const line of [targeted.warning, ...targeted.notes]) lines.push(`> **Warning:** ${cell(line).replace(/([*_[\]~])/g, '\\$1')}`, '');
  const unread = unreadableMarkdown(report.unreadable, DRIFT_UNREAD);
  if (unread) lines.push(unread.trimEnd(), '');
  lines.push('| Drift | Objects |', '| --- | ---: |');
  for (const kind of [...DRIFT_KINDS, 'unmanaged' as const]) lines.push(`| ${DRIFT_TITLES[kind]} | ${report.summary[kind]} |`);
  lines.push(`| in sync | ${report.summary.in_sync} |`, '');
  if (report.objects.length > 0) {
    lines.push('| Object | Id | Drift | Fields |', '| --- | --- | --- | --- |');
    const reserve = 400; // the cut note and the unmanaged summary line
    let length = lines.join('\n').length;
    let shown = 0;
    for (const o of report.objects) {
      const fields = o.fields.map((f) => `\`${cell(fieldLine(f))}\``).join('<br>') || cell(o.message);
      const row = `| \`${cell(`${o.kind} ${o.name}`)}\` | ${o.id ? `\`${cell(o.id)}\`` : '—'} | ${DRIFT_TITLES[o.drift]} | ${fields} |`;
      if (length + row.length + 1 > maxLength - reserve) break;
      lines.push(row);
      length += row.length + 1;
      shown += 1;
    }
    if (shown < report.objects.length)
      lines.push(
        '',
        `_${report.objects.length - shown} more drifted objects not shown to stay under ${maxLength} characters; run \`gatehouse drift --format json\` for all._`,
      );
    lines.push('');
    // Long values' line diffs, below the table (a table cell holds one line), while they fit.
    for (const o of report.objects.slice(0, shown)) {
      for (const f of o.fields.filter((field) => isLongValueChange(asChange(field)))) {
        const block = [
          `<details><summary><code>${html(`${o.kind} ${o.name}`)}</code> ${html(f.path)}: - live, + manifests</summary>`,
          '',
          '```diff',
          ...markdownLineDiff(f.path, longValueDiff(asChange(f))),
          '```',
          '',
          '</details>',
          '',
        ];
        if (lines.join('\n').length + block.join('\n').length + 400 > maxLength) break;
        lines.push(...block);
      }
    }
  }
  if (report.unmanaged.length > 0 && lines.join('\n').length + report.unmanaged.length * 40 < maxLength) {
    lines.push(`<details><summary>${report.unmanaged.length} unmanaged object${report.unmanaged.length === 1 ? '' : 's'} (information)</summary>`, '');
    for (const u of report.unmanaged) lines.push(`- \`${cell(`${u.kind} ${u.id}`)}\`${u.label ? ` ${cell(u.label)}` : ''}`);
    lines.push('', '</details>', '');
  } else if (report.unmanaged.length > 0) {
    lines.push(`${report.unmanaged.length} unmanaged objects (information; listed in the JSON form).`, '');
  }
  return `${lines.join('\n')}\n`;
}

const html = (text: string) => cell(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
