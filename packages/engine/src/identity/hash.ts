/**
 * The hashes an ownership marker records and drift compares (marker.ts):
 *
 * - `desiredHash`: of a desired object's normal form, references canonicalized and secrets
 *   masked, as apply records it on the object it writes;
 * - `liveHash`: the same over the live object, so "live still matches what was applied" is
 *   `liveHash(live) === marker.hash`, and "the manifests changed since" is
 *   `desiredHash(desired) !== marker.hash`;
 * - `childrenHash`: over the natural keys of the children a parent's manifest declared.
 *
 * Fields an ignore rule names (`DesiredObject.ignore`, plan/ignore.ts) and a kind's create-only
 * fields (kinds/types.ts `createOnly`) are left out of both sides: what others own, or what no
 * update can change, never makes a marker's hash differ. Without them the text is as it always
 * was.
 *
 * Every hash is the first 16 hex digits of sha256 over canonical JSON: the text must never
 * change, or every marker reads as changed.
 */
import { createHash } from 'node:crypto';
import type { DesiredObject } from '../desired.js';
import type { KindDescriptor, Spec } from '../kinds/types.js';
import type { LiveObject } from '../live.js';
import { canonicalJson } from './canonical-json.js';
import { mask } from './mask.js';
import { canonical, comparableLive, liveNormal } from './normal-form.js';
import { withoutIgnored } from './ignored-fields.js';
import { envFields, maskEnv } from './env-fields.js';

/** Hash of a masked normal form (or any JSON value). */
export const specHash = (maskedNormal: unknown): string => createHash('sha256').update(canonicalJson(maskedNormal)).digest('hex').slice(0, 16);

/**
 * The hash the marker records for a desired object. Without `tokens` it depends on the
 * manifests alone (references stay as written: an address or an id); apply and drift must pass
 * the same `tokens` (or none).
 */
export function desiredHash(d: DesiredObject, tokens: ReadonlyMap<string, string> = new Map()): string {
  const normal = canonical(d.descriptor, d.normal, tokens);
  // The values of secret variables are masked too: the marker is readable by anyone with a key.
  const masked = maskEnv(envFields(d, normal), null, normal)[1]!;
  return specHash(mask(d.descriptor.sensitive, null, withoutIgnored(withoutCreateOnly(d.descriptor, masked), d.ignore))[1]);
}

/** The hash of a live object's normal form, comparable with the marker's (fields the server chose and `d` leaves out ignored). */
export function liveHash(o: LiveObject, d: DesiredObject, tokens: ReadonlyMap<string, string>): string {
  const after = canonical(d.descriptor, d.normal, tokens);
  const before = comparableLive(d.descriptor, after, canonical(o.descriptor, liveNormal(o), tokens));
  const masked = maskEnv(envFields(d, after), before, null)[0]!;
  return specHash(mask(o.descriptor.sensitive, withoutIgnored(withoutCreateOnly(d.descriptor, masked), d.ignore), null)[0]);
}

/** `normal` without the kind's create-only fields (the same object when it has none). */
function withoutCreateOnly(descriptor: KindDescriptor, normal: Spec): Spec {
  const fields = descriptor.createOnly;
  if (!fields || !fields.some((f) => f in normal)) return normal;
  return Object.fromEntries(Object.entries(normal).filter(([key]) => !fields.includes(key)));
}

/** Hash over the natural keys of a parent's children, in any order. */
export const childrenHash = (keys: readonly string[]): string => specHash([...keys].sort());

/** sha256 of a live object's content as read: a saved plan refuses what changed since. */
export const fingerprint = (raw: unknown): string => createHash('sha256').update(canonicalJson(raw)).digest('hex');
