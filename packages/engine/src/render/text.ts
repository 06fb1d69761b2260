/**
 * The plan as a person reads it in a terminal, after Terraform: one block per change with
 * `+` create, `~` update, `-` delete, `-/+` replace; a create lists the fields it sets, an
 * update and a replace only the fields that change (`old -> new`), a delete only its name.
 * The first line names the target and the stack; the last one counts the changes. A long or
 * multi-line string (a PEM, a JSON policy document) shows as a unified line diff under its path.
 */
import type { Change, FieldChange, Plan, UnreadableKind } from '../plan-model.js';
import { unmanagedLines } from './unmanaged.js';
import { unreadableHeading, unreadableLine } from './unreadable.js';
import { diffMarker, diffStat, isLongValueChange, longValueDiff, type DiffLine } from './line-diff.js';
import { policyTextLines } from './policy.js';
import { pruneScopeSentence } from './prune-scope.js';
import { lockNote } from '../lock/record.js';
import { sanitize } from './sanitize.js';
import { targetLines } from './targets.js';
import { heldDuplicateSentences } from './held-duplicates.js';
import { IGNORED_HEADING, ignoredFieldsText, ignoredShown } from './ignored.js';
import { SECRETS_NOT_COMPARED_HEADING, secretsNotCompared } from './secrets-not-compared.js';
import { plainStyle, type Style } from './style.js';
import { SYMBOLS, countChanges, describeTarget, flatten, formatValue, sensitiveChange, summaryLine } from './values.js';

export interface TextOptions {
  style?: Style;
}

export function renderText(plan: Plan, options: TextOptions = {}): string {
  const style = options.style ?? plainStyle;
  const lines: string[] = [
    style.bold(
      `gatehouse plan for ${describeTarget(plan)}, stack "${sanitize(plan.stack)}"${plan.from_stack !== undefined ? `, moving objects from stack "${sanitize(plan.from_stack)}"` : ''}`,
    ),
    '',
  ];
  if (plan.lock) lines.push(style.update(`Note: ${sanitize(lockNote(plan.lock, 'this plan may be outdated when it ends'))}.`), '');
  lines.push(...targetText(plan, style));
  if (countChanges(plan.summary) === 0) {
    lines.push(`No changes. The live objects match the manifests (${plan.summary.unchanged} unchanged).`);
  } else {
    for (const change of plan.changes) lines.push(...renderChange(change, style), '');
  }
  lines.push(...heldDuplicateText(plan, style));
  lines.push(...ignoredText(plan, style));
  const uncompared = secretsNotCompared(plan);
  if (uncompared.length > 0)
    lines.push(style.update(`${SECRETS_NOT_COMPARED_HEADING}:`), ...uncompared.map((line) => style.update(sanitize(`    ${line}`))), '');
  if (plan.unmanaged.length > 0) {
    if (lines.at(-1) !== '') lines.push('');
    lines.push(style.dim(`Unmanaged objects (not declared, not owned by stack "${sanitize(plan.stack)}"; never touched):`));
    for (const line of unmanagedLines(plan.unmanaged)) lines.push(style.dim(sanitize(`    ${line}`)));
    lines.push('');
  }
  lines.push(...unreadableText(plan.unreadable, 'planned', style));
  const scope = pruneScopeSentence(plan);
  if (scope) lines.push(style.dim(sanitize(scope)), '');
  if (plan.policy_results && plan.policy_results.length > 0 && lines.at(-1) !== '') lines.push('');
  lines.push(...policyTextLines(plan.policy_results, style));
  if (countChanges(plan.summary) > 0) lines.push(style.bold(`Plan: ${summaryLine(plan.summary)}`));
  lines.push(style.dim(`Live state read with ${plan.requests} API request${plan.requests === 1 ? '' : 's'}.`));
  return `${lines.join('\n')}\n`;
}

/** The kinds the account cannot list (render/unreadable.ts), a warning and a line each, then a blank line. */
export function unreadableText(unreadable: readonly UnreadableKind[] | undefined, what: string, style: Style): string[] {
  if (!unreadable || unreadable.length === 0) return [];
  return [
    style.update(`Warning: ${unreadableHeading(unreadable.length, what)}:`),
    ...unreadable.map((u) => style.update(sanitize(`    ${unreadableLine(u)}`))),
    '',
  ];
}

/** Duplicates that are not deleted (render/held-duplicates.ts), each a warning followed by a blank line. */
export function heldDuplicateText(plan: Pick<Plan, 'held_duplicates'>, style: Style): string[] {
  return heldDuplicateSentences(plan).flatMap((sentence) => [style.update(`Warning: ${sanitize(sentence)}`), '']);
}

/** The objects whose ignored fields differ (render/ignored.ts), then a blank line; nothing when none. */
function ignoredText(plan: Pick<Plan, 'ignored'>, style: Style): string[] {
  const { shown, more } = ignoredShown(plan);
  if (shown.length === 0) return [];
  return [
    style.dim(`${IGNORED_HEADING}:`),
    ...shown.map((o) => style.dim(sanitize(`    ${o.kind} ${o.name}: ${ignoredFieldsText(o)}`))),
    ...(more > 0 ? [style.dim(`    and ${more} more objects`)] : []),
    '',
  ];
}

/** The warning that a plan is targeted, and its notes (render/targets.ts), each followed by a blank line. */
export function targetText(plan: Pick<Plan, 'targets'>, style: Style, what: 'plan' | 'drift report' = 'plan'): string[] {
  const said = targetLines(plan.targets, what);
  if (!said) return [];
  return [style.update(`Warning: ${said.warning}`), ...said.notes.map((note) => style.update(`Warning: ${note}`)), ''];
}

function renderChange(change: Change, style: Style): string[] {
  const paint = style[change.action];
  const id = change.id ? ` (${sanitize(change.id)})` : '';
  const head = `  ${paint(sanitize(`${SYMBOLS[change.action].padEnd(3)} ${change.kind} ${change.name}`))}${style.dim(id)}`;
  const reason = change.needsPrune ? 'would be deleted with --prune' : change.reason;
  const lines = [reason ? `${head}  ${style.dim(`# ${sanitize(reason)}`)}` : head];
  if (change.action === 'create') {
    for (const [path, value] of flatten(change.after ?? {})) {
      if (value === null) continue;
      const long = { before: null, after: value, sensitive: false };
      if (isLongValueChange(long)) lines.push(...textLineDiff(path, longValueDiff(long), style, '        '));
      else lines.push(`        ${sanitize(path)}: ${formatValue(value)}`);
    }
  } else if (change.action === 'update' || change.action === 'replace') {
    for (const field of change.fields) {
      if (isLongValueChange(field)) lines.push(...textLineDiff(field.path, longValueDiff(field), style, '        '));
      else lines.push(`        ${formatField(field)}`);
    }
  }
  return lines;
}

/**
 * A field's line diff for a terminal: `path: (+2 -1 lines)`, then the diff indented two more
 * spaces, additions in the create colour, removals in the delete colour, hunk headers dim.
 */
export function textLineDiff(path: string, diff: readonly DiffLine[], style: Style, indent: string): string[] {
  const paint = { add: style.create, remove: style.delete, hunk: style.dim, note: style.dim, context: (s: string) => s };
  return [`${indent}${sanitize(path)}: (${diffStat(diff)})`, ...diff.map((line) => `${indent}  ${paint[line.kind](`${diffMarker(line.kind)}${line.text}`)}`)];
}

export function formatField(field: FieldChange): string {
  const path = sanitize(field.path);
  if (field.sensitive) return `${path}: ${sensitiveChange(field)}`;
  return `${path}: ${formatValue(field.before)} -> ${formatValue(field.after)}`;
}
