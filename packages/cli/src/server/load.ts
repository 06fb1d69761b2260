/**
 * Loads `@gatehouse/server` on demand, by dynamic import.
 *
 * The reference server (Fastify over better-sqlite3, a native module that is compiled or
 * downloaded at install) is an OPTIONAL dependency of the CLI: `npm install --omit=optional
 * @gatehouse/cli`, or a machine where better-sqlite3 does not build, gives a CLI that validates,
 * plans, applies, drifts and exports against an API URL without a compiler. Only two uses need
 * the server, and only they call `loadServer`: `gatehouse serve` and the embedded default (no
 * API URL). When it cannot be loaded they fail with a `CliError` (`server_not_installed`) that
 * says which use needed it, why it is missing and what to do; any other failure inside the
 * server's own code is rethrown unchanged.
 */
import { createRequire } from 'node:module';
import type * as ServerPackage from '@gatehouse/server';
import { CliError } from '../errors.js';

export type ServerModule = typeof ServerPackage;

/** Who asked for the server: decides the first sentence and the advice of the message. */
export type ServerUse = 'serve' | 'embedded';

/** The package the CLI loads, and the native module that is the usual reason it is missing. */
const SERVER_PACKAGE = '@gatehouse/server';
const NATIVE_PACKAGE = 'better-sqlite3';

/**
 * @param importServer how to import the module (tests pass a failing one); the default is a
 *   dynamic `import('@gatehouse/server')`, so nothing of the server is read before this call.
 */
export async function loadServer(use: ServerUse, importServer: () => Promise<ServerModule> = () => import('@gatehouse/server')): Promise<ServerModule> {
  try {
    return await importServer();
  } catch (error) {
    if (isMissingServer(error)) throw serverNotInstalled(use, error as Error);
    throw error;
  }
}

/**
 * True when `error` says that the server package or its native SQLite module could not be
 * found or loaded (as opposed to a bug inside the server, which must surface as it is).
 */
export function isMissingServer(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
    return error.message.includes(SERVER_PACKAGE) || error.message.includes(NATIVE_PACKAGE);
  }
  // better-sqlite3 installed without its compiled binding, or built for another Node ABI.
  return code === 'ERR_DLOPEN_FAILED' || /better_sqlite3\.node|Could not locate the bindings file/.test(error.message);
}

/** The message of a missing server: what needed it, why it may be missing, what to do. */
function serverNotInstalled(use: ServerUse, cause: Error): CliError {
  const version = cliVersion();
  const install = `\`npm install ${SERVER_PACKAGE}@${version}\`, or \`npm install ./gatehouse-server-${version}.tgz\` beside a release tarball`;
  const what =
    use === 'serve'
      ? `gatehouse serve needs the reference server (${SERVER_PACKAGE}), which is not installed`
      : `no API URL was given, so this command would use the embedded reference server (${SERVER_PACKAGE}), which is not installed`;
  const why =
    `it is an optional dependency of @gatehouse/cli (left out by \`npm install --omit=optional\`, ` +
    `a tarball of its own in a release (docs/install.md), ` +
    `or skipped because ${NATIVE_PACKAGE} could not be built on this machine)`;
  const todo =
    use === 'serve'
      ? `Install it next to the CLI (${install}; ${NATIVE_PACKAGE} needs a prebuilt binary or a C++ toolchain), or run the container image.`
      : `Set GATEHOUSE_API_URL and GATEHOUSE_API_KEY to work against an API, or install it (${install}).`;
  const detail = firstLine(cause.message);
  return new CliError('server_not_installed', `${what}: ${why}. ${todo}${detail ? ` (${detail})` : ''}`);
}

function firstLine(text: string): string {
  return text.split('\n', 1)[0]!.trim();
}

/** The CLI's own version: the server it needs has the same one (versions move together). */
function cliVersion(): string {
  const pkg = createRequire(import.meta.url)('../../package.json') as { version: string };
  return pkg.version;
}
