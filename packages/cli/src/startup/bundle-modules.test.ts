import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { beforeEach, describe, expect, it } from 'vitest';
import { tempDirForFile } from '../testing/temp-dir.js';

const BUNDLE_MODULES_JS = pathToFileURL(fileURLToPath(new URL('../../dist/startup/bundle-modules.js', import.meta.url))).href;
const dir = tempDirForFile('gatehouse-bundle-modules-');

/**
 * In a fresh process: registers the bundle of package `root`, then runs `script` (an ES module
 * body with `require` from the package root and `registered`, the paths registered). Returns
 * what it prints.
 */
function run(root: string, script: string): string {
  const source = `import { createRequire } from 'node:module';
    const { registerBundleModules } = await import(${JSON.stringify(BUNDLE_MODULES_JS)});
    const registered = registerBundleModules(${JSON.stringify(root)}, 'test');
    const require = createRequire(${JSON.stringify(join(root, 'package.json'))});
    ${script}`;
  return execFileSync(process.execPath, ['--input-type=module', '-e', source], { encoding: 'utf8' }).trim();
}

describe('registerBundleModules', () => {
  let root = '';
  beforeEach(() => {
    root = join(dir.path, Math.random().toString(36).slice(2));
    for (const sub of ['commands', 'chunks']) mkdirSync(join(root, 'dist-bundle', sub), { recursive: true });
    writeFileSync(join(root, 'package.json'), '{"name": "fixture", "type": "module"}\n');
  });

  it('runs each .cjs file of commands/ and chunks/ from the code cache when first required, and no other file', () => {
    writeFileSync(join(root, 'dist-bundle', 'chunks', 'shared-1.cjs'), 'globalThis.runs = (globalThis.runs ?? 0) + 1;\nexports.value = "shared";\n');
    writeFileSync(join(root, 'dist-bundle', 'chunks', 'unused-1.cjs'), 'throw new Error("never run");\n');
    writeFileSync(join(root, 'dist-bundle', 'commands', 'plan.cjs'), 'const shared = require("../chunks/shared-1.cjs");\nmodule.exports = class Plan { static value = shared.value; };\n');
    writeFileSync(join(root, 'dist-bundle', 'chunks', 'notes.txt'), 'not a module\n');
    const script = `const Plan = require('./dist-bundle/commands/plan.cjs');
      require('./dist-bundle/chunks/shared-1.cjs');
      console.log(JSON.stringify({ registered: registered.map((p) => p.slice(${JSON.stringify(root.length + 1)})).sort(), value: Plan.value, runs: globalThis.runs }));`;
    const expected = {
      registered: ['dist-bundle/chunks/shared-1.cjs', 'dist-bundle/chunks/unused-1.cjs', 'dist-bundle/commands/plan.cjs'],
      value: 'shared',
      runs: 1,
    };
    expect(JSON.parse(run(root, script))).toEqual(expected);
    expect(existsSync(join(root, 'dist-bundle', 'commands', 'plan.cjs.test.v8cache'))).toBe(true);
    expect(existsSync(join(root, 'dist-bundle', 'chunks', 'shared-1.cjs.test.v8cache'))).toBe(true);
    expect(existsSync(join(root, 'dist-bundle', 'chunks', 'unused-1.cjs.test.v8cache'))).toBe(false);
    // Next time from the caches written at the last exit.
    expect(JSON.parse(run(root, script))).toEqual(expected);
  });

  it('gives chunks that require each other their exports so far, running each once (as Node does for a cycle)', () => {
    writeFileSync(join(root, 'dist-bundle', 'chunks', 'a.cjs'), 'exports.early = "a";\nconst b = require("./b.cjs");\nexports.seenByB = b.seen;\n');
    writeFileSync(join(root, 'dist-bundle', 'chunks', 'b.cjs'), 'const a = require("./a.cjs");\nexports.seen = [a.early, a.seenByB];\n');
    expect(run(root, `console.log(JSON.stringify(require('./dist-bundle/chunks/a.cjs')));`)).toBe('{"early":"a","seenByB":["a",null]}');
  });

  it('does not keep a file that threw: the next require runs it again', () => {
    writeFileSync(join(root, 'dist-bundle', 'chunks', 'flaky.cjs'), 'globalThis.tries = (globalThis.tries ?? 0) + 1;\nif (globalThis.tries === 1) throw new Error("first");\nexports.tries = globalThis.tries;\n');
    const script = `let first;
      try { require('./dist-bundle/chunks/flaky.cjs'); } catch (error) { first = error.message; }
      console.log(JSON.stringify([first, require('./dist-bundle/chunks/flaky.cjs').tries]));`;
    expect(run(root, script)).toBe('["first",2]');
  });

  it('registers nothing when there is no bundle, and keeps a module that is already loaded', () => {
    const empty = join(dir.path, 'no-bundle');
    mkdirSync(empty, { recursive: true });
    writeFileSync(join(empty, 'package.json'), '{"name": "empty"}\n');
    expect(run(empty, 'console.log(registered.length);')).toBe('0');
    writeFileSync(join(root, 'dist-bundle', 'chunks', 'own.cjs'), 'exports.own = true;\n');
    const script = `const { registerBundleModules: again } = await import(${JSON.stringify(BUNDLE_MODULES_JS)});
      const first = require('./dist-bundle/chunks/own.cjs');
      console.log(JSON.stringify([again(${JSON.stringify(root)}, 'test').length, require('./dist-bundle/chunks/own.cjs') === first]));`;
    expect(run(root, script)).toBe('[0,true]');
  });
});
