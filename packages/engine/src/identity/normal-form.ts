/**
 * The comparable form of an object, shared by plan, apply, drift and export.
 *
 * Descriptors give each kind's normal form (server defaults, lowercased header names, canonical
 * CIDRs, server-derived fields dropped: kinds/types.ts). Here, generically for every kind:
 * reference tokens are canonicalized (a live id that belongs to a known object becomes that
 * object's address, on both sides), set-valued lists are sorted, fields the server chooses
 * are ignored when the manifest leaves them out, and create-only fields are never compared.
 */
import type { KindDescriptor, Spec } from '../kinds/types.js';
import type { LiveObject } from '../live.js';
import { sortedKeys } from '../kinds/shared.js';
import { collect, isMap, rewrite, without } from './patterns.js';

const sortedList = (list: unknown) => (Array.isArray(list) ? list.map(String).sort() : list);
const sortedMap = (map: unknown) => (isMap(map) ? sortedKeys(map) : map);

/** A live object's normal form, with the ownership marker stripped from its metadata. */
export function liveNormal(o: LiveObject): Spec {
  const raw = o.descriptor.metadata ? { ...o.raw, metadata: o.userMetadata } : o.raw;
  return o.descriptor.fromLive(raw, o.collection);
}

/** References and sets in canonical form: `tokens` maps live ids to addresses. */
export function canonical(descriptor: KindDescriptor, normal: Spec, tokens: ReadonlyMap<string, string>): Spec {
  let out: unknown = normal;
  for (const ref of descriptor.refs) {
    out = rewrite(out, ref.pattern, (value) => tokens.get(String(value)) ?? value);
    const holder = ref.pattern.slice(0, -1);
    if (ref.set) out = rewrite(out, holder, sortedList);
    if (ref.pattern.at(-1) === '{}') out = rewrite(out, holder, sortedMap);
  }
  for (const set of descriptor.sets ?? []) out = rewrite(out, set, sortedList);
  return out as Spec;
}

/**
 * `live` as it is compared with `desired`: without the server-chosen fields that `desired`
 * leaves out, and with `desired`'s value of each create-only field (never a difference).
 */
export function comparableLive(descriptor: KindDescriptor, desired: Spec, live: Spec): Spec {
  let out = live;
  for (const pattern of descriptor.serverChosen ?? []) {
    const parents = collect(desired, pattern.slice(0, -1));
    const leaf = pattern.at(-1)!;
    if (parents.length > 0 && parents.every(({ value }) => isMap(value) && !(leaf in value))) out = without(out, pattern);
  }
  for (const field of descriptor.createOnly ?? []) {
    if (!(field in out) && !(field in desired)) continue;
    const { [field]: _live, ...rest } = out;
    out = field in desired ? { ...rest, [field]: desired[field] } : rest;
  }
  return out;
}
