/**
 * Vendored CommonJS packages: `dist-bundle/vendor/*.cjs` (scripts/bundle.mjs) each hold some
 * modules of node packages (@oclif/core; undici's agent, errors and index) bundled by rolldown
 * with everything they require, in one file; its exports are `{ [module]: exports }`, each
 * evaluated when first asked for.
 *
 * Why: oclif's index requires some 110 files (help, ux, config, errors, parser, and minimatch,
 * ejs, debug, ansis, lilconfig, tinyglobby, wsl-utils, ... under them). Each costs Node a
 * resolution (stat calls and package.json reads up the tree), a read and a compilation of its
 * own; from one file, its require and `Config.load` cost some 40 ms less CPU (README, performance).
 *
 * One instance: `registerVendored` puts each vendored module in `require.cache` (Node's
 * documented way to add an entry) under the path node_modules' copy resolves to from the CLI,
 * so that every later `require` of it, and every ES module import of it (Node's loader looks in
 * the same cache), gets the vendored exports: bin/run.js, the commands (src/oclif.ts),
 * @oclif/plugin-help's `help` command and the completion and not-found plugins share one
 * @oclif/core, so `instanceof` checks, the exit codes oclif keeps in its cache and its settings
 * hold as with a single package. An entry loads its vendored file only when first required.
 *
 * A vendored file is used only while node_modules holds, for each package in it, the version
 * it was built from (the bundle's stamp records them): after an upgrade that was not bundled
 * again, or in an installed copy whose dependencies resolved to other versions, node_modules'
 * own files are loaded, as without vendoring. Nor is a file registered when one of its modules
 * is loaded already (the instance that exists wins; never two halves of one package).
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire, Module } from 'node:module';
import { dirname, join } from 'node:path';
import { BUNDLE_DIR } from './bundle.js';
import { requireWithCodeCache } from './code-cache.js';

/** What the stamp records of one vendored file: its packages' versions and its modules. */
interface Vendored {
  versions: Record<string, string | null>;
  modules: string[];
}

/** The version in the package.json of `name` that holds the file `resolved`. */
function versionOf(resolved: string, name: string): string | undefined {
  for (let dir = dirname(resolved); dir !== dirname(dir); dir = dirname(dir)) {
    try {
      const json = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (json.name === name) return json.version;
    } catch {
      // No package.json here: its parent.
    }
  }
  return undefined;
}

/** The vendored files the bundle's stamp lists, by path relative to the bundle. */
function vendoredFiles(root: string): Record<string, Vendored> {
  try {
    const stamp = JSON.parse(readFileSync(join(root, BUNDLE_DIR, 'stamp.json'), 'utf8')) as { vendor?: Record<string, Vendored> };
    return typeof stamp.vendor === 'object' && stamp.vendor !== null ? stamp.vendor : {};
  } catch {
    return {};
  }
}

const packageOf = (module: string) => module.split('/').slice(0, module.startsWith('@') ? 2 : 1).join('/');

/**
 * A module record for `require.cache` at `path` whose exports are `load(record)`'s, computed on
 * first access. While `load` runs, the record's exports are an empty object: a module that
 * requires this one back (a cycle) gets the exports so far, as from Node's own loader, never a
 * second load. A `load` that throws takes the record out of `cache`, as Node keeps no module that
 * failed: the next `require` resolves it again.
 */
export function lazyEntry(path: string, load: (entry: Module) => unknown, cache: NodeJS.Require['cache']): Module {
  const entry = new Module(path);
  entry.filename = path;
  entry.loaded = true;
  const settle = (value: unknown) => Object.defineProperty(entry, 'exports', { configurable: true, enumerable: true, writable: true, value });
  Object.defineProperty(entry, 'exports', {
    configurable: true,
    enumerable: true,
    get() {
      settle({});
      try {
        const exports = load(entry);
        settle(exports);
        return exports;
      } catch (error) {
        delete cache[path];
        throw error;
      }
    },
    set: settle,
  });
  return entry;
}

/**
 * Registers every usable vendored module of the CLI at `root` (see above). Returns the modules
 * registered. Idempotent: a module already in the cache (registered or loaded) is kept. With
 * `codeCache` (the name of the V8 flags the process runs with), a vendored file is compiled with
 * V8's code cache (src/startup/code-cache.ts).
 */
export function registerVendored(root: string, options: { codeCache?: string } = {}): string[] {
  const require = createRequire(join(root, 'package.json'));
  const registered: string[] = [];
  for (const [file, { versions, modules }] of Object.entries(vendoredFiles(root))) {
    const vendored = join(root, BUNDLE_DIR, file);
    if (!Array.isArray(modules) || modules.length === 0 || typeof versions !== 'object' || versions === null) continue;
    let paths: string[];
    try {
      paths = modules.map((module) => require.resolve(module));
    } catch {
      continue;
    }
    const current = Object.entries(versions).every(([name, version]) => {
      const index = modules.findIndex((module) => packageOf(module) === name);
      return version !== null && index >= 0 && versionOf(paths[index]!, name) === version;
    });
    if (!current || paths.some((path) => require.cache[path]) || !existsSync(vendored)) continue;
    let exports: Record<string, unknown> | undefined;
    const load = () =>
      (exports ??= (options.codeCache === undefined ? require(vendored) : requireWithCodeCache(vendored, options.codeCache)) as Record<string, unknown>);
    modules.forEach((module, i) => {
      require.cache[paths[i]!] = lazyEntry(paths[i]!, () => load()[module], require.cache);
      registered.push(module);
    });
  }
  return registered;
}
