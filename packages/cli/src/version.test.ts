import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Config } from '@oclif/core';
import { afterEach, describe, expect, it } from 'vitest';
import { userAgent, versionInfo } from './version.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const COMMIT = 'a'.repeat(40);

describe('userAgent', () => {
  it('answers --version exactly as oclif would, without loading it', async () => {
    const config = await Config.load(ROOT);
    expect(userAgent(ROOT)).toBe(config.userAgent);
  });
});

describe('versionInfo: the commit', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  /** A package directory at `relative` under a fresh temporary directory (no git checkout). */
  function packageDir(relative = 'cli', buildInfo?: string): string {
    const base = mkdtempSync(join(tmpdir(), 'gatehouse-version-'));
    dirs.push(base);
    const dir = join(base, relative);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), '{"name":"@gatehouse/cli","version":"1.2.3"}');
    if (buildInfo !== undefined) writeFileSync(join(dir, 'build-info.json'), buildInfo);
    return dir;
  }

  it('a checkout: git’s HEAD', () => {
    const commit = execFileSync('git', ['-C', ROOT, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
    expect(versionInfo(ROOT)).toMatchObject({ name: '@gatehouse/cli', commit });
    expect(versionInfo(ROOT).commitUnknown).toBeUndefined();
  });

  it('a packed copy: the commit build-info.json recorded, or the reason it recorded', () => {
    const packed = packageDir('app/node_modules/@gatehouse/cli', JSON.stringify({ commit: COMMIT }));
    expect(versionInfo(packed)).toMatchObject({ version: '1.2.3', commit: COMMIT });
    expect(versionInfo(packed).commitUnknown).toBeUndefined();
    const unknown = packageDir('cli', JSON.stringify({ commit: null, reason: 'packed outside a git checkout' }));
    expect(versionInfo(unknown)).toMatchObject({ commit: null, commitUnknown: 'packed outside a git checkout' });
  });

  it('never a bare null: a missing, damaged or empty record says why', () => {
    expect(versionInfo(packageDir('app/node_modules/@gatehouse/cli')).commitUnknown).toMatch(/no build-info\.json .*--ignore-scripts/);
    expect(versionInfo(packageDir('cli')).commitUnknown).toMatch(/not run from a git checkout/);
    expect(versionInfo(packageDir('cli', '{"commit":'))).toMatchObject({ commit: null, commitUnknown: 'build-info.json is not valid JSON' });
    expect(versionInfo(packageDir('cli', '{"commit":"HEAD"}'))).toMatchObject({ commit: null, commitUnknown: 'build-info.json records no commit' });
  });
});
