/**
 * Canonical JSON: `JSON.stringify`'s text with the keys of every map sorted (UTF-16 code unit
 * order), so that equal content has equal text. What markers hash (marker.ts) and what plan
 * fingerprints compare. As `JSON.stringify`: `toJSON` is honoured, what has no JSON form is left
 * out of a map and is null in a list, and non-finite numbers are null. safe-stable-stringify
 * does the work.
 */
import { configure } from 'safe-stable-stringify';

const stringify = configure({ deterministic: true, circularValue: TypeError });

/** The canonical text of `value`; `''` for a value with no JSON form at all (`undefined`). */
export function canonicalJson(value: unknown): string {
  return stringify(value) ?? '';
}
