/**
 * Test support, not built (tsconfig excludes src/testing): one temporary directory per test
 * file, made before its tests and removed after them.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';

/** Registers the hooks; `path` is the directory once the file's tests run. Call at top level. */
export function tempDirForFile(prefix: string): { readonly path: string } {
  let path: string | undefined;
  beforeAll(async () => {
    path = await mkdtemp(join(tmpdir(), prefix));
  });
  afterAll(async () => {
    if (path) await rm(path, { recursive: true, force: true });
  });
  return {
    get path() {
      if (path === undefined) throw new Error('the temporary directory exists only while the tests of this file run');
      return path;
    },
  };
}
