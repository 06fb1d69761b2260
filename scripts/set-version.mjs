#!/usr/bin/env node
/**
 * Versions move together: every published package has the same version, and each depends on
 * the others at exactly that version (so `npm install @gatehouse/cli@X` never mixes releases).
 *
 *   npm run version:set -- 0.2.0     # sets every package, then syncs package-lock.json
 *   npm run version:set -- --check   # exit 1 naming every package or dependency out of step
 *
 * The documents that pin a release move with it too (`PINNED_FILES`): the Action's tag in the
 * recipes and READMEs (`gatehouse/gatehouse@v0.1.0`), the CLI version the GitLab and shell
 * recipes install, the release tarballs docs/install.md names (`gatehouse-cli-0.1.0.tgz`), and the
 * schema URLs' compatible range (`@gatehouse/schemas@0.1/`).
 *
 * `setVersion`, `versionProblems` and `pinVersion` are pure and tested in
 * `test/packaging.test.ts`; this file's main only reads and writes the files.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PUBLISHED_PACKAGES } from './packages.mjs';

/** Files that name the release, relative to the repository root. */
export const PINNED_FILES = [
  'README.md',
  'examples/ci/README.md',
  'examples/ci/github/workflows/gatehouse.yml',
  'examples/ci/github/workflows/gatehouse-drift.yml',
  'examples/ci/gitlab/.gitlab-ci.yml',
  'examples/ci/shell/gatehouse-ci.sh',
  'schemas/json/README.md',
  'docs/install.md',
];

/** `0.1.4` -> `0.1`, `1.2.3` -> `1` (as `compatibleRange` of @gatehouse/schemas). */
const compatibleRange = (version) => {
  const [major, minor] = version.split('.');
  return major === '0' ? `0.${minor}` : major;
};

/** `text` with every pin of a release (see above) set to `version`. */
export function pinVersion(text, version) {
  const v = '\\d+\\.\\d+\\.\\d+(?:-[0-9A-Za-z.-]+)?';
  return text
    .replace(new RegExp(`(gatehouse/gatehouse@v)${v}`, 'g'), (_, before) => `${before}${version}`)
    .replace(new RegExp(`(GATEHOUSE_VERSION: ")${v}(")`, 'g'), (_, before, after) => `${before}${version}${after}`)
    .replace(new RegExp(`(GATEHOUSE_VERSION:-)${v}(\\})`, 'g'), (_, before, after) => `${before}${version}${after}`)
    .replace(new RegExp(`(gatehouse-(?:cli|server)-)${v}(\\.tgz)`, 'g'), (_, before, after) => `${before}${version}${after}`)
    .replace(/(@gatehouse\/schemas@)\d+(?:\.\d+)?(\/json)/g, (_, before, after) => `${before}${compatibleRange(version)}${after}`);
}

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
      next[field] = Object.fromEntries(Object.entries(manifest[field]).map(([name, range]) => [name, names.has(name) ? version : range]));
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
  for (const file of PINNED_FILES) {
    const path = join(root, file);
    writeFileSync(path, pinVersion(readFileSync(path, 'utf8'), argv[0]));
  }
  execFileSync('npm', ['install', '--package-lock-only', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
  console.log(`${updated.length} packages and ${PINNED_FILES.length} documents now at ${argv[0]}.`);
  console.log(`Next: npm run build && npm run generate -w schemas (the schema $id URLs), commit, tag v${argv[0]}.`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main(process.argv.slice(2));
