/**
 * The error table of the server's guide (docs/server.md) is generated from ERROR_CODES; this
 * test fails while it is stale (the "stale generated file" pattern) and says which command
 * regenerates it.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../errors.js';
// @ts-expect-error -- a plain ESM script without type declarations
import * as table from '../../scripts/error-table.mjs';

const { DOC_PATH, REGENERATE_COMMAND, renderErrorTable, extractErrorTable, withErrorTable } = table as {
  DOC_PATH: string;
  REGENERATE_COMMAND: string;
  renderErrorTable(codes: typeof ERROR_CODES): string;
  extractErrorTable(readme: string): string | undefined;
  withErrorTable(readme: string, table: string): string;
};

describe("docs/server.md's error table", () => {
  it('matches ERROR_CODES', () => {
    const current = extractErrorTable(readFileSync(DOC_PATH, 'utf8'));
    expect(current, 'docs/server.md lost its error-codes markers').toBeDefined();
    const expected = renderErrorTable(ERROR_CODES);
    expect(current === expected, `docs/server.md's error table is stale: run \`${REGENERATE_COMMAND}\` (after tsc -b)`).toBe(true);
  });

  it('lists every code with its status, one row each', () => {
    const rendered = renderErrorTable(ERROR_CODES);
    for (const [code, { status }] of Object.entries(ERROR_CODES)) {
      expect(rendered).toContain(`| \`${code}\` | ${status} |`);
    }
    expect(rendered.split('\n')).toHaveLength(Object.keys(ERROR_CODES).length + 2);
  });

  it('replaces only what is between the markers', () => {
    const page = readFileSync(DOC_PATH, 'utf8');
    const replaced = withErrorTable(page, '| x |');
    expect(extractErrorTable(replaced)).toBe('| x |');
    const [before] = page.split('<!-- error-codes:start');
    expect(replaced.startsWith(before!)).toBe(true);
    expect(replaced.endsWith(page.slice(page.indexOf('<!-- error-codes:end -->')))).toBe(true);
  });

  it('escapes pipes inside a meaning', () => {
    expect(renderErrorTable({ x: { status: 400, doc: 'a | b' } } as never)).toContain('a \\| b');
  });
});
