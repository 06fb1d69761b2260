/**
 * The ownership marker: how a live object says which gatehouse stack manages it, without a
 * state file. It is the last line of the object's `metadata`:
 *
 *     <the user's own metadata, if any>\n
 *     gatehouse:v1 {"stack":"<stack>","name":"<manifest name>","hash":"<16 hex>"}
 *
 * - With no user metadata, the metadata is the marker line alone (no leading newline), so
 *   user metadata "" and "absent" stay distinct.
 * - `name` is the object's address without its kind (`office`, `api/path_prefix:/`).
 * - `hash` is the first 16 hex digits of sha256 over the canonical JSON of the object's
 *   normal form as last applied, secrets masked: drift compares it with the manifests' hash to
 *   tell "changed in git" from "changed outside gatehouse".
 * - The user's metadata round-trips unchanged: `parseMarker(composeMetadata(m, marker)).user === m`.
 * - The 4096-byte limit counts the marker: validate reports user metadata that leaves no room.
 * - `children` (optional, parents only: IP policies, HTTPS edges) is specHash over the sorted
 *   natural keys of the children the parent's manifest declared when it was applied: drift's
 *   evidence that a missing rule or route was applied and then deleted outside gatehouse. It
 *   is evidence, not identity: `composeMetadata` leaves it out when it would not fit in 4096
 *   bytes, and markers without it (older ones) parse as before.
 * - `prevent_destroy: true` (optional) records the manifest's `lifecycle.prevent_destroy` as
 *   last applied, so that apply still refuses to delete the object after its manifest was
 *   removed. Absent means false; markers written without it parse as before.
 * - `path` (optional) is the manifest file the object was applied from, relative to the
 *   repository root, with forward slashes (`manifests/ip-policies.yaml`): what `--prune`
 *   decides its scope by (plan/prune-scope.ts). Markers written without it (before it was
 *   recorded, or from standard input) parse as before; the byte limit counts it.
 */
import { METADATA_MAX_BYTES } from '@gatehouse/schemas/runtime';

export const MARKER_PREFIX = 'gatehouse:v1 ';

export interface Marker {
  stack: string;
  name: string;
  hash: string;
  children?: string;
  /** `lifecycle.prevent_destroy` as last applied; absent means false. */
  preventDestroy?: boolean;
  /** Manifest path the object was applied from, relative to the repository root (prune scope). */
  path?: string;
}

/**
 * The marker line: the JSON of `{stack, name, hash, path?, children?, prevent_destroy?}` in that
 * order, written field by field (a plan formats one per object it compares).
 */
export function formatMarker(marker: Marker): string {
  let json = `{"stack":${JSON.stringify(marker.stack)},"name":${JSON.stringify(marker.name)},"hash":${JSON.stringify(marker.hash)}`;
  if (marker.path !== undefined) json += `,"path":${JSON.stringify(marker.path)}`;
  if (marker.children !== undefined) json += `,"children":${JSON.stringify(marker.children)}`;
  if (marker.preventDestroy === true) json += ',"prevent_destroy":true';
  return `${MARKER_PREFIX}${json}}`;
}

export function composeMetadata(user: string | undefined, marker: Marker): string {
  const line = formatMarker(marker);
  const metadata = user === undefined ? line : `${user}\n${line}`;
  if (marker.children === undefined || fitsMetadata(metadata)) return metadata;
  const { children: _evidence, ...required } = marker;
  return composeMetadata(user, required);
}

/**
 * Whether `text` is at most METADATA_MAX_BYTES in UTF-8. A UTF-16 code unit is at most 3 bytes
 * (a pair of them, 4), so a text of at most a third of the limit in length fits without being
 * measured: a plan checks the metadata of every object it compares.
 */
export const fitsMetadata = (text: string): boolean => text.length * 3 <= METADATA_MAX_BYTES || Buffer.byteLength(text, 'utf8') <= METADATA_MAX_BYTES;

/** Splits live metadata into the user's value and the marker (absent when not marked). */
export function parseMarker(metadata: unknown): { user: string | undefined; marker?: Marker } {
  if (typeof metadata !== 'string') return { user: undefined };
  const cut = metadata.lastIndexOf('\n');
  // The last line is looked at in place: a plan parses the marker of every object it reads.
  if (!metadata.startsWith(MARKER_PREFIX, cut + 1)) return { user: metadata };
  try {
    const parsed = JSON.parse(metadata.slice(cut + 1 + MARKER_PREFIX.length)) as Partial<Marker>;
    if (typeof parsed.stack !== 'string' || typeof parsed.name !== 'string') return { user: metadata };
    const marker: Marker = { stack: parsed.stack, name: parsed.name, hash: typeof parsed.hash === 'string' ? parsed.hash : '' };
    if (typeof parsed.children === 'string') marker.children = parsed.children;
    if ((parsed as { prevent_destroy?: unknown }).prevent_destroy === true) marker.preventDestroy = true;
    if (typeof parsed.path === 'string' && parsed.path !== '') marker.path = parsed.path;
    return { user: cut < 0 ? undefined : metadata.slice(0, cut), marker };
  } catch {
    return { user: metadata };
  }
}


/**
 * Bytes left for the user's metadata once the marker of `name` in `stack` is added, with the
 * manifest `path` it records (prune scope). Negative when the marker alone does not fit.
 */
export function metadataRoom(stack: string, name: string, path?: string): number {
  const line = formatMarker({ stack, name, hash: '0'.repeat(16), ...(path !== undefined ? { path } : {}) });
  return METADATA_MAX_BYTES - Buffer.byteLength(line, 'utf8') - 1;
}
