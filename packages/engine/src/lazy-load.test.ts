/**
 * Every command imports the engine, so what importing it loads is start-up time of every plan
 * and apply: the libraries only some runs need are loaded on first use (on-first-use.ts,
 * policy/environment.ts). Run in a fresh process on the BUILT package, since what matters is
 * what a real start-up loads (`npm test` builds first). ES modules are seen through a loader
 * hook, CommonJS ones through `require.cache`.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const built = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const LAZY = ['/yaml/', '/diff/', '/fast-json-patch/', '/@marcbachmann/cel-js/'];

const HOOKS = `data:text/javascript,${encodeURIComponent(`
  import { writeSync } from 'node:fs';
  const lazy = ${JSON.stringify(LAZY)};
  export async function load(url, context, next) {
    if (lazy.some((l) => url.includes('/node_modules' + l))) writeSync(1, 'loaded ' + url + '\\n');
    const loaded = await next(url, context);
    if (loaded.format === 'commonjs') writeSync(1, 'commonjs imported ' + url + '\\n');
    return loaded;
  }`)}`;
const REGISTER = `data:text/javascript,${encodeURIComponent(`import { register } from 'node:module'; register(${JSON.stringify(HOOKS)});`)}`;

it('importing the engine and reading plain manifests loads no yaml, diff, fast-json-patch or CEL, and no CommonJS through import; a file with an alias loads yaml', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-lazy-'));
  try {
    writeFileSync(join(dir, 'plain.yaml'), 'kind: BotUser\nname: ci\nspec: {active: true}\n');
    writeFileSync(join(dir, 'alias.yml'), 'kind: BotUser\nname: &n other\nspec: {active: true}\n---\nkind: BotUser\nname: third\nspec: {active: true}\n');
    const script = `
      import { writeSync } from 'node:fs';
      import { createRequire } from 'node:module';
      const require = createRequire(${JSON.stringify(built)});
      const lazy = ${JSON.stringify(LAZY)};
      const cjs = () => Object.keys(require.cache).filter((p) => lazy.some((l) => p.includes('/node_modules' + l))).length;
      const engine = await import(${JSON.stringify(built)});
      const plain = await engine.readManifests({ paths: [${JSON.stringify(join(dir, 'plain.yaml'))}], env: {} });
      writeSync(1, 'plain documents=' + plain.desired.length + ' problems=' + plain.problems.length + ' cjs=' + cjs() + '\\n');
      await engine.readManifests({ paths: [${JSON.stringify(join(dir, 'alias.yml'))}], env: {} });
      writeSync(1, 'alias cjs=' + cjs() + '\\n');`;
    const out = execFileSync(process.execPath, ['--import', REGISTER, '--input-type=module', '-e', script], { encoding: 'utf8' });
    const lines = out.trim().split('\n').filter((l) => !l.startsWith('commonjs imported'));
    expect(lines[0], out).toBe('plain documents=1 problems=0 cjs=0');
    // An ES module's import of a CommonJS package makes Node load its export lexer (WebAssembly,
    // some 10 MB resident until exit): CommonJS packages are `require`d (on-first-use.ts).
    expect(out.split('\n').filter((l) => l.startsWith('commonjs imported')), 'CommonJS loaded through import').toEqual([]);
    expect(lines.at(-1), 'the reference parser is loaded for the file that needs it').toMatch(/^alias cjs=[1-9]/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

it('reading manifests loads the validators of the kinds they declare, and only those', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-lazy-'));
  try {
    writeFileSync(join(dir, 'bots.yaml'), 'kind: BotUser\nname: ci\nspec: {active: true}\n---\nkind: BotUser\nname: deploy\nspec: {active: true}\n');
    writeFileSync(join(dir, 'policy.yaml'), 'kind: IPPolicy\nname: office\nspec: {rules: [{cidr: 10.0.0.0/8, action: allow}]}\n'); // the policy and its rule
    const hooks = `data:text/javascript,${encodeURIComponent(`
      import { writeSync } from 'node:fs';
      export async function load(url, context, next) {
        const kind = /\\/validators\\/(\\w+)\\.generated\\.js$/.exec(url)?.[1];
        if (kind && kind !== 'index') writeSync(1, 'validator ' + kind + '\\n');
        return next(url, context);
      }`)}`;
    const register = `data:text/javascript,${encodeURIComponent(`import { register } from 'node:module'; register(${JSON.stringify(hooks)});`)}`;
    const script = `
      import { writeSync } from 'node:fs';
      const engine = await import(${JSON.stringify(built)});
      writeSync(1, 'imported\\n');
      const bots = await engine.readManifests({ paths: [${JSON.stringify(join(dir, 'bots.yaml'))}], env: {} });
      writeSync(1, 'bots ' + bots.desired.length + ' ' + bots.problems.length + '\\n');
      const both = await engine.readManifests({ paths: [${JSON.stringify(dir)}], env: {} });
      writeSync(1, 'both ' + both.desired.length + ' ' + both.problems.length + '\\n');`;
    const out = execFileSync(process.execPath, ['--import', register, '--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(out.trim().split('\n')).toEqual(['imported', 'validator BotUser', 'bots 2 0', 'validator IPPolicy', 'both 4 0']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
