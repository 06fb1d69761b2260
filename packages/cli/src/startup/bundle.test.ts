import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDirForFile } from '../testing/temp-dir.js';
import { BUNDLE_DIR, bundleIsFresh } from './bundle.js';
import { commandsFrom } from './manifest.js';

const dir = tempDirForFile('gatehouse-bundle-');

describe('bundleIsFresh', () => {
  let root = '';
  let engine = '';
  beforeEach(() => {
    root = join(dir.path, 'cli');
    engine = join(dir.path, 'engine');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  /** A package root with build information for itself and ../engine, and a bundle stamped from them. */
  function built(): void {
    mkdirSync(join(root, BUNDLE_DIR), { recursive: true });
    mkdirSync(engine, { recursive: true });
    writeFileSync(join(root, 'tsconfig.tsbuildinfo'), 'cli build 1');
    writeFileSync(join(engine, 'tsconfig.tsbuildinfo'), 'engine build 1');
    stamp();
  }

  /** Records the build information as scripts/bundle.mjs does. */
  function stamp(): void {
    const id = (path: string) => {
      try {
        const { size, mtimeMs } = statSync(path);
        return `${size}:${mtimeMs}`;
      } catch {
        return null;
      }
    };
    const buildInfo = { 'tsconfig.tsbuildinfo': id(join(root, 'tsconfig.tsbuildinfo')), '../engine/tsconfig.tsbuildinfo': id(join(engine, 'tsconfig.tsbuildinfo')) };
    writeFileSync(join(root, BUNDLE_DIR, 'stamp.json'), JSON.stringify({ buildInfo }));
  }

  it('is fresh while nothing was built since, stale after a build of any package bundled in', () => {
    built();
    expect(bundleIsFresh(root)).toBe(true);
    writeFileSync(join(engine, 'tsconfig.tsbuildinfo'), 'engine build 2, longer');
    expect(bundleIsFresh(root)).toBe(false);
    stamp();
    expect(bundleIsFresh(root)).toBe(true);
    writeFileSync(join(root, 'tsconfig.tsbuildinfo'), 'cli build 2, longer');
    expect(bundleIsFresh(root)).toBe(false);
  });

  it('is stale where it was built when node_modules holds another version of a node package bundled in', () => {
    built();
    const stampPath = join(root, BUNDLE_DIR, 'stamp.json');
    const withPackages = (version: string) => writeFileSync(stampPath, JSON.stringify({ ...JSON.parse(readFileSync(stampPath, 'utf8')), packages: { 'p-queue': version } }));
    mkdirSync(join(root, 'node_modules', 'p-queue'), { recursive: true });
    writeFileSync(join(root, 'node_modules', 'p-queue', 'package.json'), '{"name": "p-queue", "version": "9.0.0"}');
    withPackages('9.0.0');
    expect(bundleIsFresh(root)).toBe(true);
    withPackages('9.1.0');
    expect(bundleIsFresh(root)).toBe(false);
    rmSync(join(root, 'node_modules'), { recursive: true });
    withPackages('9.0.0');
    expect(bundleIsFresh(root)).toBe(false);
    // An installed copy (no build information) trusts what it shipped.
    rmSync(join(root, 'tsconfig.tsbuildinfo'));
    rmSync(join(engine, 'tsconfig.tsbuildinfo'));
    expect(bundleIsFresh(root)).toBe(true);
  });

  it('is stale when some build information is gone, trusted in an installed copy that has none', () => {
    built();
    rmSync(join(engine, 'tsconfig.tsbuildinfo'));
    expect(bundleIsFresh(root)).toBe(false);
    rmSync(join(root, 'tsconfig.tsbuildinfo'));
    expect(bundleIsFresh(root)).toBe(true);
  });

  it('is not used without a bundle or with an unreadable stamp', () => {
    expect(bundleIsFresh(root)).toBe(false);
    built();
    writeFileSync(join(root, BUNDLE_DIR, 'stamp.json'), '{"buildInfo": {}}');
    expect(bundleIsFresh(root)).toBe(false);
    writeFileSync(join(root, BUNDLE_DIR, 'stamp.json'), 'not json');
    expect(bundleIsFresh(root)).toBe(false);
  });
});

describe('commandsFrom', () => {
  it('points every command of dist/commands at the bundle and back, and says which', () => {
    const manifest = { version: '1', commands: { plan: { id: 'plan', relativePath: ['dist', 'commands', 'plan.js'], isESM: true }, other: { id: 'other', relativePath: ['lib', 'x.js'] } } };
    const bundled = commandsFrom(manifest, true);
    expect(bundled).toMatchObject({ version: '1', gatehouseBundle: true, commands: { plan: { id: 'plan', relativePath: [BUNDLE_DIR, 'commands', 'plan.cjs'], isESM: false }, other: { relativePath: ['lib', 'x.js'] } } });
    expect(commandsFrom(bundled, false)).toMatchObject({ gatehouseBundle: false, commands: { plan: { relativePath: ['dist', 'commands', 'plan.js'], isESM: true } } });
    expect(manifest.commands.plan.relativePath[0]).toBe('dist');
  });
});
