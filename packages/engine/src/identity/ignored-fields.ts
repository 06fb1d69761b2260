/**
 * What an ignore rule does to normal forms (plan/ignore.ts decides which rules an object has):
 *
 * - `overlayIgnored`: the desired normal form with the live values at the ignored paths, the
 *   way Terraform's `ignore_changes` plans an update. Plan then sees no difference there, and
 *   apply, which builds its requests from the same normal form, never writes an ignored field
 *   (a module it must send whole carries the live value of the ignored part).
 * - `withoutIgnored`: a normal form without the ignored paths, for the hashes an ownership
 *   marker records and drift compares (hash.ts): a value that others own never makes the
 *   marker's hash differ.
 *
 * A path's last segment is what is ignored: its value, added, changed or removed. The segments
 * before it must lead to a map (or list) on both sides; a container the manifest adds or removes
 * as a whole is a change of that container, not of the field inside it. `*` visits every element
 * of a list (pairs by position; elements only one side has are not visited) and every key of a
 * map that both sides have; as the last segment it stands for the whole list or map.
 */
import type { Pattern, Spec } from '../kinds/types.js';
import { copyWithSecrets } from '../kinds/write-only.js';
import { isMap } from './patterns.js';

/** Whether a desired value and a live value are the same (references compared by identity). */
export type SameValue = (desired: unknown, live: unknown) => boolean;

/** Marks a key to delete: the live object has no value where the manifest has one. */
const ABSENT = Symbol('absent');

/**
 * The desired normal form with the live values at the ignored paths; `desired` itself when
 * nothing differs there (values `same` calls equal are kept as the manifest has them).
 */
export function overlayIgnored(desired: Spec, live: Spec, patterns: readonly Pattern[], same: SameValue): Spec {
  let normal = desired;
  for (const pattern of patterns) normal = overlayAt(normal, live, pattern, 0, same) as Spec;
  return normal;
}

function overlayAt(d: unknown, l: unknown, pattern: Pattern, at: number, same: SameValue): unknown {
  const leaf = (dv: unknown, lv: unknown): unknown => (same(dv, lv) ? dv : lv === undefined ? ABSENT : lv);
  const head = pattern[at]!;
  const last = at === pattern.length - 1;
  if (head === '*') {
    if (last && ((Array.isArray(d) && Array.isArray(l)) || (isMap(d) && isMap(l)))) return leaf(d, l);
    if (Array.isArray(d) && Array.isArray(l)) {
      let changed = false;
      const out = d.map((item, i) => {
        if (i >= l.length) return item;
        const next = overlayAt(item, l[i], pattern, at + 1, same);
        if (next !== item) changed = true;
        return next;
      });
      return changed ? out : d;
    }
    if (isMap(d) && isMap(l)) {
      let out: Spec | undefined;
      for (const key of Object.keys(d)) {
        if (!(key in l)) continue;
        const next = overlayAt(d[key], l[key], pattern, at + 1, same);
        if (next !== d[key]) (out ??= copyWithSecrets(d))[key] = next;
      }
      return out ?? d;
    }
    return d;
  }
  if (!isMap(d) || !isMap(l)) return d;
  if (last) {
    if (!(head in d) && !(head in l)) return d;
    const next = leaf(d[head], l[head]);
    if (next === d[head]) return d;
    const out = copyWithSecrets(d);
    if (next === ABSENT) delete out[head];
    else out[head] = next;
    return out;
  }
  if (!(head in d) || !(head in l)) return d;
  const next = overlayAt(d[head], l[head], pattern, at + 1, same);
  if (next === d[head]) return d;
  const out = copyWithSecrets(d);
  out[head] = next;
  return out;
}

/** `spec` without the values at the ignored paths (a list or map a final `*` names is emptied). */
export function withoutIgnored(spec: Spec, patterns: readonly Pattern[] | undefined): Spec {
  if (!patterns || patterns.length === 0) return spec;
  let out = spec;
  for (const pattern of patterns) out = dropAt(out, pattern, 0) as Spec;
  return out;
}

function dropAt(value: unknown, pattern: Pattern, at: number): unknown {
  const head = pattern[at]!;
  const last = at === pattern.length - 1;
  if (head === '*') {
    if (Array.isArray(value)) return last ? [] : value.map((item) => dropAt(item, pattern, at + 1));
    if (isMap(value)) return last ? {} : Object.fromEntries(Object.entries(value).map(([k, v]) => [k, dropAt(v, pattern, at + 1)]));
    return value;
  }
  if (!isMap(value) || !(head in value)) return value;
  if (last) {
    const { [head]: _ignored, ...rest } = value;
    return rest;
  }
  return { ...value, [head]: dropAt(value[head], pattern, at + 1) };
}
