/**
 * Runs a CommonJS file of the CLI's own package (a vendored file, src/startup/vendor.ts, or a
 * file of the bundled commands, src/startup/bundle-modules.ts) with V8's code cache, so that a
 * start does not parse and compile what the last one did.
 *
 * The vendored @oclif/core is 580 KB of JavaScript; compiling it (the whole file's pre-parse,
 * then each function oclif runs) is about half of its 60 ms of CPU (require and `Config.load`).
 * Node 20 has no module compile cache (`module.enableCompileCache` is Node 22), so the file is
 * compiled here as Node would (the CommonJS wrapper, `require` from the file's directory), with
 * the cache V8 made for it last time: 58 -> 31 ms. Its `import()` calls (of ES modules outside
 * the bundle) go through this module's own `import()` (see `__gatehouseImport`).
 *
 * Where and when the cache is trusted:
 * - It sits next to the file, `<file>.<profile>.v8cache`, in the package's own directory (never
 *   a shared or temporary directory another user could write to); a directory that cannot be
 *   written (an installed, read-only copy) just gets no cache.
 * - Its first line records the file's identity as the stat call sees it (inode, size, mtime,
 *   ctime: any rewrite changes them; scripts/bundle.mjs writes a new directory each time) and
 *   Node's version; V8 itself refuses data of another V8 version, of other V8 flags, or of a
 *   source of another length. Anything refused is compiled from the source, as without a cache.
 * - V8's flags are part of what it checks (those set at run time too, before the first cache
 *   is made or read), and bin/run.js sets different ones for `validate` (heap, short runs), for
 *   `serve` (none) and for the other commands (WebAssembly, short runs): each set is a
 *   `profile` with its own file.
 * - A missing or refused cache is written at exit, once the command ran (so that it holds the
 *   functions compiled during the run, not only the top level) and only when it ran through
 *   (exit code 0 or 2), atomically (a temporary file renamed), and errors writing it are ignored.
 * - The next runs that go through write it again, until RUNS_GATHERED runs have: each adds what
 *   it compiled to what the cache held. One run alone pins too little when it compiled little:
 *   a `--help` loads a command's files but runs none of their functions. After the `--help`
 *   runs the container image warms with, plans and validates of 5,000 objects took 2.5-3% less
 *   CPU once their runs had been added. The header counts the runs; after that the cache is
 *   read and never written.
 */
import { readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire, Module } from 'node:module';
import { dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Script } from 'node:vm';

/** How many runs that went through a cache gathers compiled functions from before it is kept. */
const RUNS_GATHERED = 3;

/** What a cache's header says of `file` as it is now: `gatehouse-v8cache <identity> <node> `. */
function stampOf(file: string): string {
  const { ino, size, mtimeMs, ctimeMs } = statSync(file);
  return `gatehouse-v8cache ${ino}:${size}:${mtimeMs}:${ctimeMs} ${process.version} `;
}

/**
 * The V8 data of `cachePath` and the runs it gathered, when its header is `stamp` followed by a
 * count of 1 to RUNS_GATHERED; else undefined (another file, another Node, an older header).
 */
function readCache(cachePath: string, stamp: string): { data: Buffer; runs: number } | undefined {
  let data: Buffer;
  try {
    data = readFileSync(cachePath);
  } catch {
    return undefined;
  }
  const end = data.indexOf(10);
  if (end <= stamp.length || data.toString('latin1', 0, stamp.length) !== stamp) return undefined;
  const runs = Number(data.toString('latin1', stamp.length, end));
  return Number.isInteger(runs) && runs >= 1 && runs <= RUNS_GATHERED ? { data: data.subarray(end + 1), runs } : undefined;
}

function writeCache(cachePath: string, stamp: string, runs: number, data: Buffer): void {
  // Named like a cache file (npm pack leaves those out), never read as one.
  const temp = cachePath.replace(/\.v8cache$/, `.${process.pid}-tmp.v8cache`);
  try {
    writeFileSync(temp, Buffer.concat([Buffer.from(`${stamp}${runs}\n`, 'latin1'), data]));
    renameSync(temp, cachePath);
  } catch {
    rmSync(temp, { force: true });
  }
}

/** Caches to write at exit, one `exit` listener for all (a command compiles a dozen files). */
let pendingWrites: (() => void)[] | undefined;

/**
 * Runs `write` at exit when the command ran through: exit code 0, or 2 (changes, drift). A cache
 * gathers a few runs and is then used as it is, so they should be whole runs, not runs that
 * stopped at their first error (a missing variable, a typo in a path).
 */
function writeAtExit(write: () => void): void {
  if (!pendingWrites) {
    const writes: (() => void)[] = (pendingWrites = []);
    process.once('exit', (code) => {
      if (code !== 0 && code !== 2) return;
      for (const w of writes) w();
    });
  }
  pendingWrites.push(write);
}

/**
 * `require(file)` for a CommonJS file, compiled with the code cache of `profile` (a name for the
 * V8 flags the process runs with). Returns the module's exports. `module` is the record to run it
 * in (a fresh one by default): one already in `require.cache` lets a file that requires it back
 * while it runs see its exports so far, as Node's own loader does for a cycle.
 */
export function requireWithCodeCache(file: string, profile: string, module: Module = new Module(file)): unknown {
  const source = readFileSync(file, 'utf8');
  const stamp = stampOf(file);
  const cachePath = `${file}.${profile}.v8cache`;
  const cached = readCache(cachePath, stamp);
  // Node's CommonJS wrapper, on the first line as Node puts it (stack traces keep their lines),
  // and `__gatehouseImport`: Node 20 cannot run `import()` in code compiled from a cache (without
  // its experimental vm modules), so scripts/bundle.mjs makes the vendored files call this instead.
  const script = new Script(`(function (exports, require, module, __filename, __dirname, __gatehouseImport) { ${source}\n});`, {
    filename: file,
    ...(cached ? { cachedData: cached.data } : {}),
  });
  // The runs the cache will have gathered once this one is added (a refused cache counts none).
  const runs = (cached && !script.cachedDataRejected ? cached.runs : 0) + 1;
  if (runs <= RUNS_GATHERED) writeAtExit(() => writeCache(cachePath, stamp, runs, script.createCachedData()));
  const wrapper = script.runInThisContext() as (
    exports: unknown,
    require: NodeJS.Require,
    module: Module,
    filename: string,
    dirname: string,
    importer: (specifier: string) => Promise<unknown>,
  ) => void;
  module.filename = file;
  const base = pathToFileURL(file);
  const importer = (specifier: string) => import(specifier.startsWith('./') || specifier.startsWith('../') ? new URL(specifier, base).href : specifier);
  wrapper.call(module.exports, module.exports, createRequire(file), module, file, dirname(file), importer);
  module.loaded = true;
  return module.exports;
}
