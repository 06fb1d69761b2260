/**
 * The metadata apply writes on a desired object: the user's own metadata plus this stack's
 * ownership marker (`marker.ts`). One function for plan and apply, so that the plan can show
 * every marker write apply will make (a marker refresh is a change with a reason, never a
 * surprise) and apply writes exactly what the plan compared.
 */
import { METADATA_MAX_BYTES } from '@gatehouse/schemas/runtime';
import type { DesiredObject } from '../desired.js';
import { childrenHash, referenceTokens } from '../drift/evidence.js';
import { childrenOf } from '../kinds/index.js';
import { composeMetadata, type Marker } from '../marker.js';
import type { Matching } from './match.js';
import { desiredHash } from './plan.js';

export type MetadataFor = (d: DesiredObject) => string | undefined;

/**
 * `metadataFor(d)`: undefined for kinds without metadata. The marker records the spec hash,
 * for parents the hash of their declared children, and `prevent_destroy` when the manifest
 * says so (left out rather than exceeding the 4096-byte limit).
 */
export function metadataWriter(matching: Matching, stack: string): MetadataFor {
  const tokens = referenceTokens(matching);
  const childKeys = new Map<string, string[]>(); // parent address -> natural keys of its declared children
  for (const d of [...matching.pairs.map((p) => p.desired), ...matching.creates]) {
    if (d.parent === undefined) continue;
    const keys = childKeys.get(d.parent);
    const key = d.descriptor.naturalKey!(d.normal);
    if (keys) keys.push(key);
    else childKeys.set(d.parent, [key]);
  }
  return (d) => {
    if (!d.descriptor.metadata) return undefined;
    const marker: Marker = { stack, name: d.markerName, hash: desiredHash(d, tokens) };
    if (childrenOf(d.descriptor.kind).length > 0) marker.children = childrenHash(childKeys.get(d.address) ?? []);
    if (d.preventDestroy) marker.preventDestroy = true;
    const user = d.normal.metadata as string | undefined;
    const full = composeMetadata(user, marker);
    return Buffer.byteLength(full, 'utf8') <= METADATA_MAX_BYTES ? full : composeMetadata(user, { ...marker, preventDestroy: false });
  };
}
