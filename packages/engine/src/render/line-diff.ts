/**
 * Readable long values: a changed multi-line or long string (a PEM bundle, a traffic policy or
 * a SAML metadata document) is shown as a unified line diff rather than one long old string
 * and one long new string. JSON documents are pretty-printed first, so a one-line JSON policy
 * diffs by key. Secrets never reach this module as values: a sensitive field is masked before
 * the plan exists, and `longValueDiff` refuses a sensitive field outright.
 *
 * Every line is passed through `sanitize`, so a value with terminal escapes or bidirectional
 * overrides cannot paint a reviewer's terminal or forge a plan line.
 */
import { structuredPatch } from 'diff';
import { SENSITIVE, SENSITIVE_CHANGED } from '../identity/mask.js';
import { isEnvMask } from '../identity/env-fields.js';
import { sanitize } from './sanitize.js';

/** A string at least this long (or with a line break) is diffed by lines. */
const LONG_VALUE_LENGTH = 80;
/** Lines of unchanged context around each change. */
const CONTEXT = 3;

export type DiffLineKind = 'hunk' | 'context' | 'remove' | 'add' | 'note';

export interface DiffLine {
  kind: DiffLineKind;
  /** The line's text without its `+`/`-`/` ` marker; already safe to print. */
  text: string;
}

/** A field's change as the renderers see it (a plan's `FieldChange`, a drift's live/desired). */
export interface LongValueChange {
  before: unknown;
  after: unknown;
  sensitive: boolean;
}

/**
 * The text a value is diffed as: a JSON object or array inside a string pretty-printed with
 * two spaces, any other string as it is; undefined for values that are not strings.
 */
export function diffableText(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(trimmed);
      if (parsed !== null && typeof parsed === 'object') return JSON.stringify(parsed, null, 2);
    } catch {
      // Not JSON after all: diffed as the text it is.
    }
  }
  return value;
}

const isMask = (value: unknown) => value === SENSITIVE || value === SENSITIVE_CHANGED || isEnvMask(value);
const isLong = (value: unknown) => typeof value === 'string' && (value.includes('\n') || value.length >= LONG_VALUE_LENGTH);

/**
 * Whether a change is shown as a line diff: not sensitive, each side a string or absent
 * (null), and one side multi-line or at least `LONG_VALUE_LENGTH` characters long as written
 * (a short JSON value stays on one line).
 */
export function isLongValueChange(change: LongValueChange): boolean {
  if (change.sensitive || isMask(change.before) || isMask(change.after)) return false;
  const sides = [change.before, change.after];
  if (!sides.every((v) => v === null || v === undefined || typeof v === 'string')) return false;
  return sides.some(isLong);
}

/**
 * The unified line diff of a long value's change (`isLongValueChange` must hold): hunk headers
 * `@@ -1,4 +1,5 @@`, then context, removed and added lines. When the texts differ only in
 * line endings, one note says so instead.
 */
export function longValueDiff(change: LongValueChange): DiffLine[] {
  if (!isLongValueChange(change)) throw new Error('longValueDiff: not a long, non-sensitive string change');
  const before = withFinalNewline(diffableText(change.before) ?? '');
  const after = withFinalNewline(diffableText(change.after) ?? '');
  const patch = structuredPatch('before', 'after', before, after, undefined, undefined, { context: CONTEXT, stripTrailingCr: true });
  const lines: DiffLine[] = [];
  for (const hunk of patch.hunks) {
    lines.push({ kind: 'hunk', text: `@@ -${range(hunk.oldStart, hunk.oldLines)} +${range(hunk.newStart, hunk.newLines)} @@` });
    for (const line of hunk.lines) {
      const marker = line[0];
      if (marker === '\\') continue; // "\ No newline at end of file": both sides end in one
      const kind = marker === '+' ? 'add' : marker === '-' ? 'remove' : 'context';
      lines.push({ kind, text: sanitize(line.slice(1)) });
    }
  }
  if (lines.length === 0) lines.push({ kind: 'note', text: 'only line endings or a final line break differ' });
  return lines;
}

/** `3,4` or `3` for one line, as in unified diffs. */
const range = (start: number, count: number) => (count === 1 ? `${start}` : `${start},${count}`);
const withFinalNewline = (text: string) => (text === '' || text.endsWith('\n') ? text : `${text}\n`);

/** How many lines a diff adds and removes: `+3 -2`. */
export function diffStat(lines: readonly DiffLine[]): string {
  const added = lines.filter((l) => l.kind === 'add').length;
  const removed = lines.filter((l) => l.kind === 'remove').length;
  return `+${added} -${removed} lines`;
}

/** The marker a unified diff puts before a line of this kind. */
export function diffMarker(kind: DiffLineKind): string {
  return kind === 'add' ? '+' : kind === 'remove' ? '-' : kind === 'context' ? ' ' : '';
}
