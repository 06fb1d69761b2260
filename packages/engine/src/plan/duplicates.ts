/**
 * Duplicates: two or more live objects of one kind that carry this stack's marker with the same
 * name, so that they claim the same address. They come from a race (two applies before the
 * lock existed, an older version), from a person copying an object with its metadata, or from
 * a replace that was interrupted between creating the new object and deleting the old one.
 *
 * One of them is kept and paired with the manifest; the others are to be deleted by apply,
 * without `--prune` (they are not undeclared objects: their address is declared) and without
 * counting against the delete threshold (nothing declared goes away). Which one is kept:
 * 1. among those whose marker hash is the manifests' current hash (`desiredHash`), the oldest:
 *    after an interrupted replace that is the replacement, since the old object was applied
 *    from the previous manifests (and would need the replace again);
 * 2. otherwise the oldest of all (`created_at`, then id).
 * The others are `interrupted_replace` when their hash differs from the kept one's, else
 * `duplicate`. Children of a deleted duplicate (a policy's rules) are deleted with it.
 *
 * References are re-pointed by the plan itself: a duplicate's id maps to its own address
 * (`<Kind>/<name>#<id>`, `duplicateAddress`), never to the declared one, so a live object that
 * references a duplicate differs from its manifest and is updated to reference the kept object
 * before the duplicate is deleted (the delete waits for the updates that stop referencing it).
 */
import type { DesiredObject } from '../desired.js';
import type { LiveObject } from '../live.js';
import { desiredHash } from '../identity/hash.js';
import type { DuplicateCause } from '../plan-model.js';
import { append } from '../append.js';

export interface DuplicateObject {
  /** The live object to delete. */
  live: LiveObject;
  /** The object kept in its place (for a child, the kept parent). */
  keep: LiveObject;
  cause: DuplicateCause;
}

/** The address of a duplicate to delete: its declared address plus `#<id>`, unique in a plan. */
export const duplicateAddress = (address: string, id: string) => `${address}#${id}`;

/** Oldest first: `created_at` (RFC 3339 strings of one server compare as text), then id. */
const byAge = (a: LiveObject, b: LiveObject) =>
  String(a.raw.created_at ?? '').localeCompare(String(b.raw.created_at ?? '')) || a.id.localeCompare(b.id, 'en', { numeric: true });

/**
 * The duplicates among `live` top-level objects owned by `stack` (same kind, same marker
 * name), each group's kept object excluded. `desired` gives the hash that picks the kept one.
 */
export function findDuplicates(live: readonly LiveObject[], stack: string, desired: readonly DesiredObject[]): DuplicateObject[] {
  const groups = new Map<string, LiveObject[]>(); // kind \0 marker name -> this stack's top-level objects
  for (const o of live) {
    if (o.parentId === undefined && o.marker?.stack === stack) append(groups, `${o.descriptor.kind}\0${o.marker.name}`, o);
  }
  // Built only when there is a group: most plans have no duplicate.
  let desiredByKey: Map<string, DesiredObject> | undefined;
  const found: DuplicateObject[] = [];
  for (const [key, group] of groups) {
    if (group.length < 2) continue;
    const sorted = [...group].sort(byAge);
    desiredByKey ??= new Map(desired.filter((d) => !d.parent).map((d) => [`${d.descriptor.kind}\0${d.markerName}`, d]));
    const d = desiredByKey.get(key);
    const current = d ? desiredHash(d) : undefined;
    const keep = sorted.find((o) => o.marker!.hash === current) ?? sorted[0]!;
    for (const o of sorted) {
      if (o === keep) continue;
      found.push({ live: o, keep, cause: o.marker!.hash !== keep.marker!.hash ? 'interrupted_replace' : 'duplicate' });
    }
  }
  return found;
}

/** The sentence a plan shows for a duplicate's delete. */
export function duplicateReason(duplicate: DuplicateObject): string {
  const what =
    duplicate.live.parentId !== undefined
      ? 'belongs to a duplicate'
      : duplicate.cause === 'interrupted_replace'
        ? 'left by an interrupted replace'
        : 'duplicate';
  return `${what}; ${duplicate.keep.id} is kept and references are re-pointed to it`;
}
