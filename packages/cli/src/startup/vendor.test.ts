import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Config } from '@oclif/core';
import { beforeEach, describe, expect, it } from 'vitest';
import { tempDirForFile } from '../testing/temp-dir.js';
import { BUNDLE_DIR } from './bundle.js';

const REPO = fileURLToPath(new URL('../../../..', import.meta.url));
const VENDOR_JS = pathToFileURL(fileURLToPath(new URL('../../dist/startup/vendor.js', import.meta.url))).href;
const version = (name: string) => (JSON.parse(readFileSync(createRequire(join(REPO, 'package.json')).resolve(`${name}/package.json`), 'utf8')) as { version: string }).version;
const OCLIF_VERSION = version('@oclif/core');
const UNDICI_VERSION = version('undici');
const AGENT = 'undici/lib/dispatcher/agent.js';
const dir = tempDirForFile('gatehouse-vendor-');

/**
 * Runs `script` in a fresh Node process (registerVendored changes require.cache, which must not
 * leak into the test worker) with `registerVendored`, `root` and `require` (from `root`) in
 * scope; returns what it printed, parsed.
 */
function inChild(root: string, script: string): unknown {
  const source = `const { registerVendored } = await import(${JSON.stringify(VENDOR_JS)});
    const { createRequire } = await import('node:module');
    const root = ${JSON.stringify(root)};
    const require = createRequire(root + '/package.json');
    ${script}`;
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', source], { encoding: 'utf8' }));
}

describe('registerVendored', () => {
  let root = '';
  beforeEach(() => {
    root = join(dir.path, `cli-${Math.random().toString(36).slice(2)}`);
    mkdirSync(join(root, BUNDLE_DIR, 'vendor'), { recursive: true });
    writeFileSync(join(root, 'package.json'), '{"name": "cli", "type": "module"}');
    // node_modules of the repository: the real @oclif/core, undici and oclif's plugins.
    symlinkSync(join(REPO, 'node_modules'), join(root, 'node_modules'));
    // Stand-ins for the vendored files, recognisable by their exports; each counts its loads.
    writeFileSync(
      join(root, BUNDLE_DIR, 'vendor', 'oclif-core.cjs'),
      `globalThis.oclifLoads = (globalThis.oclifLoads ?? 0) + 1;\nmodule.exports = { '@oclif/core': { vendored: true } };\n`,
    );
    writeFileSync(
      join(root, BUNDLE_DIR, 'vendor', 'undici.cjs'),
      `globalThis.undiciLoads = (globalThis.undiciLoads ?? 0) + 1;\nmodule.exports = { '${AGENT}': { vendored: 'agent' } };\n`,
    );
  });
  const stamp = (oclif: string | null, undici: string | null = UNDICI_VERSION) =>
    writeFileSync(
      join(root, BUNDLE_DIR, 'stamp.json'),
      JSON.stringify({
        buildInfo: {},
        vendor: {
          'vendor/oclif-core.cjs': { versions: { '@oclif/core': oclif }, modules: ['@oclif/core'] },
          'vendor/undici.cjs': { versions: { undici }, modules: [AGENT] },
        },
      }),
    );

  it('makes the vendored copy the one instance for require and import, from anywhere, loaded on first use', () => {
    stamp(OCLIF_VERSION);
    const result = inChild(
      root,
      `const registered = registerVendored(root);
      const loadsBefore = [globalThis.oclifLoads ?? 0, globalThis.undiciLoads ?? 0];
      const oclif = require('@oclif/core');
      const plugin = createRequire(require.resolve('@oclif/plugin-help'));
      const imported = await import(require.resolve('@oclif/core'));
      console.log(JSON.stringify({
        registered, loadsBefore,
        vendored: oclif.vendored === true,
        fromPlugin: plugin('@oclif/core') === oclif,
        imported: imported.default === oclif,
        again: registerVendored(root).length,
        loadsAfter: [globalThis.oclifLoads ?? 0, globalThis.undiciLoads ?? 0],
        agent: require('${AGENT}').vendored,
      }));`,
    );
    expect(result).toEqual({
      registered: ['@oclif/core', AGENT],
      loadsBefore: [0, 0],
      vendored: true,
      fromPlugin: true,
      imported: true,
      again: 0,
      loadsAfter: [1, 0],
      agent: 'agent',
    });
  });

  it('leaves a file whose packages node_modules holds in another version, or without a stamp or file, to node_modules', () => {
    const real = `registerVendored(root); const oclif = require('@oclif/core'); console.log(JSON.stringify({ vendored: oclif.vendored === true, real: typeof oclif.Config?.load === 'function', agent: require('${AGENT}').vendored ?? 'real' }));`;
    stamp('0.0.1');
    expect(inChild(root, real)).toEqual({ vendored: false, real: true, agent: 'agent' });
    stamp(null, '0.0.1');
    expect(inChild(root, real)).toEqual({ vendored: false, real: true, agent: 'real' });
    rmSync(join(root, BUNDLE_DIR, 'stamp.json'));
    expect(inChild(root, real)).toEqual({ vendored: false, real: true, agent: 'real' });
    stamp(OCLIF_VERSION);
    rmSync(join(root, BUNDLE_DIR, 'vendor', 'oclif-core.cjs'));
    expect(inChild(root, real)).toEqual({ vendored: false, real: true, agent: 'agent' });
  });

  it('keeps a module already loaded', () => {
    stamp(OCLIF_VERSION);
    const result = inChild(root, `const first = require('@oclif/core'); const registered = registerVendored(root); console.log(JSON.stringify({ registered, same: require('@oclif/core') === first }));`);
    expect(result).toEqual({ registered: [AGENT], same: true });
  });
});

describe('the vendored oclif', () => {
  it('is of the exact version package.json asks for, so that installed copies resolve the version vendored', () => {
    const cli = JSON.parse(readFileSync(fileURLToPath(new URL('../../package.json', import.meta.url)), 'utf8')) as { dependencies: Record<string, string> };
    expect(cli.dependencies['@oclif/core']).toBe(OCLIF_VERSION);
  });

  it('sorts the commands in code-unit order, which is localeCompare’s order for every command id of the CLI', async () => {
    // scripts/bundle.mjs (PATCHES): a command id where the two orders differ (capitals, accents)
    // would change the order of the help's list; rename it or drop the patch.
    const config = await Config.load(fileURLToPath(new URL('../..', import.meta.url)));
    const ids = [...config.commandIDs, ...config.commands.flatMap((c) => c.aliases)];
    expect(ids).toContain('plan');
    expect(ids).toContain('help');
    expect([...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))).toEqual([...ids].sort((a, b) => a.localeCompare(b)));
  });
});

describe('the vendored undici', () => {
  it('loads Node’s http2 and tls only when a connection needs them, not with the Agent (a plan over http:// uses neither)', () => {
    // scripts/bundle.mjs (PATCHES): undici's HTTP/2 client loads when a connection negotiates h2.
    const result = inChild(
      fileURLToPath(new URL('../..', import.meta.url)),
      `const registered = registerVendored(root);
      const Agent = require('${AGENT}');
      const agent = new Agent({ connections: 10 });
      await agent.close();
      const loaded = (name) => process.moduleLoadList.includes('NativeModule ' + name);
      console.log(JSON.stringify({ registered, http2: loaded('http2'), tls: loaded('tls') }));`,
    );
    expect(result).toEqual({ registered: expect.arrayContaining([AGENT]), http2: false, tls: false });
  });
});
