/**
 * The metadata apply writes on a desired object: the user's own metadata plus this stack's
 * ownership marker (`marker.ts`). One function for plan and apply, so that the plan can show
 * every marker write apply will make (a marker refresh is a change with a reason, never a
 * surprise) and apply writes exactly what the plan compared.
 */
import type { DesiredObject } from '../desired.js';
import { childrenHash, desiredHash } from '../identity/hash.js';
import { referenceTokens } from './reference-tokens.js';
import { childrenOf } from '../kinds/index.js';
import { composeMetadata, fitsMetadata, type Marker } from '../identity/marker.js';
import type { Matching } from './matching.js';
import { secretDigestsFor, secretVersionOf } from './write-only-secrets.js';
import { envRecord } from '../identity/env-fields.js';
import { canonical } from '../identity/normal-form.js';
import type { LiveObject } from '../live.js';
import { append } from '../append.js';

export type MetadataFor = (d: DesiredObject) => string | undefined;

/**
 * `metadataFor(d)`: undefined for kinds without metadata. The marker records the spec hash,
 * for parents the hash of their declared children, `prevent_destroy` when the manifest says
 * so (left out rather than exceeding the 4096-byte limit), the digests of write-only secrets
 * and `secret_version` (plan/write-only-secrets.ts), and the manifest path the object is
 * applied from (prune-scope.ts). An object read from standard input has no path: its marker
 * keeps the path the live marker records, if any (where its manifest file last was).
 */
export function metadataWriter(matching: Matching, stack: string): MetadataFor {
  const tokens = referenceTokens(matching);
  const childKeys = new Map<string, string[]>(); // parent address -> natural keys of its declared children
  const declare = (d: DesiredObject) => {
    if (d.parent !== undefined) append(childKeys, d.parent, d.descriptor.naturalKey!(d.normal));
  };
  for (const p of matching.pairs) declare(p.desired);
  for (const d of matching.creates) declare(d);
  const livePaths = new Map<string, string>(); // desired address -> path its live marker records
  for (const { desired, live } of matching.pairs) {
    if (live.marker?.stack === stack && live.marker.path !== undefined) livePaths.set(desired.address, live.marker.path);
  }
  // Objects with write-only secrets (event destinations: few): their live marker keeps the digests to reuse.
  const liveOf = new Map<string, LiveObject>();
  for (const { desired, live } of matching.pairs) {
    if (desired.descriptor.sensitive.length > 0) liveOf.set(desired.address, live);
  }
  return (d) => {
    if (!d.descriptor.metadata) return undefined;
    const marker: Marker = { stack, name: d.markerName, hash: desiredHash(d, tokens) };
    const path = d.manifestPath ?? livePaths.get(d.address);
    if (path !== undefined) marker.path = path;
    if (childrenOf(d.descriptor.kind).length > 0) marker.children = childrenHash(childKeys.get(d.address) ?? []);
    if (d.preventDestroy) marker.preventDestroy = true;
    const version = secretVersionOf(d);
    if (version !== undefined) marker.secretVersion = version;
    const digests = d.descriptor.sensitive.length > 0 ? secretDigestsFor(d, liveOf.get(d.address), stack) : undefined;
    if (digests) marker.secrets = digests;
    const env = envRecord(d, canonical(d.descriptor, d.normal, tokens));
    if (env) marker.env = env;
    const user = d.normal.metadata as string | undefined;
    const full = composeMetadata(user, marker);
    if (fitsMetadata(full)) return full;
    // A path kept from the live marker was not counted by validate: it goes first.
    if (d.manifestPath === undefined && marker.path !== undefined) {
      const { path: _kept, ...withoutPath } = marker;
      const shorter = composeMetadata(user, withoutPath);
      if (fitsMetadata(shorter)) return shorter;
    }
    return composeMetadata(user, { ...marker, preventDestroy: false });
  };
}
