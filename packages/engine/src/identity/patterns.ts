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
  rewrite(
    value,
    pattern,
    (v, path) => {
      found.push({ value: v, path });
      return v;
    },
    options,
  );
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
