#!/usr/bin/env node
// Start-up. `--version`/`-v` alone is answered from package.json without loading oclif (the
// slow part of start-up). Otherwise: bring oclif's manifest up to date with the build (see
// src/startup/manifest.ts), so that only the command being run is imported; run it; report a
// failure as plain `Error:` lines (src/startup/report-error.ts), not oclif's wrapped text.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
  const { userAgent } = await import('../dist/startup/version.js');
  process.stdout.write(`${userAgent(root)}\n`);
} else {
  // validate keeps nearly everything it reads: its heap is set for memory before oclif and the
  // engine are loaded (loading alone grew the young generation to 8 MB; src/startup/heap-settings.ts).
  if (argv[0] === 'validate') (await import('../dist/startup/heap-settings.js')).keepHeapCompact();
  // Every other command may connect: undici's HTTP parser (WebAssembly) stays in V8's baseline
  // tier, so that exit does not wait 100+ ms for its optimised recompilation (src/startup/wasm-tiering.ts).
  else (await import('../dist/startup/wasm-tiering.js')).keepWasmInBaselineTier();
  // A command runs for well under a second: V8 optimises only the functions that keep running,
  // without inlining, rather than spending more CPU compiling than the code then runs
  // (src/startup/jit-settings.ts). Not for `serve`, which runs for hours.
  const serving = argv[0] === 'serve';
  if (!serving) (await import('../dist/startup/jit-settings.js')).tuneJitForShortRuns();
  // Always the compiled dist/: without this, oclif looks for TypeScript sources whenever
  // NODE_ENV is `development` or `test`, and warns "Could not find typescript" in every
  // installed copy run from such a shell. oclif's settings start from `globalThis.oclif`.
  globalThis.oclif = { ...globalThis.oclif, enableAutoTranspile: false };
  const { ensureManifest } = await import('../dist/startup/manifest.js');
  await ensureManifest(root);
  // oclif's index checks Node against its own `engines` (>=18, weaker than ours) with the whole
  // semver package, 48 files and some 20-30 ms of every start, unless this says not to. Set
  // only for the import, so that child processes see the environment they were given.
  const engineWarning = process.env.OCLIF_DISABLE_ENGINE_WARNING;
  process.env.OCLIF_DISABLE_ENGINE_WARNING = 'true';
  // `require`, not `import`: @oclif/core is CommonJS, and an ES module's import of CommonJS
  // loads Node's export lexer (WebAssembly, some 10 MB resident until exit; see src/oclif.ts).
  // From its vendored copy (one file) while usable, as undici's parts the client uses: both
  // registered as the process's one instance of each module (src/startup/vendor.ts).
  // Compiled with V8's code cache of this command's V8 flags (src/startup/code-cache.ts): V8
  // refuses a cache made under other flags, so each set above has caches of its own.
  const codeCache = argv[0] === 'validate' ? 'validate' : serving ? 'serve' : 'default';
  (await import('../dist/startup/vendor.js')).registerVendored(root, { codeCache });
  // The bundled commands' own files likewise (src/startup/bundle-modules.ts).
  (await import('../dist/startup/bundle-modules.js')).registerBundleModules(root, codeCache);
  const { flush, run } = createRequire(import.meta.url)('@oclif/core');
  if (engineWarning === undefined) delete process.env.OCLIF_DISABLE_ENGINE_WARNING;
  else process.env.OCLIF_DISABLE_ENGINE_WARNING = engineWarning;
  try {
    await run(argv, import.meta.url);
    await flush();
  } catch (error) {
    const { reportError } = await import('../dist/startup/report-error.js');
    const code = reportError(error);
    await flush().catch(() => undefined);
    process.exit(code);
  }
}
