/**
 * The prune scope in words (plan-model.ts `prune_scope`, plan/prune-scope.ts), one sentence
 * for every format: how many owned objects the manifests do not declare were left outside the
 * PATHs read, and that `--prune-all` considers them; or that the plan prunes everything the
 * stack owns. Empty when the plan has no `prune_scope` (nothing was left outside). Kind names
 * and paths are the caller's to escape (text sanitizes, Markdown and HTML escape).
 */
import type { Plan } from '../plan-model.js';

export function pruneScopeSentence(plan: Pick<Plan, 'prune_scope' | 'stack'>): string {
  const scope = plan.prune_scope;
  if (!scope) return '';
  if (scope.mode === 'all') {
    return `Prune scope: all (--prune-all): deletes cover everything stack "${plan.stack}" owns that the manifests read do not declare, whichever file it was applied from.`;
  }
  if (scope.outside === 0) return '';
  const n = scope.outside;
  const kinds = Object.entries(scope.outside_kinds)
    .map(([kind, count]) => `${count} ${kind}`)
    .join(', ');
  const where = scope.paths.length > 0 ? ` (${scope.paths.join(', ')})` : '';
  const parts = [
    `Prune scope: ${n} owned object${n === 1 ? '' : 's'} not declared in the manifests read ${n === 1 ? 'was' : 'were'} applied from outside the PATHs given${where}: ${kinds}. ${n === 1 ? 'It is' : 'They are'} left alone (not deleted, not shown above); --prune-all considers ${n === 1 ? 'it' : 'them'}.`,
  ];
  if (scope.outside_without_path > 0) {
    const m = scope.outside_without_path;
    parts.push(
      `${m} of them record${m === 1 ? 's' : ''} no manifest path (applied before gatehouse recorded it): applying the manifest that declares ${m === 1 ? 'it' : 'them'} records it.`,
    );
  }
  if (scope.stdin) parts.push('Manifests read from standard input have no file, so they widen no scope.');
  return parts.join(' ');
}
