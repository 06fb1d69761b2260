#!/usr/bin/env node
// The `gatehouse` command: oclif runs the command the arguments name, importing only that
// command's module, as listed in oclif.manifest.json (written by `npm run build` and by packing,
// never here: this process writes nothing into its own installation). `--version` or `-v` alone
// is answered from package.json without loading oclif. A failure is reported as plain `Error:`
// lines (src/report-error.ts) rather than oclif's wrapped text.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
  const { userAgent } = await import('../dist/version.js');
  process.stdout.write(`${userAgent(fileURLToPath(new URL('..', import.meta.url)))}\n`);
} else {
  // `require`, not `import`: @oclif/core is CommonJS, and an ES module's import of CommonJS
  // loads Node's export lexer, some 10 MB resident until exit (src/oclif.ts).
  const { flush, run, settings } = createRequire(import.meta.url)('@oclif/core');
  // Always the compiled dist/: oclif otherwise looks for TypeScript sources whenever NODE_ENV
  // is `development` or `test`, and warns "Could not find typescript" in an installed copy.
  settings.enableAutoTranspile = false;
  try {
    await run(argv, import.meta.url);
    await flush();
  } catch (error) {
    const { reportError } = await import('../dist/report-error.js');
    const code = reportError(error);
    await flush().catch(() => undefined);
    process.exit(code);
  }
}
