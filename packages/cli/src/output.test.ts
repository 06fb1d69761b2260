import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { beginningOf, colourEnabled, formatProblem, terminalStyle, writeFileAtomic } from './output.js';
import { tempDirForFile } from './testing/temp-dir.js';

const dir = tempDirForFile('gatehouse-output-');

describe('output helpers', () => {
  it('writes files atomically, replacing the old content and leaving no temporary file', async () => {
    const file = join(dir.path, 'nested', 'plan.json');
    await writeFileAtomic(file, 'one');
    await writeFileAtomic(file, 'two');
    expect(await readFile(file, 'utf8')).toBe('two');
    expect(await readdir(join(dir.path, 'nested'))).toEqual(['plan.json']);
  });

  it('reports an unwritable path as a CliError', async () => {
    await writeFileAtomic(join(dir.path, 'a-file'), 'x');
    await expect(writeFileAtomic(join(dir.path, 'a-file', 'plan.json'), 'x')).rejects.toMatchObject({ code: 'write_failed' });
  });

  it('reads the first two lines of a file about to be replaced, and refuses what is not a regular file', async () => {
    expect(await beginningOf(join(dir.path, 'absent.json'))).toBeUndefined();
    await writeFileAtomic(join(dir.path, 'long.yaml'), `first\nsecond\n${'x'.repeat(100_000)}\n`);
    expect(await beginningOf(join(dir.path, 'long.yaml'))).toBe('first\nsecond');
    await expect(beginningOf(dir.path)).rejects.toMatchObject({ code: 'write_failed', message: expect.stringContaining('not a regular file') });
    if (existsSync('/dev/null'))
      await expect(beginningOf('/dev/null')).rejects.toMatchObject({
        code: 'write_failed',
        message: 'cannot write /dev/null: it is not a regular file; name a file',
      });
  });

  it('formats problems with their place and code', () => {
    expect(formatProblem({ code: 'unknown_field', message: "unknown field 'descripton'", at: { file: 'a.yaml', line: 3, col: 5 } })).toBe(
      "a.yaml:3:5: unknown field 'descripton' [unknown_field]",
    );
    expect(formatProblem({ code: 'no_manifests', message: 'no manifests' })).toBe('no manifests [no_manifests]');
  });

  it('enables colour on a terminal only, honouring NO_COLOR and FORCE_COLOR', () => {
    expect(colourEnabled({}, true)).toBe(true);
    expect(colourEnabled({}, false)).toBe(false);
    expect(colourEnabled({ CI: 'true' }, false)).toBe(false);
    expect(colourEnabled({ NO_COLOR: '1' }, true)).toBe(false);
    expect(colourEnabled({ NO_COLOR: '' }, true)).toBe(true);
    expect(colourEnabled({ FORCE_COLOR: '1' }, false)).toBe(true);
    expect(colourEnabled({ FORCE_COLOR: '0' }, true)).toBe(true);
    expect(colourEnabled({ FORCE_COLOR: '0' }, false)).toBe(false);
    expect(colourEnabled({ NO_COLOR: '1', FORCE_COLOR: '1' }, true)).toBe(false);
  });

  it('paints only when colour is enabled', () => {
    expect(terminalStyle(false).create('x')).toBe('x');
    expect(terminalStyle(true).create('x')).not.toBe('x');
  });
});
