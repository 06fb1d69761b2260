/**
 * `docs/performance.md`'s one table, written by the bench: the text between
 * `<!-- bench:start -->` and `<!-- bench:end -->` is replaced, the rest of the page (its prose)
 * is kept as it is. A page without the markers gets them at its end; no page, a page of its own.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

export const START = '<!-- bench:start -->';
export const END = '<!-- bench:end -->';

/** `text` with the region between the markers replaced by `region` (the markers kept). */
export function replaceRegion(text, region) {
  const start = text.indexOf(START);
  const end = text.indexOf(END);
  const block = `${START}\n${region.trimEnd()}\n${END}`;
  if (start < 0 || end < start) return `${text.trimEnd()}\n\n${block}\n`;
  return `${text.slice(0, start)}${block}${text.slice(end + END.length)}`;
}

/** Writes `region` into the page at `file` (see the module comment). */
export function writeRegion(file, region) {
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '# Performance\n';
  writeFileSync(file, replaceRegion(text, region));
}

const cell = (text) => String(text).replace(/\|/g, '\\|');

/** The rows as a Markdown table. */
export function table(rows) {
  const lines = ['| Figure | Measured | Baseline | Result | Aim | |', '|---|---|---|---|---|---|'];
  for (const r of rows) lines.push(`| ${[r.name, r.measured, r.baseline, r.result, r.aim, r.ok ? 'ok' : 'MISS'].map(cell).join(' | ')} |`);
  return lines.join('\n');
}
