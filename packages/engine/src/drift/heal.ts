/**
 * Which changes of a prepared apply a continuous reconciler (`gatehouse watch`) may run, by the
 * cause drift's evidence gives each one (detect.ts):
 *
 * - `outside`: changed or deleted outside gatehouse (`changed_outside`, `deleted_outside`), or a
 *   duplicate of an object of this stack (a copy nobody declared): run with `allow.outside`
 *   (`--self-heal`). An object changed outside whose manifests changed too needs `allow.git` as
 *   well: healing it would also apply the change from git.
 * - `git`: the manifests changed (`changed_in_manifests`: an edit, an adoption, a removal),
 *   or the cause is unknown (`missing`: not applied yet or deleted outside; `changed`: no
 *   evidence): run with `allow.git` (`--apply-git`). So are the bookkeeping writes of a plan
 *   (ownership marker refreshes: what the manifests now record).
 * - Every delete also needs `allow.prune` (`--prune`).
 * - Re-points of objects that reference a replaced one run when every replace runs; the bot
 *   user registry's write when every bot user change runs (it records them all).
 *
 * The safety rails are checked again on what is selected (a refusal of a delete that is not run
 * must not stop a heal). Pure: the caller prepared the apply under the stack's lock.
 */
import type { Subject } from '../apply/model.js';
import type { PreparedApply } from '../apply/prepare.js';
import { railRefusals } from '../apply/rails.js';
import type { DriftReport } from './model.js';

/** Why a change is applied, as `gatehouse watch` counts and reports it. */
export type HealCause = 'outside' | 'git';

export interface HealPermissions {
  /** `--self-heal`: changes and deletions made outside gatehouse are undone. */
  outside: boolean;
  /** `--apply-git`: changes of the manifests (and of unknown cause) are applied. */
  git: boolean;
  /** `--prune`: deletes may run (of the causes allowed). */
  prune: boolean;
}

/** A change left alone, and the flag that would let it run. */
export interface HeldChange {
  address: string;
  cause: HealCause;
  /** The flags it needs and lacks (`--apply-git`, `--prune`). */
  needs: string[];
}

export interface HealSelection {
  /** The prepared apply with only the selected changes (refusals checked on them). */
  prepared: PreparedApply;
  /** Addresses of the selected changes, with their cause. */
  selected: { address: string; cause: HealCause }[];
  held: HeldChange[];
}

export function selectHealable(prepared: PreparedApply, report: Pick<DriftReport, 'objects'>, allow: HealPermissions): HealSelection {
  const drifted = new Map(report.objects.map((o) => [o.address, o]));
  const selected: HealSelection['selected'] = [];
  const held: HeldChange[] = [];
  const chosen: Subject[] = [];
  const later: Subject[] = [];
  for (const subject of prepared.subjects) {
    const { change } = subject;
    if (change.cause === 'repoint' || change.cause === 'registry') {
      later.push(subject);
      continue;
    }
    const object = drifted.get(change.address);
    const outside = object !== undefined && (object.drift === 'changed_outside' || object.drift === 'deleted_outside' || object.drift === 'duplicate');
    const cause: HealCause = outside ? 'outside' : 'git';
    const needs: string[] = [];
    if (outside && !allow.outside) needs.push('--self-heal');
    if ((!outside || object?.manifests_changed) && !allow.git) needs.push('--apply-git');
    if (change.action === 'delete' && !allow.prune) needs.push('--prune');
    if (needs.length > 0) held.push({ address: change.address, cause, needs });
    else {
      chosen.push(subject);
      selected.push({ address: change.address, cause });
    }
  }
  const runs = new Set(chosen.map((s) => s.change.address));
  const needsOf = new Map(held.map((h) => [h.address, h.needs]));
  const followed = (test: (s: Subject) => boolean) => prepared.subjects.filter((s) => !later.includes(s) && test(s));
  for (const subject of later) {
    const { change } = subject;
    // A re-point follows the replaces; the registry's write, the bot user changes it records.
    const leaders = followed(change.cause === 'repoint' ? (s) => s.change.action === 'replace' : (s) => s.change.kind === 'BotUser');
    // With none to follow (a registry that only needs rewriting), it is bookkeeping of the manifests.
    if (leaders.length > 0 ? leaders.every((s) => runs.has(s.change.address)) : allow.git) {
      chosen.push(subject);
      selected.push({ address: change.address, cause: 'git' });
      continue;
    }
    const needs = [...new Set(leaders.flatMap((s) => needsOf.get(s.change.address) ?? []))];
    held.push({ address: change.address, cause: 'git', needs: needs.length > 0 ? needs : ['--apply-git'] });
  }
  const refusals = chosen.length === 0 ? [] : railRefusals({ subjects: chosen, matching: prepared.matching, stack: prepared.stack, force: false });
  return { prepared: { ...prepared, subjects: chosen, refusals }, selected, held };
}
