/**
 * The table of error codes in the server's guide (docs/server.md), generated from ERROR_CODES
 * (packages/server/src/errors.ts) so that the documented codes are exactly the ones the server
 * answers with.
 *
 *   npm run docs:errors -w packages/server     (after `tsc -b`; rewrites docs/server.md in place)
 *
 * The table sits between two marker comments; everything else in the page is left as it is.
 * `src/http/error-table.test.ts` fails while the table is stale.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const DOC_PATH = fileURLToPath(new URL('../../../docs/server.md', import.meta.url));
export const REGENERATE_COMMAND = 'npm run docs:errors -w packages/server';
export const START_MARKER = `<!-- error-codes:start (generated from packages/server/src/errors.ts by \`${REGENERATE_COMMAND}\`; do not edit) -->`;
export const END_MARKER = '<!-- error-codes:end -->';

const cell = (text) => String(text).replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');

/** Markdown table of `{ code: { status, doc } }`, in declaration order. */
export function renderErrorTable(codes) {
  const rows = Object.entries(codes).map(([code, { status, doc }]) => `| \`${code}\` | ${status} | ${cell(doc)} |`);
  return ['| error_code | status | meaning |', '| --- | --- | --- |', ...rows].join('\n');
}

/** The table currently between the markers, or undefined when the markers are missing. */
export function extractErrorTable(page) {
  const start = page.indexOf(START_MARKER);
  const end = page.indexOf(END_MARKER);
  if (start < 0 || end < start) return undefined;
  return page.slice(start + START_MARKER.length, end).trim();
}

/** The page's text with the table between the markers replaced. */
export function withErrorTable(page, table) {
  const start = page.indexOf(START_MARKER);
  const end = page.indexOf(END_MARKER);
  if (start < 0 || end < start) {
    throw new Error(`docs/server.md has no ${START_MARKER} ... ${END_MARKER} block to fill`);
  }
  return `${page.slice(0, start + START_MARKER.length)}\n${table}\n${page.slice(end)}`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { ERROR_CODES } = await import('../dist/errors.js');
  const before = readFileSync(DOC_PATH, 'utf8');
  const after = withErrorTable(before, renderErrorTable(ERROR_CODES));
  if (after !== before) writeFileSync(DOC_PATH, after);
  console.log(after !== before ? 'docs/server.md: error table updated' : 'docs/server.md: error table already up to date');
}
