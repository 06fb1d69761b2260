import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { makeDirectory } from './directories.js';

const dir = mkdtempSync(join(tmpdir(), 'gatehouse-directories-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const codeOf = (fn: () => void): string | undefined => {
  try {
    fn();
  } catch (error) {
    return (error as NodeJS.ErrnoException).code;
  }
  return undefined;
};

describe('makeDirectory', () => {
  it('makes the directory and every missing parent', () => {
    const deep = join(dir, 'a', 'b', 'c');
    makeDirectory(deep);
    expect(statSync(deep).isDirectory()).toBe(true);
  });

  it('is done when the directory, or a link to one, is there already', () => {
    makeDirectory(join(dir, 'a'));
    symlinkSync(join(dir, 'a'), join(dir, 'link'));
    makeDirectory(join(dir, 'link'));
    makeDirectory(join(dir, 'link', 'under-link'));
    expect(statSync(join(dir, 'a', 'under-link')).isDirectory()).toBe(true);
  });

  it('refuses a file in the way, at the path or above it', () => {
    writeFileSync(join(dir, 'file'), '');
    expect(codeOf(() => makeDirectory(join(dir, 'file')))).toBe('EEXIST');
    expect(codeOf(() => makeDirectory(join(dir, 'file', 'x', 'y')))).toBe('ENOTDIR');
  });

  it('refuses a link to nothing in the way, as `mkdir -p` does (EEXIST), making nothing', () => {
    symlinkSync(join(dir, 'gone'), join(dir, 'dangling'));
    expect(codeOf(() => makeDirectory(join(dir, 'dangling', 'x')))).toBe('EEXIST');
    expect(existsSync(join(dir, 'gone'))).toBe(false);
  });

  // Node's own recursive mkdir never returns here. Run on the BUILT module in a process of its
  // own (`npm test` builds first), so that a regression fails this test instead of freezing
  // the test run in a synchronous loop.
  it.skipIf(!existsSync('/proc/self'))('fails at once with ENOENT under procfs, where a parent exists but refuses children', () => {
    const built = fileURLToPath(new URL('../dist/directories.js', import.meta.url));
    const script = `
      const { makeDirectory } = await import(${JSON.stringify(built)});
      try { makeDirectory('/proc/gatehouse-no-such/dir'); console.log('made'); } catch (error) { console.log(error.code); }`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000 });
    expect(run.signal, 'killed after 20 s: the walk does not end').toBeNull();
    expect(run.stdout.trim(), run.stderr).toBe('ENOENT');
  });
});
