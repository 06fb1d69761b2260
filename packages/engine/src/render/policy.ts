/**
 * Policy results in the plan's text and Markdown forms (and in `validate`'s output): each
 * failed rule with its severity, the object and where it is declared, and the message.
 * Everything from manifests or policy files is escaped (`sanitize`); Markdown cells also
 * neutralize pipes and HTML.
 */
import type { PolicyResult } from '../policy/model.js';
import { formatLocation } from '../source.js';
import { sanitize } from './sanitize.js';
import { plainStyle, type Style } from './style.js';

/** `2 errors, 1 warning` */
export function policyCounts(results: readonly PolicyResult[]): string {
  const errors = results.filter((r) => r.severity === 'error').length;
  const warnings = results.length - errors;
  return `${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}`;
}

/**
 * One result on one line, as problems are printed:
 * `file:line:col: error: HTTPSEdgeRoute api path_prefix:/admin: message [policy routes-need-auth]`.
 */
export function formatPolicyResult(result: PolicyResult, style: Style = plainStyle): string {
  const where = result.source ? `${sanitize(formatLocation(result.source))}: ` : '';
  const severity = result.severity === 'error' ? style.delete('error') : style.update('warning');
  return `${where}${severity}: ${sanitize(`${result.kind} ${result.name}`)}: ${sanitize(result.message)} ${style.dim(`[policy ${sanitize(result.rule)}]`)}`;
}

/** The text section: a heading with the counts and a line per result; [] when none. */
export function policyTextLines(results: readonly PolicyResult[] | undefined, style: Style = plainStyle): string[] {
  if (!results || results.length === 0) return [];
  return [style.bold(`Policy checks: ${policyCounts(results)}`), ...results.map((r) => `  ${formatPolicyResult(r, style)}`), ''];
}

const cell = (text: string) => sanitize(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\|/g, '\\|');

/** The Markdown section: a table of results, at most `maxLength` characters; '' when none. */
export function policyMarkdown(results: readonly PolicyResult[] | undefined, maxLength = Infinity): string {
  if (!results || results.length === 0) return '';
  const all = results.map(
    (r) =>
      `| ${r.severity === 'error' ? '**error**' : 'warning'} | \`${cell(r.rule)}\` | ${cell(`${r.kind} ${r.name}`)} | ${r.source ? `\`${cell(formatLocation(r.source))}\`` : '—'} | ${cell(r.message)} |`,
  );
  const head = [`#### Policy checks: ${policyCounts(results)}`, '', '| Severity | Rule | Object | Declared at | Message |', '|:--|:--|:--|:--|:--|'];
  const rows: string[] = [];
  let length = head.join('\n').length + 200;
  for (const row of all) {
    if (length + row.length + 1 > maxLength) break;
    rows.push(row);
    length += row.length + 1;
  }
  const cut = all.length - rows.length;
  const note = cut > 0 ? [`| | | _${cut} more results not shown; run \`gatehouse plan\` for all_ | | |`] : [];
  return [...head, ...rows, ...note, '', ''].join('\n');
}
