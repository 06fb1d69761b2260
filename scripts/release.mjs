#!/usr/bin/env node
/**
 * `npm run release`: the release as files to download, each installable alone with
 * `npm install ./<file>`, asking the registry for no gatehouse package:
 *
 *   release/gatehouse-cli-<version>.tgz      the CLI with @gatehouse/engine, client and schemas
 *                                            bundled inside it (npm's `bundleDependencies`)
 *   release/gatehouse-server-<version>.tgz   the reference server, optional, with @gatehouse/schemas
 *                                            bundled; `npm install` it beside the CLI for
 *                                            `gatehouse serve` and the embedded default
 *   release/SHA256SUMS                       their checksums (`sha256sum -c SHA256SUMS`)
 *
 *   npm run release                  builds, then writes release/
 *   node scripts/release.mjs --out DIR   writes DIR from the current build
 *
 * How: every workspace is packed as for the registry (`npm pack`, so each holds exactly its
 * `files`); each released package is unpacked into a staging directory with the packed
 * workspace packages it depends on unpacked under its node_modules/, and packed again with
 * those listed in `bundleDependencies` (stagedManifest says what else changes). Third-party
 * dependencies stay ordinary dependencies, installed from the registry as usual. The CLI also
 * gets its build-info.json (the commit `gatehouse version` reports).
 *
 * The registry's packages (`npm publish` of each workspace) are unchanged by this.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import semver from 'semver';
import { writeBuildInfo } from '../packages/cli/scripts/build-info.mjs';
import { PUBLISHED_PACKAGES } from './packages.mjs';
import { versionProblems } from './set-version.mjs';

/** The packages released as tarballs; the others are bundled inside them. */
export const RELEASED = ['@gatehouse/cli', '@gatehouse/server'];

/** The workspace packages `name` depends on (`dependencies`), directly or not, in `manifests`. */
export function workspaceDependencies(name, manifests) {
  const byName = new Map(manifests.map((m) => [m.name, m]));
  const found = new Set();
  const visit = (current) => {
    for (const dependency of Object.keys(byName.get(current)?.dependencies ?? {})) {
      if (byName.has(dependency) && !found.has(dependency)) {
        found.add(dependency);
        visit(dependency);
      }
    }
  };
  visit(name);
  return [...found].sort();
}

/**
 * The package.json of the released package `manifest` with the workspace packages it depends on
 * bundled: they stay in `dependencies` (npm requires it) and are listed in `bundleDependencies`;
 * their own third-party dependencies become the released package's, since npm installs nothing
 * for a bundled package (a range two packages give differently resolves to the narrower one,
 * and ranges that do not nest stop the release); a workspace package among its optional
 * dependencies (the server, for the CLI) is dropped, since npm would ask the registry for it
 * (even as an optional peer dependency): it is a tarball of its own, which the user installs
 * beside, where the CLI's `import('@gatehouse/server')` finds it; scripts and devDependencies go.
 */
export function stagedManifest(manifest, manifests) {
  const workspace = new Set(manifests.map((m) => m.name));
  const bundled = workspaceDependencies(manifest.name, manifests);
  const dependencies = { ...manifest.dependencies };
  const from = Object.fromEntries(Object.keys(dependencies).map((name) => [name, manifest.name]));
  for (const name of bundled) {
    const inner = manifests.find((m) => m.name === name);
    for (const [dependency, range] of Object.entries(inner.dependencies ?? {})) {
      if (workspace.has(dependency)) continue;
      const current = dependencies[dependency];
      if (current === undefined || current === range || semver.subset(range, current)) {
        if (current !== range) from[dependency] = name;
        dependencies[dependency] = range;
      } else if (!semver.subset(current, range)) {
        throw new Error(
          `${from[dependency]} needs ${dependency}@${current} and ${name} needs ${dependency}@${range}: align the two ranges to release them in one tarball`,
        );
      }
    }
  }
  const staged = { ...manifest, dependencies, bundleDependencies: bundled };
  delete staged.scripts;
  delete staged.devDependencies;
  const optional = Object.fromEntries(Object.entries(manifest.optionalDependencies ?? {}).filter(([name]) => !workspace.has(name)));
  if (Object.keys(optional).length > 0) staged.optionalDependencies = optional;
  else delete staged.optionalDependencies;
  return staged;
}

const root = fileURLToPath(new URL('..', import.meta.url));
const run = (command, args, cwd) => execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 * 1024 * 1024 });
/** `npm pack` of `dir` into `destination`; the file name. */
const pack = (args, destination) => JSON.parse(run('npm', ['pack', ...args, '--ignore-scripts', '--json', '--pack-destination', destination], root));
const unpack = (tarball, dir) => {
  mkdirSync(dir, { recursive: true });
  run('tar', ['-xzf', tarball, '-C', dir, '--strip-components=1'], root);
};

function main(argv) {
  const at = argv.indexOf('--out');
  if (at >= 0 && !argv[at + 1]) throw new Error('--out needs a directory');
  const out = resolve(at >= 0 ? argv[at + 1] : join(root, 'release'));
  const packages = PUBLISHED_PACKAGES.map((p) => ({ ...p, manifest: JSON.parse(readFileSync(join(root, p.dir, 'package.json'), 'utf8')) }));
  const manifests = packages.map((p) => p.manifest);
  const problems = versionProblems(manifests);
  if (problems.length > 0) throw new Error(`versions out of step (npm run version:set): ${problems.join('; ')}`);
  for (const p of packages) {
    if (!existsSync(join(root, p.dir, 'dist'))) throw new Error(`${p.dir}/dist is missing: run npm run build first (npm run release does)`);
  }
  if (!existsSync(join(root, 'packages/cli/oclif.manifest.json'))) throw new Error('packages/cli/oclif.manifest.json is missing: run npm run build first');

  const work = mkdtempSync(join(tmpdir(), 'gatehouse-release-'));
  try {
    const packs = join(work, 'packs');
    mkdirSync(packs);
    const packed = new Map(pack(['--workspaces'], packs).map((t) => [t.name, join(packs, t.filename)]));
    mkdirSync(out, { recursive: true });
    const written = [];
    for (const name of RELEASED) {
      const manifest = packages.find((p) => p.name === name).manifest;
      const stage = join(work, 'stage', name.replace('@gatehouse/', ''));
      unpack(packed.get(name), stage);
      const staged = stagedManifest(manifest, manifests);
      for (const bundled of staged.bundleDependencies) unpack(packed.get(bundled), join(stage, 'node_modules', bundled));
      writeFileSync(join(stage, 'package.json'), `${JSON.stringify(staged, null, 2)}\n`);
      if (name === '@gatehouse/cli') writeBuildInfo(stage, root);
      const [tarball] = pack([stage], out);
      written.push({ ...tarball, bundled: staged.bundleDependencies });
    }
    const sums = written.map(
      (t) =>
        `${createHash('sha256')
          .update(readFileSync(join(out, t.filename)))
          .digest('hex')}  ${t.filename}\n`,
    );
    writeFileSync(join(out, 'SHA256SUMS'), sums.join(''));
    for (const t of written) {
      console.log(`${join(out, t.filename)}  ${(t.size / 1024).toFixed(0)} KB, ${t.entryCount} files, bundling ${t.bundled.join(', ')}`);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    main(process.argv.slice(2));
  } catch (error) {
    console.error(`release: ${error.message}`);
    process.exit(1);
  }
}
