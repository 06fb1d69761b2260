/**
 * The tokens references are compared by: every live id that belongs to an object a plan knows
 * (paired with a manifest, owned, or a duplicate) maps to that object's address, so that a
 * reference compares by identity whether the manifest wrote it by name or by id.
 */
import type { Matching } from './matching.js';
import { duplicateAddress } from './duplicates.js';

/** Live id -> desired address for every paired or owned object, as the plan canonicalizes references. */
export function referenceTokens(matching: Matching): Map<string, string> {
  const tokens = new Map<string, string>();
  for (const { desired, live } of matching.pairs) tokens.set(live.id, desired.address);
  for (const o of matching.deletes) tokens.set(o.id, `${o.descriptor.kind}/${o.marker?.name ?? o.id}`);
  // A duplicate is not its kept object: a reference to it must be re-pointed (duplicates.ts).
  for (const { live: o } of matching.duplicates) tokens.set(o.id, duplicateAddress(`${o.descriptor.kind}/${o.marker?.name ?? o.id}`, o.id));
  return tokens;
}
