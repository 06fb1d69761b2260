/**
 * Duplicates that apply must not delete: those that an object gatehouse will not change this
 * run references (duplicates.ts).
 *
 * Apply re-points the references of this stack's declared objects to the kept object before
 * deleting a duplicate. An object of another stack, or one gatehouse does not manage, is never
 * changed, so if it references the duplicate, deleting the duplicate would leave it dangling (a
 * restriction using a deleted policy, a failover backend missing a member). Such a duplicate is
 * held: it is not deleted (nor its rules or routes), and plan, apply and drift report it naming
 * what references it and what to do: re-point those objects to the kept one (in the other
 * stack's manifests, or by hand), then run apply again, which deletes the duplicate then.
 *
 * The same holds for an object of this stack that its manifests no longer declare, unless the
 * plan prunes it (`--prune`: it is deleted first, and the duplicate after it). A held
 * duplicate referencing another duplicate holds that one too.
 */
import type { DuplicateObject } from './duplicates.js';
import type { HeldDuplicate } from '../plan-model.js';
import type { LiveObject } from '../live.js';
import type { Matching } from './matching.js';
import { liveReferences } from './reference-tokens.js';

/**
 * The duplicates of `matching` that stay, with the ids of every duplicate not to delete (the
 * held ones and their children). `prune`: this stack's undeclared objects are deleted.
 */
export function holdDuplicates(matching: Matching, stack: string, prune: boolean): { held: HeldDuplicate[]; ids: Set<string> } {
  const ids = new Set<string>();
  if (matching.duplicates.length === 0) return { held: [], ids };
  const duplicateOf = new Map(matching.duplicates.map((d) => [d.live.id, d]));
  const referrers = new Map<string, LiveObject[]>(); // duplicate id -> objects that stay and reference it
  const staying = [...matching.unmanaged, ...(prune ? [] : matching.deletes)];
  const hold = (objects: readonly LiveObject[]) => {
    const more: LiveObject[] = [];
    for (const o of objects) {
      for (const id of liveReferences(o)) {
        const duplicate = duplicateOf.get(id);
        if (!duplicate || duplicate.live.parentId !== undefined || id === o.id) continue;
        const list = referrers.get(id) ?? [];
        if (list.length === 0) more.push(duplicate.live);
        if (!list.includes(o)) list.push(o);
        referrers.set(id, list);
      }
    }
    return more;
  };
  // A held duplicate stays too: what it references is held in turn.
  for (let next = hold(staying); next.length > 0; next = hold(next));
  const held: HeldDuplicate[] = [];
  for (const [id, objects] of referrers) {
    const duplicate = duplicateOf.get(id)!;
    ids.add(id);
    held.push(describe(duplicate, objects, stack, duplicateOf));
  }
  for (const d of matching.duplicates) if (d.live.parentId !== undefined && ids.has(d.live.parentId)) ids.add(d.live.id);
  held.sort((a, b) => a.address.localeCompare(b.address));
  return { held, ids };
}

function describe(duplicate: DuplicateObject, objects: readonly LiveObject[], stack: string, duplicateOf: ReadonlyMap<string, DuplicateObject>): HeldDuplicate {
  const { live, keep, cause } = duplicate;
  const referenced_by = objects.map((o) => ({ kind: o.descriptor.kind, id: o.id, owner: ownerOf(o, stack, duplicateOf) }));
  const list = referenced_by.map((r) => `${r.kind} ${r.id} (${r.owner})`).join(', ');
  const many = referenced_by.length > 1;
  const ownStale = referenced_by.some((r) => r.owner.endsWith('no longer declared'));
  const message =
    `${live.descriptor.kind} ${live.id} ${cause === 'interrupted_replace' ? `was left by an interrupted replace (${keep.id} replaced it)` : `duplicates ${keep.id} (same stack and address)`}, ` +
    `but is not deleted: ${list} reference${many ? '' : 's'} it, and gatehouse does not change ${many ? 'them' : 'it'} here. ` +
    `Re-point ${many ? 'them' : 'it'} to ${keep.id}${ownStale ? " (or delete this stack's undeclared objects with apply --prune)" : ''}, then run apply again: it deletes the duplicate then`;
  return {
    address: `${live.descriptor.kind}/${live.marker?.name ?? live.id}#${live.id}`,
    kind: live.descriptor.kind,
    id: live.id,
    keep: keep.id,
    cause,
    referenced_by,
    message,
  };
}

function ownerOf(o: LiveObject, stack: string, duplicateOf: ReadonlyMap<string, DuplicateObject>): string {
  if (duplicateOf.has(o.id)) return `a duplicate that is not deleted either`;
  if (!o.marker) return 'not managed by gatehouse';
  if (o.marker.stack !== stack) return `stack "${o.marker.stack}"`;
  return `stack "${stack}", no longer declared`;
}
