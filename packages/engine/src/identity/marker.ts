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
 * - `secrets` (optional, kinds with write-only secrets: event destinations) is, per write-only
 *   field sent (`target.kinesis.auth.creds.aws_secret_access_key`), a salted scrypt digest of
 *   the value (secret-digest.ts): how a plan sees a rotated secret the API never returns. It
 *   is evidence: left out when it would not fit in 4096 bytes (first, before `children`); the
 *   plan then says which secrets it cannot compare.
 * - `secret_version` (optional) records the manifest's `spec.secret_version` as last applied: a
 *   new one sends the write-only secrets again, whether or not their digests could be kept.
 * - `env` (optional) records where values of secret `${env:}` variables were written, as JSON
 *   Pointer -> the manifest's text (`"/description": "key=${env:API_KEY}"`, never the value):
 *   plans mask those fields on the live side, and export writes the text back
 *   (identity/env-fields.ts). Where the texts do not fit, `${env:NAME}` alone stands for each.
 *
 * Anyone with an API key can write metadata, so a marker is read as untrusted text: one that
 * does not parse as a marker gatehouse could have written counts as no marker at all (the whole
 * metadata is the user's, the object is not owned). `parseMarker` checks the shape (a JSON
 * object; known fields of their types), the stack (printable, not blank), the name (one line of
 * printable text, not `/...` or `../...`) and the path (relative, `/`-separated, no `.` or `..`
 * segment); `markerFitsKind` checks the name against the object's kind (observe.ts).
 */
import { METADATA_MAX_BYTES } from '@gatehouse/schemas/runtime';
import { SECRET_DIGEST } from './secret-digest.js';

export const MARKER_PREFIX = 'gatehouse:v1 ';

/** Characters no stack, name or path gatehouse writes holds: controls, bidi controls, line separators. */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
/** A hash or children hash: a short word (gatehouse writes 16 hex digits; only compared, never printed as a path). */
const HASH = /^[0-9A-Za-z_-]{0,64}$/;
/** A manifest name, as the manifest schema allows it, that is also no path step (`.`, `..`). */
const MANIFEST_NAME = /^[^\s/]{1,200}$/;
const isManifestName = (name: string) => MANIFEST_NAME.test(name) && name !== '.' && name !== '..' && !UNPRINTABLE.test(name);

const isText = (value: unknown, max: number): value is string =>
  typeof value === 'string' && value.trim() !== '' && value.length <= max && !UNPRINTABLE.test(value);

/**
 * A path as `recordedPath` writes it (load/manifest-paths.ts): relative, `/`-separated, each step
 * a file name, none `.` or `..` (with `\\` read as a separator too). A file name may hold any
 * other character: control characters are escaped wherever a path is printed.
 */
function isRecordedPath(path: unknown): path is string {
  if (typeof path !== 'string' || path.length > 4096 || path.includes('\u0000') || /^[A-Za-z]:/.test(path)) return false;
  return path.split('/').every((step) => step !== '') && path.split(/[\\/]/).every((step) => step !== '.' && step !== '..');
}

/** `secrets` as gatehouse writes it: dotted field paths to digests. */
function isDigestMap(value: unknown): value is Record<string, string> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  return Object.entries(value).every(([path, digest]) => /^[A-Za-z0-9_.]{1,200}$/.test(path) && typeof digest === 'string' && SECRET_DIGEST.test(digest));
}

/** `env` as gatehouse writes it: JSON Pointers to manifest texts that hold a `${env:NAME}`. */
function isEnvRecord(value: unknown): value is Record<string, string> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  return Object.entries(value).every(
    ([pointer, text]) =>
      pointer.startsWith('/') && isText(pointer, 1000) && typeof text === 'string' && text.length <= 8192 && /\$\{env:[A-Za-z_][A-Za-z0-9_]*\}/.test(text),
  );
}

/** Whether `name` is a marker name gatehouse writes for an object of this kind: `name`, or `parent/key` for a child. */
export function markerFitsKind(name: string, child: boolean): boolean {
  if (!child) return isManifestName(name);
  const cut = name.indexOf('/');
  return cut > 0 && isManifestName(name.slice(0, cut)) && name.length > cut + 1;
}

export interface Marker {
  stack: string;
  name: string;
  hash: string;
  children?: string;
  /** `lifecycle.prevent_destroy` as last applied; absent means false. */
  preventDestroy?: boolean;
  /** Manifest path the object was applied from, relative to the repository root (prune scope). */
  path?: string;
  /** `spec.secret_version` as last applied. */
  secretVersion?: number;
  /** Dotted path of each write-only secret sent -> the digest of its value (secret-digest.ts). */
  secrets?: Record<string, string>;
  /** JSON Pointer of each field that holds a secret variable's value -> the manifest's text. */
  env?: Record<string, string>;
}

/**
 * The marker line: the JSON of `{stack, name, hash, path?, children?, prevent_destroy?,
 * secret_version?, secrets?}` in that order, written field by field (a plan formats one per
 * object it compares).
 */
export function formatMarker(marker: Marker): string {
  let json = `{"stack":${JSON.stringify(marker.stack)},"name":${JSON.stringify(marker.name)},"hash":${JSON.stringify(marker.hash)}`;
  if (marker.path !== undefined) json += `,"path":${JSON.stringify(marker.path)}`;
  if (marker.children !== undefined) json += `,"children":${JSON.stringify(marker.children)}`;
  if (marker.preventDestroy === true) json += ',"prevent_destroy":true';
  if (marker.secretVersion !== undefined) json += `,"secret_version":${marker.secretVersion}`;
  if (marker.env !== undefined) json += `,"env":${JSON.stringify(marker.env)}`;
  if (marker.secrets !== undefined) json += `,"secrets":${JSON.stringify(marker.secrets)}`;
  return `${MARKER_PREFIX}${json}}`;
}

/** The metadata: the user's, then the marker; the evidence that does not fit is left out (secrets first, then children). */
export function composeMetadata(user: string | undefined, marker: Marker): string {
  const line = formatMarker(marker);
  const metadata = user === undefined ? line : `${user}\n${line}`;
  if (fitsMetadata(metadata)) return metadata;
  if (marker.secrets !== undefined) {
    const { secrets: _digests, ...rest } = marker;
    return composeMetadata(user, rest);
  }
  if (marker.children !== undefined) {
    const { children: _evidence, ...required } = marker;
    return composeMetadata(user, required);
  }
  // The env record is not evidence: it stays, each text shortened to its placeholders.
  const env = marker.env;
  const shorter = env && Object.fromEntries(Object.entries(env).map(([pointer, text]) => [pointer, placeholdersOf(text)]));
  if (env && shorter && Object.entries(shorter).some(([pointer, text]) => text !== env[pointer])) return composeMetadata(user, { ...marker, env: shorter });
  return metadata;
}

/** `${env:A}${env:B}`: the placeholders of a manifest's text, without its other text. */
const placeholdersOf = (text: string) => [...text.matchAll(/\$\{env:[A-Za-z_][A-Za-z0-9_]*\}/g)].map((m) => m[0]).join('');

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
  let parsed: unknown;
  try {
    parsed = JSON.parse(metadata.slice(cut + 1 + MARKER_PREFIX.length));
  } catch {
    return { user: metadata };
  }
  const marker = markerOf(parsed);
  return marker ? { user: cut < 0 ? undefined : metadata.slice(0, cut), marker } : { user: metadata };
}

/** The marker a parsed JSON value is, or undefined when it is not one gatehouse could have written. */
function markerOf(parsed: unknown): Marker | undefined {
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
  const fields = parsed as Record<string, unknown>;
  const { stack, name, hash = '', path, children, prevent_destroy: preventDestroy, secret_version: secretVersion, secrets, env } = fields;
  // Every name starts with a manifest name (the object's or its parent's): never `/...` or `../...`.
  if (!isText(stack, 1000) || !isText(name, 2000) || !isManifestName(name.split('/', 1)[0]!)) return undefined;
  if (typeof hash !== 'string' || !HASH.test(hash)) return undefined;
  if (children !== undefined && (typeof children !== 'string' || !HASH.test(children))) return undefined;
  if (preventDestroy !== undefined && typeof preventDestroy !== 'boolean') return undefined;
  if (path !== undefined && path !== '' && !isRecordedPath(path)) return undefined;
  if (secretVersion !== undefined && !(Number.isSafeInteger(secretVersion) && (secretVersion as number) >= 0)) return undefined;
  if (secrets !== undefined && !isDigestMap(secrets)) return undefined;
  if (env !== undefined && !isEnvRecord(env)) return undefined;
  const marker: Marker = { stack, name, hash };
  if (children !== undefined) marker.children = children;
  if (preventDestroy === true) marker.preventDestroy = true;
  if (typeof path === 'string' && path !== '') marker.path = path;
  if (secretVersion !== undefined) marker.secretVersion = secretVersion as number;
  if (secrets !== undefined) marker.secrets = secrets;
  if (env !== undefined) marker.env = env;
  return marker;
}

/**
 * Bytes left for the user's metadata once the marker of `name` in `stack` is added, with the
 * manifest `path` it records (prune scope) and its `secret_version`. Negative when the marker
 * alone does not fit.
 */
export function metadataRoom(stack: string, name: string, path?: string, secretVersion?: number, env?: Record<string, string>): number {
  const shortest = env && Object.fromEntries(Object.entries(env).map(([pointer, text]) => [pointer, placeholdersOf(text)]));
  const line = formatMarker({
    stack,
    name,
    hash: '0'.repeat(16),
    ...(path !== undefined ? { path } : {}),
    ...(secretVersion !== undefined ? { secretVersion } : {}),
    ...(shortest ? { env: shortest } : {}),
  });
  return METADATA_MAX_BYTES - Buffer.byteLength(line, 'utf8') - 1;
}
