/**
 * Walks the values a path pattern selects in a spec and rewrites them. `*` selects every item
 * of a list (or, with `values: true`, every value of a map too), `{}` every key of a map.
 */
import type { Pattern, Spec } from '../kinds/types.js';

export type Visit = (value: unknown, path: (string | number)[]) => unknown;

export function rewrite(value: unknown, pattern: Pattern, visit: Visit, options: { values?: boolean } = {}, path: (string | number)[] = []): unknown {
  return rewriteFrom(value, pattern, 0, visit, options, path);
}

/** `rewrite` from segment `at` of the pattern: no copy of the pattern's rest at each level. */
function rewriteFrom(value: unknown, pattern: Pattern, at: number, visit: Visit, options: { values?: boolean }, path: (string | number)[]): unknown {
  if (at === pattern.length) return visit(value, path);
  const head = pattern[at]!;
  if (head === '*') {
    if (Array.isArray(value)) return value.map((item, i) => rewriteFrom(item, pattern, at + 1, visit, options, [...path, i]));
    if (options.values && isMap(value)) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rewriteFrom(v, pattern, at + 1, visit, options, [...path, k])]));
    }
    return value;
  }
  if (head === '{}') {
    if (!isMap(value)) return value;
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [String(visit(k, [...path, k])), v]));
  }
  if (!isMap(value) || !(head in value)) return value;
  return { ...value, [head]: rewriteFrom(value[head], pattern, at + 1, visit, options, [...path, head]) };
}

export const isMap = (value: unknown): value is Spec => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Every value a pattern selects, with its path. */
export function collect(value: unknown, pattern: Pattern, options: { values?: boolean } = {}): { value: unknown; path: (string | number)[] }[] {
  const found: { value: unknown; path: (string | number)[] }[] = [];
  rewrite(value, pattern, (v, path) => {
    found.push({ value: v, path });
    return v;
  }, options);
  return found;
}

/** Deletes the value at a concrete pattern (no wildcards) from a copy of `spec`. */
export function without(spec: Spec, pattern: Pattern): Spec {
  const [head, ...rest] = pattern as [string, ...string[]];
  if (!(head in spec)) return spec;
  if (rest.length === 0) {
    const { [head]: _dropped, ...others } = spec;
    return others;
  }
  const inner = spec[head];
  return isMap(inner) ? { ...spec, [head]: without(inner, rest) } : spec;
}

/**
 * Canonical JSON: keys sorted at every level, so equal content has equal text. The text is
 * what markers hash (marker.ts): it must never change. Built directly for plain data (a plan
 * hashes every object it reads, and `JSON.stringify` with a replacer copies every map); anything
 * else (a `toJSON`, a class instance, an array-index key, which a rebuilt object would move
 * first) takes `canonicalJsonByReplacer`, the definition, for the whole value.
 */
export function canonicalJson(value: unknown): string {
  return plainCanonical(value) ?? canonicalJsonByReplacer(value);
}

/** The definition of `canonicalJson`: `JSON.stringify` with every map rebuilt with sorted keys. */
export function canonicalJsonByReplacer(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    isMap(v) ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, v[k]])) : v,
  );
}

/**
 * `keys.sort()` (UTF-16 code unit order, as the default sort), by insertion: maps of a normal
 * form hold a handful of keys, and the built-in sort allocates a work array per call.
 */
function sortedInPlace(keys: string[]): string[] {
  if (keys.length > 16) return keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i]!;
    let j = i - 1;
    for (; j >= 0 && keys[j]! > key; j--) keys[j + 1] = keys[j]!;
    keys[j + 1] = key;
  }
  return keys;
}

/**
 * `JSON.stringify(key)` of a map key, kept for the next object with that key: the normal forms
 * a plan hashes share a few dozen keys. Bounded, so that a large document of arbitrary keys
 * cannot grow it without limit.
 */
function quotedKey(key: string): string {
  let quoted = QUOTED_KEYS.get(key);
  if (quoted === undefined) {
    quoted = JSON.stringify(key);
    if (QUOTED_KEYS.size < 1024) QUOTED_KEYS.set(key, quoted);
  }
  return quoted;
}
const QUOTED_KEYS = new Map<string, string>();

/** An array index as a property key (`0`, `17`): objects list such keys first, in numeric order. */
const INDEX_KEY = /^(?:0|[1-9][0-9]*)$/;

/**
 * `canonicalJsonByReplacer(value)` for plain data (null, booleans, finite or not numbers,
 * strings, arrays, objects whose prototype is Object's or null, no `toJSON`), or `undefined`
 * when the value holds anything else.
 */
function plainCanonical(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object': {
      if (value === null) return 'null';
      if (Array.isArray(value)) {
        let out = '[';
        for (let i = 0; i < value.length; i++) {
          const item: unknown = value[i];
          // As JSON.stringify: what has no JSON form is null in a list.
          const text = item === undefined || typeof item === 'function' || typeof item === 'symbol' ? 'null' : plainCanonical(item);
          if (text === undefined) return undefined;
          out += i === 0 ? text : `,${text}`;
        }
        return `${out}]`;
      }
      const prototype = Object.getPrototypeOf(value) as unknown;
      if ((prototype !== Object.prototype && prototype !== null) || 'toJSON' in value) return undefined;
      const keys = sortedInPlace(Object.keys(value));
      let out = '{';
      let first = true;
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i]!;
        const head = key.charCodeAt(0);
        // Only a key that starts with a digit can be an index.
        if (head >= 0x30 && head <= 0x39 && INDEX_KEY.test(key)) return undefined;
        const item = (value as Record<string, unknown>)[key];
        // As JSON.stringify: what has no JSON form is left out of a map.
        if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
        const text = plainCanonical(item);
        if (text === undefined) return undefined;
        out += `${first ? '' : ','}${quotedKey(key)}:${text}`;
        first = false;
      }
      return `${out}}`;
    }
    default:
      return undefined;
  }
}
