/**
 * Loads @oclif/core for bin/run.js from its vendored copy, `dist-bundle/vendor/oclif-core.cjs`
 * (scripts/bundle.mjs: oclif and its dependencies bundled by rolldown into one CommonJS file),
 * when that copy is usable, and from node_modules otherwise.
 *
 * Why: oclif's index requires some 110 files (help, ux, config, errors, parser, and minimatch,
 * ejs, debug, ansis, lilconfig, tinyglobby, ... under them). Each costs Node a resolution (stat
 * and package.json reads up the tree), a read and a compilation of its own; one file of the
 * same code costs about half the CPU (README, performance).
 *
 * One instance: the vendored copy is registered in `require.cache` under the path node_modules'
 * @oclif/core resolves to from the CLI, so every later `require('@oclif/core')` and ES module
 * import of it (src/oclif.ts in the commands, @oclif/plugin-help's `help` command, the
 * completion and not-found plugins) gets this same instance: `instanceof` checks, the exit codes
 * oclif keeps in its cache and its settings hold as with a single package.
 *
 * Used only while node_modules holds the version of @oclif/core it was built from (the bundle's
 * stamp records it): after an upgrade that was not bundled again, or in an installed copy whose
 * dependencies resolved to another version, node_modules' own copy is loaded, as before the
 * vendoring. Never when @oclif/core is already loaded (the instance that exists wins).
 */
import { readFileSync } from 'node:fs';
import { createRequire, Module } from 'node:module';
import { dirname, join } from 'node:path';
import type * as OclifCore from '@oclif/core';
import { BUNDLE_DIR } from './bundle.js';

export const VENDORED_OCLIF = join(BUNDLE_DIR, 'vendor', 'oclif-core.cjs');

/** The package root of the module `resolved` (a file of it), found by its package.json name. */
function packageJsonOf(resolved: string, name: string): { version?: string } | undefined {
  for (let dir = dirname(resolved); dir !== dirname(dir); dir = dirname(dir)) {
    try {
      const json = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (json.name === name) return json;
    } catch {
      // No package.json here: its parent.
    }
  }
  return undefined;
}

/** The versions the bundle's stamp says its vendored packages were built from. */
function vendoredVersions(root: string): Record<string, string | null> {
  try {
    const stamp = JSON.parse(readFileSync(join(root, BUNDLE_DIR, 'stamp.json'), 'utf8')) as { vendor?: Record<string, string | null> };
    return stamp.vendor ?? {};
  } catch {
    return {};
  }
}

/**
 * @oclif/core as the CLI at `root` runs it: the vendored copy while usable (registered as the
 * node_modules copy, see above), else node_modules' copy. Returns the module's exports.
 */
export function loadOclif(root: string): typeof OclifCore {
  const require = createRequire(join(root, 'package.json'));
  const index = require.resolve('@oclif/core');
  const loaded = require.cache[index];
  if (loaded?.loaded) return loaded.exports as typeof OclifCore;
  const recorded = vendoredVersions(root)['@oclif/core'];
  if (!recorded || packageJsonOf(index, '@oclif/core')?.version !== recorded) return require(index) as typeof OclifCore;
  const vendored = join(root, VENDORED_OCLIF);
  let oclif: typeof OclifCore;
  try {
    oclif = require(vendored) as typeof OclifCore;
  } catch (error) {
    // No vendored copy (rolldown absent at build time): node_modules' copy.
    if ((error as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND' && !require.cache[vendored]) return require(index) as typeof OclifCore;
    throw error;
  }
  // A module record at node_modules' path whose exports are the vendored copy's: require.cache
  // is Node's documented way to add an entry, and `Module` its documented constructor.
  const entry = new Module(index);
  entry.filename = index;
  entry.exports = oclif;
  entry.loaded = true;
  require.cache[index] = entry;
  return oclif;
}
