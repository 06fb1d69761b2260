#!/usr/bin/env node
/**
 * Writes `dist-bundle/`: the built commands (dist/commands/*.js) bundled with rolldown together
 * with the engine and the client they import, as CommonJS (one `.cjs` file per command, shared
 * code in chunks), which src/startup/bundle-modules.ts runs with V8's code cache (Node 20 has
 * none for ES modules). Run after `tsc -b` by `npm run build`, `prepare`, `npm test` and the
 * CLI's prepack.
 *
 * Why: each ES module Node loads costs start-up time to resolve, read, compile and link, and a
 * command loads about 200 of our own; bundled, `validate` loads some 10 and its import takes
 * about half the CPU (README, performance). Node packages (oclif, undici, yaml, ajv, ...) stay
 * external, and so do @gatehouse/schemas' main entry (BUNDLED_MODULES) and @gatehouse/server
 * (loaded only by `serve` and the embedded default, with better-sqlite3).
 *
 * The bundle is only an accelerator: bin/run.js uses it while it is fresh (src/startup/bundle.ts:
 * the build information of every package it holds is as it was when it was written) and the
 * unbundled dist/ otherwise, so a `tsc -b` after an edit is never masked by a stale bundle.
 * Without rolldown (a devDependency), nothing is written and dist/ is used.
 *
 * Every output file sits in a directory two levels below the package root (dist-bundle/commands/,
 * dist-bundle/chunks/), as the modules that read a file by a relative path do in dist/
 * (dist/server/load.js: `../../package.json`), so such a path means the same file in both.
 */
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
// The stamp's two measures, as src/startup/bundle.ts reads them back (built by `tsc -b` before this runs).
import { identity, installedVersion } from '../dist/startup/bundle.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const OUT = 'dist-bundle';
/** The packages bundled in, by the build information `tsc -b` rewrites whenever it emits them. */
const BUILD_INFO = ['tsconfig.tsbuildinfo', '../engine/tsconfig.tsbuildinfo', '../client/tsconfig.tsbuildinfo', '../../schemas/tsconfig.tsbuildinfo'];
/**
 * Node packages bundled into the commands too, by the versions node_modules holds (the stamp
 * records them; src/startup/bundle.ts). p-queue is an ES module that imports eventemitter3, a
 * CommonJS one: from node_modules, that import made Node load its CommonJS export lexer
 * (WebAssembly) in every plan and apply, some 50 ms of CPU (README, performance).
 */
const NODE_BUNDLED = ['p-queue', 'p-timeout', 'eventemitter3'];
const BUNDLED = new Set(['@gatehouse/engine', '@gatehouse/client', ...NODE_BUNDLED]);
/**
 * Modules of other packages bundled in: @gatehouse/schemas' `runtime` entry (what the engine and
 * the client check and apply with: some 10 ES modules, 10-14 ms of every plan's start from
 * node_modules, which no code cache reaches). Its main entry (the TypeBox schemas, imported only
 * by policies) stays external.
 */
const BUNDLED_MODULES = new Set(['@gatehouse/schemas/runtime']);
/**
 * CommonJS modules of node packages bundled, with everything they require, into one CommonJS file
 * each under dist-bundle/vendor/ (src/startup/vendor.ts says why and how they are loaded): the
 * file's exports are `{ [module]: exports }`. `packages` are those whose versions the stamp
 * records (a vendored file is used only while node_modules holds the same). Left out: modules
 * oclif requires only on paths the CLI never takes (TypeScript sources, its Node check).
 */
const VENDOR = {
  'vendor/oclif-core.cjs': { packages: ['@oclif/core'], modules: ['@oclif/core'] },
  // The parts of undici the client and the CLI require (its Agent and errors; the index only
  // with a proxy, from the same file so that its modules are the same instances). From one file
  // they cost about as much CPU as from node_modules' 26 (their time is in evaluating them and
  // Node's `http`), but with the code cache a plan of 5,000 objects ends some
  // 3.5% sooner (README, performance: the files' reads are gone).
  'vendor/undici.cjs': { packages: ['undici'], modules: ['undici/lib/dispatcher/agent.js', 'undici/lib/core/errors.js', 'undici'] },
};
const NOT_VENDORED = new Set(['typescript', 'ts-node', 'tsx', 'semver']);
/**
 * Edits of vendored code, each of one exact text that must be found once (an upgrade that
 * changes it stops the build, to be looked at again):
 * - oclif sorts each plugin's commands with `localeCompare`, whose first call builds ICU's
 *   collator: some 6 ms of every start, half of `Config.load`. Code-unit order is the same order
 *   for the CLI's command ids (lower-case words; src/startup/vendor.test.ts checks every id).
 * - undici loads its HTTP/2 client, and with it Node's `http2` and `tls`, when it loads: some
 *   3 ms of every command that connects, though the client never enables HTTP/2 and only an
 *   https:// URL needs `tls` (undici's connector loads it then itself). Patched, the HTTP/2
 *   client loads when a connection negotiates h2.
 */
const PATCHES = [
  {
    file: '@oclif/core/lib/config/plugin.js',
    from: '.sort((a, b) => a.id.localeCompare(b.id));',
    to: '.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));',
  },
  {
    file: 'undici/lib/dispatcher/client.js',
    from: "const connectH2 = require('./client-h2.js')",
    to: "const connectH2 = (client, socket) => require('./client-h2.js')(client, socket)",
  },
];

/**
 * What the commands' CommonJS files have for `import.meta` (defined to these names above): the
 * file's URL, and resolution from the file, as in an ES module. The URL is computed by a call
 * marked pure, so that the files that never use it (26 of 45) drop it whole: unmarked, they kept
 * the `pathToFileURL` call without its use.
 */
const COMMONJS_META =
  'const __gatehouseMetaUrl = /* @__PURE__ */ (() => require("node:url").pathToFileURL(__filename).href)();\n' +
  'const __gatehouseMetaResolve = (specifier) => require("node:url").pathToFileURL(require.resolve(specifier)).href;';

let rolldown;
try {
  ({ rolldown } = await import('rolldown'));
} catch {
  rmSync(join(root, OUT), { recursive: true, force: true });
  console.log('bundle: rolldown is not installed; the CLI runs from dist/');
  process.exit(0);
}

// The commands are those with a source (dist/ may hold outputs of deleted sources).
const commands = readdirSync(join(root, 'src', 'commands'))
  .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts') && !name.endsWith('.d.ts'))
  .map((name) => name.slice(0, -3));
const input = Object.fromEntries(commands.map((name) => [`commands/${name}`, join(root, 'dist', 'commands', `${name}.js`)]));
const packageOf = (id) => (id.startsWith('@') ? id.split('/').slice(0, 2).join('/') : id.split('/')[0]);

// Stamped before bundling: a build that lands while this runs leaves the bundle stale, not wrong.
// `vendor`: the version of each package bundled into dist-bundle/vendor/ (src/startup/vendor.ts
// uses a vendored copy only while node_modules holds that same version).
const stamp = {
  // This script itself: a change to how the bundle is made makes it again.
  bundler: identity(fileURLToPath(import.meta.url)),
  buildInfo: Object.fromEntries(BUILD_INFO.map((file) => [file, identity(join(root, file))])),
  packages: Object.fromEntries(NODE_BUNDLED.map((name) => [name, installedVersion(root, name)])),
  vendor: Object.fromEntries(
    Object.entries(VENDOR).map(([file, { packages, modules }]) => [file, { versions: Object.fromEntries(packages.map((name) => [name, installedVersion(root, name)])), modules }]),
  ),
};
// Nothing built since the bundle was written: left as it is (CLIs running now may be using it;
// `npm test` bundles before vitest starts, and test/packaging.test.ts runs this again while
// other test files run the CLI).
if (readStamp() === JSON.stringify(stamp) && commands.every((name) => existsSync(join(root, OUT, 'commands', `${name}.cjs`)))) {
  console.log(`bundle: ${OUT}/ is up to date`);
  process.exit(0);
}
const temp = join(root, `${OUT}.tmp-${process.pid}`);
const bundle = await rolldown({
  input,
  platform: 'node',
  external: (id) => !id.startsWith('.') && !id.startsWith('/') && !id.startsWith('\0') && !BUNDLED.has(packageOf(id)) && !BUNDLED_MODULES.has(id),
  logLevel: 'warn',
  // CommonJS has no import.meta: the file's own URL, and resolution from the file (COMMONJS_META).
  transform: { define: { 'import.meta.url': '__gatehouseMetaUrl', 'import.meta.resolve': '__gatehouseMetaResolve' } },
  plugins: [{ name: 'import-through-loader', renderChunk: (code) => ({ code: importThroughLoader(code) }) }],
  onLog: (level, log, handler) => {
    // The rewrite of `import(` shifts the columns after it on its line (3 calls): close enough.
    if (log.code === 'SOURCEMAP_BROKEN' && log.plugin === 'import-through-loader') return;
    handler(level, log);
  },
});
await bundle.write({
  dir: temp,
  format: 'cjs',
  // ES modules are strict mode code: so is their CommonJS form.
  strict: true,
  intro: COMMONJS_META,
  entryFileNames: '[name].cjs',
  chunkFileNames: 'chunks/[name]-[hash].cjs',
  sourcemap: true,
});
await bundle.close();
for (const [file, { modules }] of Object.entries(VENDOR)) {
  const entry = `\0vendor:${file}`;
  const vendor = await rolldown({
    input: { [file.replace(/\.cjs$/, '')]: entry },
    platform: 'node',
    external: (id) => isBuiltin(id) || NOT_VENDORED.has(packageOf(id)) || id.startsWith('@oclif/plugin-'),
    logLevel: 'warn',
    plugins: [
      {
        name: 'vendor-entry',
        resolveId: (id) => (id === entry ? id : undefined),
        // Getters: a module is evaluated only when first asked for (undici's index only with a proxy).
        load: (id) => (id === entry ? `module.exports = {\n${modules.map((m) => `  get ${JSON.stringify(m)}() { return require(${JSON.stringify(m)}); },`).join('\n')}\n};\n` : undefined),
        transform: (code, id) => patch(code, id),
        renderChunk: (code) => ({ code: importThroughLoader(code) }),
      },
    ],
  });
  await vendor.write({ dir: temp, format: 'cjs', entryFileNames: '[name].cjs', codeSplitting: false });
  await vendor.close();
}
const unapplied = PATCHES.filter((p) => !p.applied);
if (unapplied.length > 0) throw new Error(`bundle: ${unapplied.map((p) => p.file).join(', ')} not found to patch`);
for (const file of walk(temp)) {
  const depth = relative(temp, file).split(/[\\/]/).length;
  if (depth !== 2) throw new Error(`bundle: ${relative(temp, file)} is not two levels below the package root`);
}
writeFileSync(join(temp, 'stamp.json'), `${JSON.stringify(stamp)}\n`);
// The old bundle is moved aside, not deleted, before the new one takes its place: the directory
// is missing only between two renames, not for the length of a recursive delete. A CLI that
// loaded a command from the old bundle may still fail to require a chunk of it after the swap;
// rewriting a bundle while CLIs run from it is what the check above avoids.
const old = join(root, `${OUT}.old-${process.pid}`);
if (existsSync(join(root, OUT))) renameSync(join(root, OUT), old);
renameSync(temp, join(root, OUT));
rmSync(old, { recursive: true, force: true });
console.log(`bundle: ${OUT}/ written (${commands.length} commands)`);

/** `code` of module `id` with the PATCHES for it applied. */
function patch(code, id) {
  const path = id.split('\\').join('/');
  for (const p of PATCHES.filter((p) => path.endsWith(`/node_modules/${p.file}`))) {
    const at = code.indexOf(p.from);
    if (at < 0 || code.indexOf(p.from, at + 1) >= 0) throw new Error(`bundle: ${p.file} no longer holds ${p.from} exactly once; review PATCHES`);
    code = code.replace(p.from, p.to);
    p.applied = true;
  }
  return { code };
}

/**
 * `import(x)` in a vendored file becomes `__vendorImport(x)`: the import of the CLI's loader when
 * it compiled the file with V8's code cache (src/startup/code-cache.ts passes it; Node 20 cannot
 * run a dynamic import in code compiled from a cache), the file's own `import()` otherwise (a
 * plain `require`). Only call expressions: `import()` in a string (an error message) stays.
 */
function importThroughLoader(code) {
  const rewritten = code.replace(/(?<![\w$.'"`])import\((?!\))/g, '__vendorImport(');
  return `${rewritten}
function __vendorImport(specifier) {
  return typeof __gatehouseImport === 'function' ? __gatehouseImport(specifier) : import(specifier);
}
`;
}

function readStamp() {
  try {
    return readFileSync(join(root, OUT, 'stamp.json'), 'utf8').trim();
  } catch {
    return undefined;
  }
}

function* walk(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else if (!entry.name.endsWith('.map')) yield path;
  }
}
