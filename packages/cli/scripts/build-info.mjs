#!/usr/bin/env node
/**
 * `build-info.json`: the git commit a packed CLI was built from, which `gatehouse version`
 * reports (src/version.ts). An installed copy has no git checkout to ask, so the commit is
 * recorded when the package is packed, into a file the package ships:
 *
 *   node scripts/build-info.mjs            writes it (this package's `prepack`)
 *   node scripts/build-info.mjs --remove   removes it (`postpack`: a checkout asks git instead)
 *
 * When the commit cannot be known (packed outside a git checkout, or without git), the file
 * says why, and `gatehouse version` repeats that reason instead of a bare null.
 * `npm run release` (scripts/release.mjs) writes the same file into its staged copy.
 */
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const BUILD_INFO_FILE = 'build-info.json';

/** `{ commit }` of the checkout holding `dir`, or `{ commit: null, reason }`. */
export function buildInfo(dir) {
  try {
    const commit = execFileSync('git', ['-C', dir, 'rev-parse', '--verify', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
    if (/^[0-9a-f]{40,64}$/.test(commit)) return { commit };
    return { commit: null, reason: `git rev-parse HEAD printed '${commit.slice(0, 80)}', not a commit` };
  } catch (error) {
    if (error.code === 'ENOENT') return { commit: null, reason: 'packed where git is not installed' };
    return { commit: null, reason: 'packed outside a git checkout' };
  }
}

/** Writes `build-info.json` into the package directory `packageDir`, for the sources at `sourceDir`. */
export function writeBuildInfo(packageDir, sourceDir = packageDir) {
  const info = buildInfo(sourceDir);
  writeFileSync(join(packageDir, BUILD_INFO_FILE), `${JSON.stringify(info, null, 2)}\n`);
  return info;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  if (process.argv.includes('--remove')) {
    rmSync(join(root, BUILD_INFO_FILE), { force: true });
  } else {
    const info = writeBuildInfo(root);
    console.log(`build-info: ${info.commit ? `commit ${info.commit}` : `no commit (${info.reason})`}`);
  }
}
