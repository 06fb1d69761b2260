/**
 * Text that is not Unicode. A file's bytes are checked as UTF-8 when it is read (files.ts), but
 * a YAML escape can still write half a character: `"a\ud800b"` is a lone surrogate, which no
 * UTF-8 text can hold. The API would store it as U+FFFD or refuse it, and plans would compare
 * it with what comes back for ever, so every string of a document, keys included, must be
 * well formed: one that is not is a problem at its line.
 */
import { problem, type Problem } from '../problems.js';
import type { SourceLocation } from '../source.js';
import type { Path } from './positions.js';

/** Where a path of the document was written (a `LoadedDocument`'s `locate`). */
type Locate = (path: Path, options?: { key?: boolean }) => SourceLocation;

/** A high surrogate not followed by a low one, or a low one not after a high one. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** `\ud800` for the first lone surrogate of `text`, or undefined when it is well formed. */
function loneSurrogate(text: string): string | undefined {
  const found = LONE_SURROGATE.exec(text);
  return found ? `\\u${found[0].charCodeAt(0).toString(16)}` : undefined;
}

/** The problems of the strings of one document's `value` that are not well-formed Unicode. */
export function unicodeProblems(value: unknown, locate: Locate): Problem[] {
  const problems: Problem[] = [];
  const check = (text: string, path: Path, key: boolean) => {
    const lone = loneSurrogate(text);
    if (lone === undefined) return;
    problems.push(
      problem(
        'invalid_unicode',
        `${key ? 'a key' : 'a value'} holds a lone surrogate (${lone}): half of a character, which is not Unicode text and cannot be sent; write the whole character (\\U0001F600, or the character itself) or remove the escape`,
        locate([...path], key ? { key: true } : undefined),
      ),
    );
  };
  // One path, pushed and popped: a document may hold 100,000 rules.
  const path: (string | number)[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === 'string') check(value, path, false);
    else if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        path.push(i);
        walk(value[i]);
        path.pop();
      }
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        path.push(key);
        check(key, path, true);
        walk(item);
        path.pop();
      }
    }
  };
  walk(value);
  return problems;
}
