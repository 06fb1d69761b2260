/**
 * Manifest directories for in-process tests: each test writes its manifests into a fresh
 * temporary directory (one file, `main.yaml`), and every directory made is removed by
 * `cleanup`, which the test file registers with its runner (`afterEach(dirs.cleanup)`), so that
 * this module does not depend on one.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ManifestDirs {
  /** A fresh directory whose `main.yaml` holds `text`. */
  manifests(text: string): string;
  /** Replaces the `main.yaml` of a directory. */
  rewrite(dir: string, text: string): void;
  /** Removes every directory made so far. */
  cleanup(): void;
}

/** Directories named `<prefix>XXXXXX` under the system's temporary directory. */
export function manifestDirs(prefix: string): ManifestDirs {
  const made: string[] = [];
  const rewrite = (dir: string, text: string) => writeFileSync(join(dir, 'main.yaml'), text);
  return {
    manifests(text) {
      const dir = mkdtempSync(join(tmpdir(), prefix));
      made.push(dir);
      rewrite(dir, text);
      return dir;
    },
    rewrite,
    cleanup() {
      for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
    },
  };
}
