/**
 * The tokens references are compared by: every live id that belongs to an object a plan knows
 * (paired with a manifest, owned, or a duplicate) maps to that object's address, so that a
 * reference compares by identity whether the manifest wrote it by name or by id.
 *
 * A reference by value (kinds/types.ts `RefField.byValue`: a TCP edge's hostport is a reserved
 * TCP address's `addr`) is compared the same way: the value of every live object of the
 * referenced kind maps to that object's token (its address when known, else its id), so a
 * live hostport, a hostport written out and `{reserved_tcp_address: ...}` all compare by the
 * reservation they name.
 */
import { referencedValueField } from '../kinds/index.js';
import type { KindDescriptor, Spec } from '../kinds/types.js';
import { liveNormal } from '../identity/normal-form.js';
import { collect } from '../identity/patterns.js';
import type { LiveObject } from '../live.js';
import type { ApiObject } from '../ports.js';
import type { Matching } from './matching.js';
import { duplicateAddress } from './duplicates.js';

/** The tokens (addresses or live ids) a normal form references, by its descriptor's reference patterns. */
export const referencesIn = (descriptor: KindDescriptor, normal: Spec): string[] =>
  descriptor.refs.flatMap((r) => collect(normal, r.pattern).map((f) => String(f.value)));

/** The live ids a live object references. */
export const liveReferences = (o: LiveObject): Set<string> => new Set(o.descriptor.refs.length === 0 ? [] : referencesIn(o.descriptor, liveNormal(o)));

/** Live id -> desired address for every paired or owned object, as the plan canonicalizes references. */
export function referenceTokens(matching: Matching): Map<string, string> {
  const tokens = new Map<string, string>();
  for (const { desired, live } of matching.pairs) tokens.set(live.id, desired.address);
  for (const o of matching.deletes) tokens.set(o.id, `${o.descriptor.kind}/${o.marker?.name ?? o.id}`);
  // A duplicate is not its kept object: a reference to it must be re-pointed (duplicates.ts).
  for (const { live: o } of matching.duplicates) tokens.set(o.id, duplicateAddress(`${o.descriptor.kind}/${o.marker?.name ?? o.id}`, o.id));
  addValueTokens(tokens, matching);
  return tokens;
}

/**
 * Adds, for every live object of a kind referenced by value, its value -> its token (the token
 * `tokens` already gives its id, else the id). Call after every id has its token.
 */
export function addValueTokens(tokens: Map<string, string>, matching: Matching): void {
  const add = (o: LiveObject) => {
    const field = referencedValueField(o.descriptor.kind);
    const value = field === undefined ? undefined : o.raw[field];
    if (typeof value === 'string' && value !== '') tokens.set(value, tokens.get(o.id) ?? o.id);
  };
  for (const o of everyLive(matching)) add(o);
}

/** Every live object a matching holds, by id, as read: apply reads references by value from it. */
export function liveObjectsById(matching: Matching): Map<string, ApiObject> {
  const objects = new Map<string, ApiObject>();
  for (const o of everyLive(matching)) objects.set(o.id, o.raw);
  return objects;
}

/** Paired, deleted, duplicate, unmanaged and out-of-scope live objects. */
function* everyLive(matching: Matching): Iterable<LiveObject> {
  for (const { live } of matching.pairs) yield live;
  yield* matching.deletes;
  for (const { live } of matching.duplicates) yield live;
  yield* matching.unmanaged;
  yield* matching.pruneScope?.outside ?? [];
}
