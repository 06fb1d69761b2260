/**
 * What a targeted plan or drift report says about its targets, in the same sentences in every
 * human format (text, `apply --yes`'s summary, Markdown): that it is partial (Terraform warns
 * the same way), which targets matched nothing, and which matched only objects the manifests
 * no longer declare (deletes a targeted plan never makes). The JSON forms carry `targets`
 * itself. Targets are the user's text: sanitized here.
 */
import type { PlanTargets } from '../plan-model.js';
import { sanitize } from './sanitize.js';

const list = (targets: readonly string[]) => targets.map((t) => sanitize(t)).join(', ');

/** The lines, most important first; `[]` for a plan without targets. `what` is `plan` or `drift report`. */
export function targetLines(targets: PlanTargets | undefined, what: 'plan' | 'drift report'): { warning: string; notes: string[] } | undefined {
  if (!targets) return undefined;
  const warning =
    what === 'plan'
      ? `Targeted plan (--target ${list(targets.requested)}): only these objects, their children and the changes they depend on; nothing is deleted. ` +
        'The rest of the live state may differ from the manifests: run a full plan once the emergency is over.'
      : `Targeted drift report (--target ${list(targets.requested)}): only these objects and their children were compared.`;
  const notes: string[] = [];
  if (targets.unmatched.length > 0)
    notes.push(`--target ${list(targets.unmatched)} matched nothing: no declared object and no live object this stack owns has such an address.`);
  if (targets.undeclared && targets.undeclared.length > 0) {
    notes.push(
      `--target ${list(targets.undeclared)} matched only live objects the manifests no longer declare; a targeted plan never deletes: delete them with a full plan and --prune.`,
    );
  }
  return { warning, notes };
}
