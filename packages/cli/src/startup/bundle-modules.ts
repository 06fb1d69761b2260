/**
 * The bundled commands' own files (`dist-bundle/commands/*.cjs`, `dist-bundle/chunks/*.cjs`,
 * written by scripts/bundle.mjs as CommonJS) compiled with V8's code cache (code-cache.ts).
 *
 * Why: Node 20 compiles every ES module from its source on every start (no module compile
 * cache before Node 22), and a plan's commands, engine and client are some 500 KB of it: their
 * parsing and the compilation of each function as it first runs were some 35 ms of a plan's
 * CPU (README, performance). CommonJS files can be compiled by `vm.Script` with the data V8
 * made for them last time, as the vendored oclif is.
 *
 * How: each file gets an entry in `require.cache` (Node's documented way to add one) under its
 * own path (vendor.ts's `lazyEntry`), in which `requireWithCodeCache` runs the file on first
 * access of its exports. oclif `require`s the command file its manifest names (a `.cjs` path,
 * src/startup/manifest.ts), and the command requires its chunks by path, so every file of the
 * bundle a command loads goes through its entry, and the files a command does not load are
 * never read. Registering costs two directory listings. Files of a stale bundle are registered
 * too, harmlessly: the manifest then names `dist/`'s commands, and nothing requires them.
 */
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { BUNDLE_DIR } from './bundle.js';
import { requireWithCodeCache } from './code-cache.js';
import { lazyEntry } from './vendor.js';

/** The bundle's directories of CommonJS files (scripts/bundle.mjs writes nothing deeper). */
const DIRECTORIES = ['commands', 'chunks'];

/**
 * Registers every `.cjs` file of the CLI's bundle at `root` to be compiled with the code cache
 * of `profile` (the name of the V8 flags the process runs with) when first required. Returns
 * the paths registered; a file already in the cache (loaded or registered) is kept as it is.
 */
export function registerBundleModules(root: string, profile: string): string[] {
  const cache = createRequire(join(root, 'package.json')).cache;
  const registered: string[] = [];
  for (const directory of DIRECTORIES) {
    let names: string[];
    try {
      names = readdirSync(join(root, BUNDLE_DIR, directory));
    } catch {
      continue;
    }
    for (const name of names) {
      if (!name.endsWith('.cjs')) continue;
      const path = join(root, BUNDLE_DIR, directory, name);
      if (cache[path]) continue;
      cache[path] = lazyEntry(path, (entry) => requireWithCodeCache(path, profile, entry), cache);
      registered.push(path);
    }
  }
  return registered;
}
