/**
 * One line of a live or manifest value made safe to print in a terminal or a Markdown code
 * block: control characters (C0, DEL, C1), bidirectional overrides and line separators are
 * written as `\u001b`, so a value cannot move the cursor, retitle a terminal or forge a line.
 */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

export function safeLine(text: string): string {
  return text.replace(UNSAFE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
