/**
 * Generated parts of hand-written Markdown pages: a region between two marker comments that a
 * script rewrites, leaving the prose around it alone (the flag table of docs/configuration.md,
 * the bench's table of docs/performance.md).
 */

/** `text` with the region between `start` and `end` replaced by `body`; throws when the markers are missing. */
export function replaceRegion(text, start, end, body, page) {
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from < 0 || to < from) throw new Error(`${page} has no region between "${start}" and "${end}"`);
  return `${text.slice(0, from + start.length)}\n${body}\n${text.slice(to)}`;
}

/** Text for one cell of a Markdown table: on one line, `|` escaped. */
export const tableCell = (text) =>
  String(text)
    .replace(/\s*\n\s*/g, ' ')
    .replaceAll('|', '\\|');
