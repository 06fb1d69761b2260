import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { beforeEach, describe, expect, it } from 'vitest';
import { tempDirForFile } from '../testing/temp-dir.js';

const CODE_CACHE_JS = pathToFileURL(fileURLToPath(new URL('../../dist/startup/code-cache.js', import.meta.url))).href;
const dir = tempDirForFile('gatehouse-code-cache-');

/** Runs requireWithCodeCache(file, 'test') in a fresh process (the cache is written at its exit); returns what `script` prints. */
function run(file: string, script = 'console.log(JSON.stringify(exports.value));'): string {
  const source = `const { requireWithCodeCache } = await import(${JSON.stringify(CODE_CACHE_JS)});
    const exports = requireWithCodeCache(${JSON.stringify(file)}, 'test');
    ${script}`;
  return execFileSync(process.execPath, ['--input-type=module', '-e', source], { encoding: 'utf8' }).trim();
}

describe('requireWithCodeCache', () => {
  let file = '';
  beforeEach(() => {
    const sub = join(dir.path, Math.random().toString(36).slice(2));
    mkdirSync(sub);
    file = join(sub, 'vendored.cjs');
  });

  it('runs the file as CommonJS, writes its cache at exit, and runs from it next time', () => {
    writeFileSync(file, `module.exports.value = [typeof require('node:path').join, __filename === ${JSON.stringify(file)}, this === module.exports];\n`);
    expect(run(file)).toBe('["function",true,true]');
    const cache = readFileSync(`${file}.test.v8cache`);
    expect(cache.toString('latin1', 0, cache.indexOf(10))).toMatch(/^gatehouse-v8cache \d+:\d+:[\d.]+:[\d.]+ v\d+\S* 1$/);
    expect(run(file)).toBe('["function",true,true]');
  });

  it('adds what each of the first three runs that went through compiled, then keeps the cache as it is', () => {
    // Four functions, compiled only when first called: each run calls one.
    const body = (name: string) => `exports.${name} = (n) => { let s = ''; for (let i = 0; i < n; i++) s += String.fromCharCode(97 + ((i * 7) % 26)); return s.length + ${JSON.stringify(name)}; };`;
    writeFileSync(file, `${['a', 'b', 'c', 'd'].map(body).join('\n')}\nmodule.exports.value = 'loaded';\n`);
    const cache = () => readFileSync(`${file}.test.v8cache`);
    const runs = (data: Buffer) => Number(/ (\d+)$/.exec(data.toString('latin1', 0, data.indexOf(10)))![1]);
    const sizes: number[] = [];
    for (const name of ['a', 'b', 'c']) {
      expect(run(file, `console.log(exports.${name}(3));`)).toBe(`3${name}`);
      sizes.push(cache().length);
    }
    expect(runs(cache())).toBe(3);
    // Each run's function is in the cache from then on: it grew with each.
    expect(sizes[1]).toBeGreaterThan(sizes[0]!);
    expect(sizes[2]).toBeGreaterThan(sizes[1]!);
    // After three runs the cache is no longer written.
    const third = cache();
    expect(run(file, 'console.log(exports.d(3));')).toBe('3d');
    expect(cache().equals(third)).toBe(true);
  });

  it('writes no cache after a run that failed (exit code 1), and writes one after exit code 2', () => {
    writeFileSync(file, 'module.exports.value = "ran";\n');
    const exitWith = (code: number) => {
      try {
        run(file, `process.exitCode = ${code};`);
      } catch (error) {
        expect((error as { status?: number }).status).toBe(code);
      }
    };
    exitWith(1);
    expect(existsSync(`${file}.test.v8cache`)).toBe(false);
    exitWith(2);
    expect(existsSync(`${file}.test.v8cache`)).toBe(true);
  });

  it('never runs a cache of other content, even of the same length', () => {
    writeFileSync(file, 'module.exports.value = "first";\n');
    expect(run(file)).toBe('"first"');
    expect(existsSync(`${file}.test.v8cache`)).toBe(true);
    writeFileSync(file, 'module.exports.value = "other";\n');
    expect(run(file)).toBe('"other"');
  });

  it('imports through the loader, also when compiled from the cache (vendored files call __vendorImport)', () => {
    writeFileSync(join(file, '..', 'esm.mjs'), 'export const answer = 42;\n');
    writeFileSync(
      file,
      `exports.load = () => __vendorImport('./esm.mjs').then((m) => m.answer);
function __vendorImport(specifier) { return typeof __gatehouseImport === 'function' ? __gatehouseImport(specifier) : import(specifier); }\n`,
    );
    const script = 'console.log(await exports.load());';
    expect(run(file, script)).toBe('42');
    expect(existsSync(`${file}.test.v8cache`)).toBe(true);
    expect(run(file, script)).toBe('42');
  });
});
