import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { beforeEach, describe, expect, it } from 'vitest';
import { tempDirForFile } from '../testing/temp-dir.js';
import { BUNDLE_DIR } from './bundle.js';
import { VENDORED_OCLIF } from './vendor.js';

const REPO = fileURLToPath(new URL('../../../..', import.meta.url));
const VENDOR_JS = pathToFileURL(fileURLToPath(new URL('../../dist/startup/vendor.js', import.meta.url))).href;
const OCLIF_VERSION = (JSON.parse(readFileSync(createRequire(import.meta.url).resolve('@oclif/core/package.json'), 'utf8')) as { version: string }).version;
const dir = tempDirForFile('gatehouse-vendor-');

/**
 * Runs `script` in a fresh Node process (loadOclif registers modules in require.cache, which
 * must not leak into the test worker) with `loadOclif`, `root` and `require` (from `root`) in
 * scope; returns what it printed, parsed.
 */
function inChild(root: string, script: string): unknown {
  const source = `const { loadOclif } = await import(${JSON.stringify(VENDOR_JS)});
    const { createRequire } = await import('node:module');
    const root = ${JSON.stringify(root)};
    const require = createRequire(root + '/package.json');
    ${script}`;
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', source], { encoding: 'utf8' }));
}

describe('loadOclif', () => {
  let root = '';
  beforeEach(() => {
    root = join(dir.path, `cli-${Math.random().toString(36).slice(2)}`);
    mkdirSync(join(root, BUNDLE_DIR, 'vendor'), { recursive: true });
    writeFileSync(join(root, 'package.json'), '{"name": "cli", "type": "module"}');
    // node_modules of the repository: the real @oclif/core and its plugins.
    symlinkSync(join(REPO, 'node_modules'), join(root, 'node_modules'));
    // A stand-in for the vendored copy, recognisable by its exports.
    writeFileSync(join(root, VENDORED_OCLIF), 'module.exports = { vendored: true, Command: class Command {} };\n');
  });
  const stampVersion = (version: string | null) => writeFileSync(join(root, BUNDLE_DIR, 'stamp.json'), JSON.stringify({ buildInfo: {}, vendor: { '@oclif/core': version } }));

  it('loads the vendored copy while node_modules holds its version, as the one instance for require and import', () => {
    stampVersion(OCLIF_VERSION);
    const result = inChild(
      root,
      `const oclif = loadOclif(root);
      const plugin = createRequire(require.resolve('@oclif/plugin-help'));
      const imported = await import(require.resolve('@oclif/core'));
      console.log(JSON.stringify({
        vendored: oclif.vendored === true,
        required: require('@oclif/core') === oclif,
        fromPlugin: plugin('@oclif/core') === oclif,
        imported: imported.default === oclif,
        again: loadOclif(root) === oclif,
      }));`,
    );
    expect(result).toEqual({ vendored: true, required: true, fromPlugin: true, imported: true, again: true });
  });

  it('loads node_modules’ copy after an upgrade the bundle does not hold, or without a vendored copy or stamp', () => {
    const real = `const oclif = loadOclif(root); console.log(JSON.stringify({ vendored: oclif.vendored === true, real: typeof oclif.Config?.load === 'function', same: require('@oclif/core') === oclif }));`;
    stampVersion('0.0.1');
    expect(inChild(root, real)).toEqual({ vendored: false, real: true, same: true });
    stampVersion(null);
    expect(inChild(root, real)).toEqual({ vendored: false, real: true, same: true });
    rmSync(join(root, BUNDLE_DIR, 'stamp.json'));
    expect(inChild(root, real)).toEqual({ vendored: false, real: true, same: true });
    stampVersion(OCLIF_VERSION);
    rmSync(join(root, VENDORED_OCLIF));
    expect(inChild(root, real)).toEqual({ vendored: false, real: true, same: true });
  });

  it('keeps the instance already loaded', () => {
    stampVersion(OCLIF_VERSION);
    const result = inChild(root, `const first = require('@oclif/core'); const oclif = loadOclif(root); console.log(JSON.stringify({ same: oclif === first, vendored: oclif.vendored === true }));`);
    expect(result).toEqual({ same: true, vendored: false });
  });
});
