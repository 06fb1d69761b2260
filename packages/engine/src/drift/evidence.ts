/**
 * The marker apply writes on an object (`markerFor`): the stack, the name, the hash of the
 * desired normal form as applied, the manifest path (prune scope), the fields written from
 * secret variables and, for parents, the hash of the set of children the manifest declared.
 * Drift reads the same evidence back (identity/hash.ts): secrets are masked before hashing, so a marker never holds anything
 * derived from a secret, and a secret that differs is a difference these hashes cannot attribute.
 */
import type { DesiredObject } from '../desired.js';
import { childrenHash, desiredHash } from '../identity/hash.js';
import type { Marker } from '../identity/marker.js';
import { childrenOf } from '../kinds/index.js';
import { envRecord } from '../identity/env-fields.js';
import { canonical } from '../identity/normal-form.js';

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
  const env = envRecord(d, canonical(d.descriptor, d.normal, tokens));
  if (env) marker.env = env;
  return marker;
}
