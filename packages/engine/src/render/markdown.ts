/**
 * The plan as a pull-request comment: the target on the first line, a summary table, then one
 * collapsible `<details>` section per change with a `diff` block. GitHub refuses comments over
 * 65,536 characters, so the output is kept under `maxLength` (65,000 by default): changes that
 * do not fit are left out and a note says how many and which kinds. A long or multi-line
 * string shows as a unified line diff (`@@ path -1,3 +1,4 @@` hunks, at most
 * `DIFF_MAX_LINES` lines a field); other values longer than `VALUE_MAX` are cut.
 */
import type { Change, Plan, UnreadableKind } from '../plan-model.js';
import { unreadableHeading, unreadableLine } from './unreadable.js';
import { diffMarker, isLongValueChange, longValueDiff, type DiffLine } from './line-diff.js';
import { policyMarkdown } from './policy.js';
import { heldDuplicateSentences } from './held-duplicates.js';
import { IGNORED_HEADING, ignoredShown } from './ignored.js';
import { SECRETS_NOT_COMPARED_HEADING, secretsNotCompared } from './secrets-not-compared.js';
import { pruneScopeSentence } from './prune-scope.js';
import { lockNote as describeHeldLock } from '../lock/record.js';
import { sanitize } from './sanitize.js';
import { targetLines } from './targets.js';
import { formatField } from './text.js';
import { SYMBOLS, countChanges, describeTarget, flatten, formatValue, summaryLine } from './values.js';

export const MARKDOWN_MAX_LENGTH = 65_000;
/** Longest value shown in a comment; a SAML metadata document need not be read in full there. */
const VALUE_MAX = 300;
/** Most lines of one field's line diff in a comment (a whole SAML document need not be). */
const DIFF_MAX_LINES = 80;

export interface MarkdownOptions {
  maxLength?: number;
}

export function renderMarkdown(plan: Plan, options: MarkdownOptions = {}): string {
  const maxLength = options.maxLength ?? MARKDOWN_MAX_LENGTH;
  const head = [
    `### gatehouse plan for ${code(describeTarget(plan))}, stack ${code(plan.stack)}${plan.environment !== undefined ? `, environment ${code(plan.environment)}` : ''}${plan.from_stack !== undefined ? `, moving objects from stack ${code(plan.from_stack)}` : ''}`,
    '',
    '| Action | Count |',
    '|:--|--:|',
    `| \`+\` create | ${plan.summary.create} |`,
    `| \`~\` update | ${plan.summary.update} |`,
    `| \`-/+\` replace | ${plan.summary.replace} |`,
    `| \`-\` delete | ${plan.summary.delete} |`,
    ...(plan.summary.not_pruned ? [`| would be deleted with \`--prune\` | ${plan.summary.not_pruned} |`] : []),
    `| unchanged | ${plan.summary.unchanged} |`,
    '',
  ].join('\n');
  const lockNote =
    (plan.lock ? `> **Locked:** ${escape(describeHeldLock(plan.lock, 'this plan may be outdated when it ends'))}.\n\n` : '') +
    targetMarkdown(plan) +
    heldDuplicateSentences(plan)
      .map((sentence) => `> **Warning:** ${escape(sentence)}\n\n`)
      .join('') +
    unreadableMarkdown(plan.unreadable, 'planned');
  // Policy results come first, where a reviewer looks, and are never cut with the changes.
  const noChanges =
    lockNote +
    policyMarkdown(plan.policy_results, Math.floor(maxLength / 4)) +
    (countChanges(plan.summary) === 0 ? '**No changes.** The live objects match the manifests.\n\n' : '');
  const uncompared = secretsNotCompared(plan);
  const tail = [
    ignoredMarkdown(plan),
    uncompared.length > 0 ? [`> **${escape(SECRETS_NOT_COMPARED_HEADING)}:**`, ...uncompared.map((line) => `> - ${escape(line)}`)].join('\n') : '',
    plan.unmanaged.length > 0 ? `${plan.unmanaged.length} unmanaged object(s) left untouched.` : '',
    pruneScopeSentence(plan) ? `> ${escape(pruneScopeSentence(plan))}` : '',
    `**Plan:** ${summaryLine(plan.summary)} Live state read with ${plan.requests} API requests.`,
  ]
    .filter((line) => line !== '')
    .join('\n\n');

  const sections = plan.changes.map(section);
  // Room for the note about cut changes, whatever it says.
  const reserve = 400;
  let body = '';
  let shown = 0;
  for (const text of sections) {
    if (head.length + noChanges.length + body.length + text.length + tail.length + reserve > maxLength) break;
    body += text;
    shown++;
  }
  let note = '';
  if (shown < sections.length) {
    const cut = plan.changes.slice(shown);
    const kinds = [...new Set(cut.map((c) => c.kind))].join(', ');
    note = `> **${cut.length} of ${sections.length} changes not shown** (${kinds}) to keep this comment under ${maxLength.toLocaleString('en-US')} characters. Run \`gatehouse plan\` for the full plan.\n\n`;
  }
  return `${head}\n${noChanges}${body}${note}${tail}\n`;
}

/**
 * The objects whose ignored fields differ (render/ignored.ts), as a collapsed table: object,
 * how many fields, which; '' when none. Never cut with the changes (at most 50 rows).
 */
function ignoredMarkdown(plan: Plan): string {
  const { shown, more } = ignoredShown(plan);
  if (shown.length === 0) return '';
  const rows = shown.map(
    (o) =>
      `| ${code(o.kind)} ${escape(o.name).replace(/\|/g, '\\|')} | ${o.fields.length} | ${o.fields.slice(0, 10).map(code).join(', ').replace(/\|/g, '\\|')}${o.fields.length > 10 ? ', …' : ''} |`,
  );
  const summary = `${(plan.ignored ?? []).length} object${(plan.ignored ?? []).length === 1 ? '' : 's'} with ignored fields`;
  return [
    `<details><summary>${summary}</summary>`,
    '',
    `${escape(IGNORED_HEADING)}.`,
    '',
    '| Object | Fields | Which |',
    '|:--|--:|:--|',
    ...rows,
    ...(more > 0 ? [`| and ${more} more objects | | |`] : []),
    '',
    '</details>',
  ].join('\n');
}

/** The targeted plan's warning and notes as a quote (render/targets.ts). */
function targetMarkdown(plan: Plan): string {
  const said = targetLines(plan.targets, 'plan');
  if (!said) return '';
  // Targets are globs: their `*`, `_`, `[` must not turn into emphasis or links.
  const text = (line: string) => escape(line).replace(/([\\`*_[\]~|])/g, '\\$1');
  return [`> **Warning:** ${text(said.warning)}`, ...said.notes.map((note) => `>\n> **Warning:** ${text(note)}`)].join('\n') + '\n\n';
}

function section(change: Change): string {
  const id = change.id ? ` (<code>${escape(change.id)}</code>)` : '';
  const why = change.needsPrune ? 'would be deleted with --prune' : change.reason;
  const reason = why ? ` — ${escape(why)}` : '';
  const summary = `<code>${escape(SYMBOLS[change.action])}</code> ${change.action} <b>${escape(change.kind)}</b> ${escape(change.name)}${id}${reason}`;
  return `<details><summary>${summary}</summary>\n\n\`\`\`diff\n${diffLines(change).join('\n')}\n\`\`\`\n\n</details>\n\n`;
}

function diffLines(change: Change): string[] {
  switch (change.action) {
    case 'create':
      return flatten(change.after ?? {})
        .filter(([, value]) => value !== null)
        .flatMap(([path, value]) => {
          const long = { before: null, after: value, sensitive: false };
          return isLongValueChange(long) ? markdownLineDiff(path, longValueDiff(long)) : [fence(`+ ${sanitize(path)}: ${formatValue(value, VALUE_MAX)}`)];
        });
    case 'delete':
      return flatten(change.before ?? {})
        .filter(([, value]) => value !== null)
        .map(([path, value]) => fence(`- ${sanitize(path)}: ${formatValue(value, VALUE_MAX)}`));
    default:
      return change.fields.flatMap((field) =>
        field.sensitive
          ? [fence(`! ${formatField(field)}`)]
          : isLongValueChange(field)
            ? markdownLineDiff(field.path, longValueDiff(field))
            : [
                fence(`- ${sanitize(field.path)}: ${formatValue(field.before, VALUE_MAX)}`),
                fence(`+ ${sanitize(field.path)}: ${formatValue(field.after, VALUE_MAX)}`),
              ],
      );
  }
}

/**
 * A field's line diff inside a ```diff block: each hunk header names the field
 * (`@@ ca_pem -1,20 +1,20 @@`), so GitHub highlights it; past `DIFF_MAX_LINES` lines a note
 * says how many more there are.
 */
export function markdownLineDiff(path: string, diff: readonly DiffLine[]): string[] {
  const safePath = sanitize(path);
  const lines = diff.map((line) =>
    fence(
      line.kind === 'hunk'
        ? line.text.replace(/^@@ /, `@@ ${safePath} `)
        : line.kind === 'note'
          ? `@@ ${safePath}: ${line.text} @@`
          : `${diffMarker(line.kind)}${line.text}`,
    ),
  );
  if (lines.length <= DIFF_MAX_LINES) return lines;
  return [...lines.slice(0, DIFF_MAX_LINES), `@@ ${safePath}: ${lines.length - DIFF_MAX_LINES} more diff lines not shown; run gatehouse plan for all @@`];
}

/** Text inside the summary is HTML, and control characters are escaped (`sanitize`). */
function escape(text: string): string {
  return sanitize(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * Inline code that its content cannot close: a value holding backticks is wrapped in a longer
 * run of them (CommonMark), and control characters are escaped.
 */
function code(text: string): string {
  const clean = sanitize(text);
  const longest = Math.max(0, ...(clean.match(/`+/g) ?? []).map((run) => run.length));
  const ticks = '`'.repeat(longest + 1);
  return longest > 0 ? `${ticks} ${clean} ${ticks}` : `${ticks}${clean}${ticks}`;
}

/** A value cannot close the code block it sits in. */
function fence(line: string): string {
  return line.replace(/```/g, '`\u200b``');
}

/** The kinds the account cannot list (render/unreadable.ts): a warning quote, a line each; '' when none. */
export function unreadableMarkdown(unreadable: readonly UnreadableKind[] | undefined, what: string): string {
  if (!unreadable || unreadable.length === 0) return '';
  return `> **Warning:** ${escape(unreadableHeading(unreadable.length, what))}:\n${unreadable.map((u) => `> - ${escape(unreadableLine(u))}`).join('\n')}\n\n`;
}
