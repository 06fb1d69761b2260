/**
 * Step 6a, diff: both sides in one comparable form, then what differs.
 *
 * Normal forms come from the descriptors (server defaults, lowercased header names, canonical
 * CIDRs, server-derived fields dropped). Here, generically: reference tokens are
 * canonicalized (a live id that belongs to a matched object becomes that object's address,
 * on both sides), set-valued lists are sorted, and fields the server chooses are ignored
 * when the manifest leaves them out. Secrets are masked before anything leaves this module.
 */
import type { KindDescriptor, Pattern, Spec } from '../kinds/types.js';
import { SENSITIVE, SENSITIVE_CHANGED, type FieldChange, type PatchOperation } from '../plan-model.js';
import { onFirstUse } from '../on-first-use.js';
import { canonicalJson, collect, isMap, rewrite, without } from '../identity/patterns.js';

/** fast-json-patch, loaded when the first change is diffed (a plan of no changes needs none). */
const jsonPatch = onFirstUse<typeof import('fast-json-patch')>('fast-json-patch');

/** References and sets in canonical form: `tokens` maps live ids to addresses. */
export function canonical(descriptor: KindDescriptor, normal: Spec, tokens: Map<string, string>): Spec {
  let out: unknown = normal;
  // Indexed loops: a plan runs this twice per object, mostly in code not yet optimized, where
  // `for...of` allocates an iterator result per step.
  for (let r = 0; r < descriptor.refs.length; r++) {
    const ref = descriptor.refs[r]!;
    // A reference whose first field is absent rewrites nothing (a tunnel-group backend has no
    // `backends`): no visitor or pattern built for it.
    const head = ref.pattern[0];
    if (head !== undefined && head !== '*' && head !== '{}' && isMap(out) && !(head in out)) continue;
    out = rewrite(out, ref.pattern, (v) => tokens.get(String(v)) ?? v);
    if (ref.set) out = rewrite(out, ref.pattern.slice(0, -1), (list) => (Array.isArray(list) ? [...list].map(String).sort() : list));
    if (ref.pattern.at(-1) === '{}') {
      out = rewrite(out, ref.pattern.slice(0, -1), (map) => (isMap(map) ? Object.fromEntries(Object.keys(map).sort().map((k) => [k, map[k]])) : map));
    }
  }
  const sets = descriptor.sets;
  for (let i = 0; sets !== undefined && i < sets.length; i++) {
    out = rewrite(out, sets[i]!, (list) => (Array.isArray(list) ? [...list].map(String).sort() : list));
  }
  return out as Spec;
}

/** Drops from `live` the server-chosen fields that `desired` leaves out. */
export function ignoreServerChosen(descriptor: KindDescriptor, desired: Spec, live: Spec): Spec {
  let out = live;
  if (!descriptor.serverChosen) return out;
  for (const pattern of descriptor.serverChosen) {
    const parent = collect(desired, pattern.slice(0, -1));
    const leaf = pattern.at(-1)!;
    if (parent.length > 0 && parent.every(({ value }) => isMap(value) && !(leaf in value))) out = without(out, pattern);
  }
  return out;
}

/** Top-level fields whose content differs. */
export function changedFields(before: Spec, after: Spec): string[] {
  // The usual answer of a plan (most pairs are unchanged), without collecting the keys.
  if (sameStructure(before, after)) return [];
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...keys].filter((k) => !sameStructure(before[k], after[k]) && canonicalJson(before[k]) !== canonicalJson(after[k])).sort();
}

/**
 * Strict structural equality (primitives by ===, maps by key set in any order, lists item by
 * item): when it holds, the canonical JSON of both is the same text, so a plan without
 * changes never serializes; when it does not, the caller compares canonical JSON.
 */
const isPlain = (value: object) => {
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
};

function sameStructure(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i += 1) if (!sameStructure(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b) || !isPlain(a) || !isPlain(b)) return false;
  // Keys counted with for...in (no array of keys per map: a plan compares every object).
  let count = 0;
  for (const key in a) {
    if (!Object.hasOwn(a, key)) continue;
    count += 1;
    if (!Object.hasOwn(b, key) || !sameStructure((a as Spec)[key], (b as Spec)[key])) return false;
  }
  // Every key of `a` is one of `b`'s: the same keys when `b` has as many.
  for (const key in b) if (Object.hasOwn(b, key) && --count < 0) return false;
  return count === 0;
}

/**
 * Masks secrets: equal secrets show as SENSITIVE on both sides, a changed one as SENSITIVE on
 * the old side and SENSITIVE_CHANGED on the new one. Either side may be absent.
 */
export function mask(sensitive: Pattern[], before: Spec | null, after: Spec | null): [Spec | null, Spec | null] {
  let b: unknown = before;
  let a: unknown = after;
  for (const pattern of sensitive) {
    const old = new Map(before ? collect(before, pattern, { values: true }).map((f) => [f.path.join('.'), f.value]) : []);
    const hide = (v: unknown) => (v === null || v === undefined || v === '' ? v : SENSITIVE);
    if (b) b = rewrite(b, pattern, hide, { values: true });
    if (a) {
      a = rewrite(a, pattern, (v, path) => {
        if (v === null || v === undefined || v === '') return v;
        const key = path.join('.');
        return before && old.has(key) && old.get(key) !== v ? SENSITIVE_CHANGED : SENSITIVE;
      }, { values: true });
    }
  }
  return [b as Spec | null, a as Spec | null];
}

const pointerToDotted = (pointer: string) =>
  pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s, i) => (/^\d+$/.test(s) ? `[${s}]` : i === 0 ? s : `.${s}`))
    .join('');

const valueAt = (root: unknown, pointer: string): unknown => {
  try {
    return jsonPatch().getValueByPointer(root, pointer);
  } catch {
    return undefined;
  }
};

/** RFC 6902 patch and field-level changes between two masked normal forms. */
export function fieldChanges(before: Spec, after: Spec, sensitive: Pattern[]): { patch: PatchOperation[]; fields: FieldChange[] } {
  const ops = jsonPatch().compare(before, after) as (PatchOperation & { op: string })[];
  const patch = ops.filter((op): op is PatchOperation => op.op === 'add' || op.op === 'remove' || op.op === 'replace');
  const fields = patch.map((op) => {
    const path = pointerToDotted(op.path);
    const b = valueAt(before, op.path);
    const a = op.op === 'remove' ? undefined : op.value;
    const secret = [b, a].some((v) => v === SENSITIVE || v === SENSITIVE_CHANGED) || isSensitivePath(op.path, sensitive);
    return { path, before: b ?? null, after: a ?? null, sensitive: secret };
  });
  return { patch, fields };
}

function isSensitivePath(pointer: string, sensitive: Pattern[]): boolean {
  const parts = pointer.slice(1).split('/');
  return sensitive.some((p) => p.length <= parts.length && p.every((seg, i) => seg === '*' || seg === parts[i]));
}
