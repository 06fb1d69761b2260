/**
 * The plan in a few lines, for `apply --yes`: the first line of the full text (target and
 * stack), one line per kind that changes, with its counts, and the plan's last line. Apply
 * prints this instead of every change when nobody is asked to confirm, since nobody reads a
 * plan of a thousand changes scrolling by in a pipeline; `--show-plan` prints it in full.
 */
import type { Action, Plan } from '../plan-model.js';
import { pruneScopeSentence } from './prune-scope.js';
import { sanitize } from './sanitize.js';
import { heldDuplicateText, targetText, unreadableText } from './text.js';
import { plainStyle, type Style } from './style.js';
import { SYMBOLS, countChanges, describeTarget, summaryLine } from './values.js';

const ORDER: readonly Action[] = ['create', 'update', 'replace', 'delete'];

export function renderKindSummary(plan: Plan, options: { style?: Style } = {}): string {
  const style = options.style ?? plainStyle;
  const lines = [style.bold(`gatehouse plan for ${describeTarget(plan)}, stack "${sanitize(plan.stack)}"`), '', ...targetText(plan, style)];
  if (countChanges(plan.summary) === 0) {
    lines.push(`No changes. The live objects match the manifests (${plan.summary.unchanged} unchanged).`);
  } else {
    // Kinds in the order their first change appears in the plan (dependency order).
    const byKind = new Map<string, Record<Action, number>>();
    for (const change of plan.changes) {
      let counts = byKind.get(change.kind);
      if (!counts) byKind.set(change.kind, (counts = { create: 0, update: 0, replace: 0, delete: 0 }));
      counts[change.action]++;
    }
    const width = Math.max(...[...byKind.keys()].map((kind) => kind.length));
    for (const [kind, counts] of byKind) {
      const parts = ORDER.filter((action) => counts[action] > 0).map((action) => style[action](`${SYMBOLS[action]} ${counts[action]} to ${action}`));
      lines.push(`  ${sanitize(kind).padEnd(width)}  ${parts.join(', ')}`);
    }
    lines.push('', style.bold(`Plan: ${summaryLine(plan.summary)}`), style.dim('(--show-plan prints every change)'));
  }
  const scope = pruneScopeSentence(plan);
  if (scope) lines.push(style.dim(sanitize(scope)));
  const unread = unreadableText(plan.unreadable, 'planned', style);
  if (unread.length > 0) lines.push('', ...unread.slice(0, -1));
  const held = heldDuplicateText(plan, style);
  if (held.length > 0) lines.push('', ...held.slice(0, -1));
  lines.push(style.dim(`Live state read with ${plan.requests} API request${plan.requests === 1 ? '' : 's'}.`));
  return `${lines.join('\n')}\n`;
}
