#!/usr/bin/env node
/**
 * Versions move together: every published package has the same version, and each depends on
 * the others at exactly that version (so `npm install @gatehouse/cli@X` never mixes releases).
 *
 *   npm run version:set -- 0.2.0     # sets every package, then syncs package-lock.json
 *   npm run version:set -- --check   # exit 1 naming every package or dependency out of step
 *
 * `setVersion` and `versionProblems` are pure (package.json objects in, out) and tested in
 * `test/packaging.test.ts`; this file's main only reads and writes the files.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PUBLISHED_PACKAGES } from './packages.mjs';

const DEPENDENCY_FIELDS = ['dependencies', 'optionalDependencies', 'peerDependencies', 'devDependencies'];
const SEMVER = /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/;

/** The manifests with `version` and every internal dependency set to `version`. */
export function setVersion(manifests, version) {
  if (!SEMVER.test(version)) throw new Error(`'${version}' is not a version like 1.2.3 or 1.2.3-rc.1`);
  const names = new Set(manifests.map((m) => m.name));
  return manifests.map((manifest) => {
    const next = { ...manifest, version };
    for (const field of DEPENDENCY_FIELDS) {
      if (!manifest[field]) continue;
      next[field] = Object.fromEntries(
        Object.entries(manifest[field]).map(([name, range]) => [name, names.has(name) ? version : range]),
      );
    }
    return next;
  });
}

/** Sentences naming each package whose version, or internal dependency, is out of step. */
export function versionProblems(manifests) {
  const version = manifests[0]?.version;
  const names = new Set(manifests.map((m) => m.name));
  const problems = [];
  for (const manifest of manifests) {
    if (manifest.version !== version) problems.push(`${manifest.name} is at ${manifest.version}, not ${version}`);
    for (const field of DEPENDENCY_FIELDS) {
      for (const [name, range] of Object.entries(manifest[field] ?? {})) {
        if (names.has(name) && range !== version) problems.push(`${manifest.name} ${field} ${name}@${range}, not ${version}`);
      }
    }
  }
  return problems;
}

const root = fileURLToPath(new URL('..', import.meta.url));
const fileOf = (dir) => join(root, dir, 'package.json');

function main(argv) {
  const manifests = PUBLISHED_PACKAGES.map(({ dir }) => JSON.parse(readFileSync(fileOf(dir), 'utf8')));
  if (argv[0] === '--check' || argv.length === 0) {
    const problems = versionProblems(manifests);
    for (const problem of problems) console.error(problem);
    if (problems.length > 0) {
      console.error('run `npm run version:set -- <version>` to move them together');
      process.exit(1);
    }
    console.log(`${manifests.length} packages at ${manifests[0].version}`);
    return;
  }
  let updated;
  try {
    updated = setVersion(manifests, argv[0]);
  } catch (error) {
    console.error(error.message);
    process.exit(1);
  }
  PUBLISHED_PACKAGES.forEach(({ dir }, i) => writeFileSync(fileOf(dir), `${JSON.stringify(updated[i], null, 2)}\n`));
  execFileSync('npm', ['install', '--package-lock-only', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
  console.log(`${updated.length} packages now at ${argv[0]}; commit, then tag v${argv[0]}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main(process.argv.slice(2));
