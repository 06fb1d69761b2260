/**
 * Safety rails, checked before anything is written (octoDNS-style: a plan that destroys too
 * much needs `--force`). Each refusal names the change and says what to do.
 *
 * - Ownership: a delete is only of an object carrying this stack's marker, or a child of such
 *   an object that is deleted with it (match guarantees it; this is the last guard).
 * - prevent_destroy: a replace of an object whose manifest says `lifecycle.prevent_destroy`,
 *   or a delete of one whose marker recorded it at the last apply (its manifest is gone).
 * - Threshold: deletes plus replaces of top-level objects (rules and routes not counted) over
 *   30% of the top-level objects the stack owns, when it owns more than 10, need `--force`;
 *   so do more than 30% of any one kind of which it owns more than 3.
 */
import type { Matching } from '../plan/matching.js';
import type { Refusal } from './model.js';
import type { Subject } from './model.js';

export const THRESHOLD_SHARE = 0.3;
export const THRESHOLD_MIN_OWNED = 10;
/** The per-kind share applies to kinds of which the stack owns more than this many. */
export const THRESHOLD_MIN_OWNED_PER_KIND = 3;

export interface RailInput {
  subjects: Subject[];
  matching: Matching;
  stack: string;
  force: boolean;
}

export function railRefusals({ subjects, matching, stack, force }: RailInput): Refusal[] {
  const refusals: Refusal[] = [];
  const running = subjects.filter((s) => !s.stale);
  const deletedIds = new Set(running.filter((s) => s.change.action === 'delete').map((s) => s.change.id));

  for (const { change, live, desired } of running) {
    if (change.action === 'delete' && live) {
      const owned = live.marker?.stack === stack || (live.parentId !== undefined && deletedIds.has(live.parentId));
      if (!owned)
        refusals.push({
          code: 'not_owned',
          address: change.address,
          message: `${change.address} (${live.id}) is not owned by stack "${stack}"; gatehouse never deletes it`,
        });
    }
    // A duplicate's delete destroys nothing declared: its kept twin stays.
    if (change.action === 'delete' && live?.marker?.preventDestroy && !change.duplicate) {
      refusals.push({
        code: 'prevent_destroy',
        address: change.address,
        message: live.descriptor.child
          ? `${change.address} was applied under a ${live.descriptor.child.parentKind} with lifecycle.prevent_destroy; set prevent_destroy: false in that manifest and apply, then remove it`
          : `${change.address} was applied with lifecycle.prevent_destroy; to delete it, declare it again with prevent_destroy: false, apply, then remove it`,
      });
    }
    if (change.action === 'replace' && desired?.preventDestroy) {
      refusals.push({
        code: 'prevent_destroy',
        address: change.address,
        message: `${change.address} must be replaced (${change.reason ?? 'a field cannot be updated'}) but its manifest says lifecycle.prevent_destroy (${desired.source.file}:${desired.source.line}); set prevent_destroy: false to allow it, or revert the change`,
      });
    }
  }

  // Top-level objects only: an IP policy's rules or an edge's routes do not dilute the share.
  // What the stack owns outside the prune scope counts too (plan/prune-scope.ts).
  const ownedTop = [...matching.pairs.map((p) => p.live), ...matching.deletes, ...(matching.pruneScope?.outside ?? [])].filter(
    (o) => o.marker?.stack === stack && !o.descriptor.child,
  );
  const destructiveTop = running.filter(
    (s) => ((s.change.action === 'delete' && !s.change.duplicate) || s.change.action === 'replace') && !(s.live ?? s.desired)?.descriptor.child,
  );
  const owned = ownedTop.length;
  const destructive = destructiveTop.length;
  if (!force && owned > THRESHOLD_MIN_OWNED && destructive > owned * THRESHOLD_SHARE) {
    refusals.push({
      code: 'delete_threshold',
      message: `this apply would delete or replace ${destructive} of the ${owned} top-level objects stack "${stack}" owns (more than ${THRESHOLD_SHARE * 100}%); review the plan and pass --force if that is intended`,
    });
  } else if (!force) {
    // Per kind as well: losing most of one kind (every backend) is not hidden by many others.
    const count = (objects: { kind: string }[]) => objects.reduce((m, o) => m.set(o.kind, (m.get(o.kind) ?? 0) + 1), new Map<string, number>());
    const ownedByKind = count(ownedTop.map((o) => ({ kind: o.descriptor.kind })));
    for (const [kind, n] of count(destructiveTop.map((s) => ({ kind: s.change.kind })))) {
      const of = ownedByKind.get(kind) ?? 0;
      if (of > THRESHOLD_MIN_OWNED_PER_KIND && n > of * THRESHOLD_SHARE) {
        refusals.push({
          code: 'delete_threshold',
          message: `this apply would delete or replace ${n} of the ${of} ${kind} objects stack "${stack}" owns (more than ${THRESHOLD_SHARE * 100}% of that kind); review the plan and pass --force if that is intended`,
        });
      }
    }
  }
  return refusals;
}
