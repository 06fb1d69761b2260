/**
 * `gatehouse validate` imports no CommonJS module: the first ES module `import` of a CommonJS
 * package makes Node load its export lexer (WebAssembly, some 10 MB resident until exit, most of
 * validate's fixed memory cost: issue 15), so @oclif/core, picocolors and the engine's CommonJS
 * dependencies are `require`d (src/oclif.ts). Run as a user runs it, on the BUILT CLI in a fresh
 * process (`npm test` builds first); a loader hook sees every module loaded through `import`.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { ensureManifest } from './startup/manifest.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = fileURLToPath(new URL('../bin/run.js', import.meta.url));
/** Every kind, IP policy rules (CIDRs) among them. */
const EXAMPLE = fileURLToPath(new URL('../../../examples/basic', import.meta.url));

const HOOKS = `data:text/javascript,${encodeURIComponent(`
  import { writeSync } from 'node:fs';
  export async function load(url, context, next) {
    const loaded = await next(url, context);
    if (loaded.format === 'commonjs') writeSync(2, 'commonjs imported ' + url + '\\n');
    return loaded;
  }`)}`;
const REGISTER = `data:text/javascript,${encodeURIComponent(`import { register } from 'node:module'; register(${JSON.stringify(HOOKS)});`)}`;

it('validate loads no CommonJS module through import', async () => {
  // A rebuilt oclif manifest (the first start after a build) loads every command: not measured here.
  await ensureManifest(ROOT);
  const run = spawnSync(process.execPath, ['--import', REGISTER, BIN, 'validate', EXAMPLE], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  expect(run.stdout, run.stderr).toMatch(/^Manifests are valid/);
  expect(run.stderr.split('\n').filter((line) => line.startsWith('commonjs imported'))).toEqual([]);
});
