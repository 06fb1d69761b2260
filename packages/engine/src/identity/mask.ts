/**
 * Secrets never leave the engine: before a normal form is shown, saved or hashed, every field a
 * descriptor marks sensitive is replaced by a marker. A plan is then a proof of what was
 * reviewed, never a payload, and an ownership marker never holds anything derived from a secret.
 */
import type { Pattern, Spec } from '../kinds/types.js';
import { collect, rewrite } from './patterns.js';

/** Shown in place of a secret. */
export const SENSITIVE = '(sensitive)';
/** Shown when a secret's value differs between live and desired. */
export const SENSITIVE_CHANGED = '(sensitive value changed)';

const isEmpty = (value: unknown) => value === null || value === undefined || value === '';

/**
 * Masks secrets: equal secrets show as SENSITIVE on both sides, a changed one as SENSITIVE on
 * the old side and SENSITIVE_CHANGED on the new one. Empty values stay as they are. Either side
 * may be absent.
 */
export function mask(sensitive: readonly Pattern[], before: Spec | null, after: Spec | null): [Spec | null, Spec | null] {
  let b: unknown = before;
  let a: unknown = after;
  for (const pattern of sensitive) {
    const old = new Map(before ? collect(before, pattern, { values: true }).map((f) => [f.path.join('.'), f.value]) : []);
    if (b) b = rewrite(b, pattern, (v) => (isEmpty(v) ? v : SENSITIVE), { values: true });
    if (a) {
      a = rewrite(
        a,
        pattern,
        (v, path) => {
          if (isEmpty(v)) return v;
          const key = path.join('.');
          return before && old.has(key) && old.get(key) !== v ? SENSITIVE_CHANGED : SENSITIVE;
        },
        { values: true },
      );
    }
  }
  return [b as Spec | null, a as Spec | null];
}
