/**
 * The text of an ignore path (`lifecycle.ignore_changes`, gatehouse.yaml `ignore:`) and the
 * pattern it becomes: field names separated by dots, `[*]` or `.*` for every element of a list
 * and every key of a map, `["a.b"]` for a map key that holds a dot or a bracket.
 *
 *     description                      -> ['description']
 *     routes[*].circuit_breaker        -> ['routes', '*', 'circuit_breaker']
 *     labels.*                         -> ['labels', '*']
 *     request_headers.add["x.y"]       -> ['request_headers', 'add', 'x.y']
 *
 * A list position (`rules[0]`) is refused: lists that are sets are sorted before they are
 * compared, so a position in the manifest is not a position in the comparison. So is a key
 * named `*` alone (it would read as "every key").
 */
import type { Pattern } from '../kinds/types.js';

/** The pattern of a path, or why the text is not one (`offset`: where in the text). */
export type ParsedIgnorePath = { pattern: Pattern } | { error: string; offset: number };

const NAME = /^[^.[\]\s"]+/;

export function parseIgnorePath(text: string): ParsedIgnorePath {
  const pattern: string[] = [];
  let at = 0;
  const fail = (error: string) => ({ error, offset: at });
  if (text.trim() === '') return fail('an ignore path is empty; name a field, e.g. description');
  for (let first = true; at < text.length; first = false) {
    if (text[at] === '[') {
      if (first) return fail('a path starts with a field name, not [');
      const close = text.indexOf(']', at);
      if (close < 0) return fail('[ is not closed with ]');
      const inside = text.slice(at + 1, close);
      if (inside === '*') pattern.push('*');
      else if (/^\d+$/.test(inside)) {
        return fail(`[${inside}] names a list position, which is not stable (lists that are sets are sorted before comparing); use [*] for every element`);
      } else if (inside.startsWith('"')) {
        let key: unknown;
        try {
          key = JSON.parse(inside);
        } catch {
          return fail(`[${inside}] is not a quoted key: write ["key"] with JSON string escapes`);
        }
        if (typeof key !== 'string' || key === '') return fail('a quoted key is a non-empty string');
        if (key === '*') return fail('a key named * cannot be named alone; [*] ignores every key of the map');
        pattern.push(key);
      } else return fail(`[${inside}] is neither [*] nor a quoted key ["..."]`);
      at = close + 1;
      continue;
    }
    if (!first) {
      if (text[at] !== '.') return fail(`expected . or [ after "${text.slice(0, at)}"`);
      at += 1;
    }
    if (text[at] === '*') {
      pattern.push('*');
      at += 1;
      continue;
    }
    const name = NAME.exec(text.slice(at))?.[0];
    if (name === undefined)
      return fail(
        at >= text.length
          ? 'a path ends with a dot; name a field after it'
          : `expected a field name at "${text.slice(at)}" (a key with a dot, a bracket or a space is written ["key"])`,
      );
    if (name.includes('*')) return fail(`"${name}": * stands alone for every element or key, not inside a name`);
    pattern.push(name);
    at += name.length;
  }
  return { pattern };
}

/** A pattern as a path is written (`routes[*].circuit_breaker`), for messages. */
export function formatIgnorePath(pattern: Pattern): string {
  return pattern
    .map((segment, i) => (segment === '*' ? '[*]' : /^[^.[\]\s"*]+$/.test(segment) ? `${i === 0 ? '' : '.'}${segment}` : `[${JSON.stringify(segment)}]`))
    .join('');
}
