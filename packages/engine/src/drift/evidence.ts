/**
 * The evidence drift reads from ownership markers, and the one function that writes it.
 *
 * - `markerFor` is what apply records on an object it writes (through `CallContext.metadata`):
 *   the stack, the name, the hash of the desired normal form as applied (`desiredHash`) and,
 *   the manifest path (prune scope), for parents the hash of the set of children the manifest
 *   declared (`childrenHash`).
 * - `liveHash` is the same hash over the live object, so "live still matches what was applied"
 *   is `liveHash(live) === marker.hash`, and "the manifests changed since" is
 *   `desiredHash(desired) !== marker.hash`.
 *
 * Secrets are masked before hashing (a marker never holds anything derived from a secret), so
 * a secret that differs is a difference these hashes cannot attribute.
 */
import type { DesiredObject } from '../desired.js';
import { childrenOf } from '../kinds/index.js';
import type { LiveObject } from '../live.js';
import { specHash, type Marker } from '../identity/marker.js';
import { canonical, ignoreServerChosen, mask } from '../plan/diff.js';
import { duplicateAddress } from '../plan/duplicates.js';
import type { Matching } from '../plan/match.js';
import { desiredHash, liveNormal } from '../plan/plan.js';

/** Hash over the natural keys of a parent's children, in any order. */
export const childrenHash = (keys: readonly string[]): string => specHash([...keys].sort());

/** The natural keys of the children that `desired` declares under the parent at `address`. */
export const declaredChildKeys = (address: string, desired: readonly DesiredObject[]): string[] =>
  desired.filter((d) => d.parent === address).map((d) => d.descriptor.naturalKey!(d.normal));

/**
 * The marker apply writes on `d`: `tokens` maps live ids to desired addresses (as the plan's
 * diff does); `desired` is every desired object (for a parent's children).
 */
export function markerFor(d: DesiredObject, desired: readonly DesiredObject[], tokens: Map<string, string>, stack: string): Marker {
  const marker: Marker = { stack, name: d.markerName, hash: desiredHash(d, tokens) };
  if (d.manifestPath !== undefined) marker.path = d.manifestPath;
  if (childrenOf(d.descriptor.kind).length > 0) marker.children = childrenHash(declaredChildKeys(d.address, desired));
  return marker;
}

/** Live id -> desired address for every paired or owned object, as the plan canonicalizes references. */
export function referenceTokens(matching: Matching): Map<string, string> {
  const tokens = new Map<string, string>();
  for (const { desired, live } of matching.pairs) tokens.set(live.id, desired.address);
  for (const o of matching.deletes) tokens.set(o.id, `${o.descriptor.kind}/${o.marker?.name ?? o.id}`);
  // A duplicate is not its kept object: a reference to it must be re-pointed (duplicates.ts).
  for (const { live: o } of matching.duplicates) tokens.set(o.id, duplicateAddress(`${o.descriptor.kind}/${o.marker?.name ?? o.id}`, o.id));
  return tokens;
}

/** The hash of a live object's normal form, comparable with the marker's (fields the server chose and `d` leaves out ignored). */
export function liveHash(o: LiveObject, d: DesiredObject, tokens: Map<string, string>): string {
  const after = canonical(d.descriptor, d.normal, tokens);
  const before = ignoreServerChosen(d.descriptor, after, canonical(o.descriptor, liveNormal(o), tokens));
  return specHash(mask(o.descriptor.sensitive, before, null)[0]);
}
