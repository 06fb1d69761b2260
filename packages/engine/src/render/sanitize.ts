/**
 * Output sanitizing: the one place that decides which characters of a live or manifest value
 * may reach a terminal, a log or a pull-request comment as they are.
 *
 * Anyone with an API key can set a description to `evil\u001b]0;pwned\u0007\u001b[2J\r\n  + IPPolicy
 * fake`; printed raw, it retitles and clears a reviewer's terminal or forges a plan line. So
 * every value that comes from the API or from manifests is passed through `sanitize` before it
 * is printed in text, Markdown or an error message. Escaped, as `\u001b` (six characters,
 * lowercase hex, the way JSON writes them):
 * - C0 controls U+0000–U+001F (newline only where the caller keeps it, see `keepNewlines`;
 *   tab is escaped too: it can hide text in aligned output),
 * - DEL U+007F and the C1 controls U+0080–U+009F (U+009B is a one-byte CSI on some terminals),
 * - the bidirectional overrides and isolates (U+202A–U+202E, U+2066–U+2069) and the marks
 *   U+200E, U+200F, U+061C ("Trojan Source": text that reads differently from what it is),
 * - the line and paragraph separators U+2028, U+2029 (a line break to editors and some logs).
 * Everything else, including other non-ASCII text, passes unchanged: names in any script stay
 * readable. JSON output is written through `terminalSafeJson`: JSON escapes C0 itself, but not
 * DEL, C1 or the bidi and separator characters, and a JSON plan is read on terminals too (`cat
 * plan.json`, `plan --format json` run by hand). `sanitize` of a JSON string literal is still a
 * valid literal of the same value. Export writes YAML under the same policy: a string holding
 * such a character is written double-quoted with the same escapes (`yamlDoubleQuoted`).
 */

/** Characters `sanitize` escapes, newline included. */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
/** The same without newline, for text whose line structure is the caller's own. */
const UNSAFE_BUT_NEWLINE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** What `sanitize` escapes and `JSON.stringify` does not (it escapes C0 itself). */
const UNSAFE_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const escapeChar = (char: string): string => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;

export interface SanitizeOptions {
  /**
   * Keep `\n` as it is (a multi-line message whose lines the caller wrote). A carriage return
   * is still escaped: `\r` would let the next line overwrite this one on a terminal.
   */
  keepNewlines?: boolean;
}

/** `text` with every unsafe character written as `\uXXXX` (see the module comment). */
export function sanitize(text: string, options: SanitizeOptions = {}): string {
  const pattern = options.keepNewlines ? UNSAFE_BUT_NEWLINE : UNSAFE;
  pattern.lastIndex = 0;
  return pattern.test(text) ? text.replace(pattern, escapeChar) : text;
}

/** Whether `text` holds a character `sanitize` would escape (newline counts). */
export function hasUnsafeCharacters(text: string): boolean {
  UNSAFE.lastIndex = 0;
  return UNSAFE.test(text);
}

/** Whether `text` holds a character `sanitize` would escape other than a line break. */
export function hasUnsafeCharactersBesidesNewline(text: string): boolean {
  UNSAFE_BUT_NEWLINE.lastIndex = 0;
  return UNSAFE_BUT_NEWLINE.test(text);
}

/**
 * `text` as a YAML double-quoted scalar, every character `sanitize` escapes written as a
 * `\uXXXX` escape (and C0 as JSON writes it: a JSON string is a YAML double-quoted scalar):
 * a file export writes reads back as the same value and shows nothing hidden on a screen.
 */
export function yamlDoubleQuoted(text: string): string {
  return terminalSafeJson(text, 0);
}

/**
 * `JSON.stringify(value, null, indent)` with every character `sanitize` escapes written as a
 * `\uXXXX` escape: the same JSON value (outside strings JSON text is ASCII, so only string
 * contents change, and only in how they are spelled), safe to print on a terminal.
 */
export function terminalSafeJson(value: unknown, indent = 2): string {
  const text = JSON.stringify(value, null, indent);
  UNSAFE_IN_JSON.lastIndex = 0;
  return UNSAFE_IN_JSON.test(text) ? text.replace(UNSAFE_IN_JSON, escapeChar) : text;
}
