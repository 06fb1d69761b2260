import * as server from '@gatehouse/server';
import { describe, expect, it } from 'vitest';
import { CliError } from '../errors.js';
import * as defaults from './defaults.js';
import { isMissingServer, loadServer, type ServerModule } from './load.js';

/** What Node throws for `import('x')` when x is not installed. */
function notFound(specifier: string): Error {
  return Object.assign(new Error(`Cannot find package '${specifier}' imported from /app/node_modules/@gatehouse/cli/dist/server/load.js`), {
    code: 'ERR_MODULE_NOT_FOUND',
  });
}

const failing = (error: Error) => () => Promise.reject(error) as Promise<ServerModule>;

describe('loadServer', () => {
  it('imports the installed server', async () => {
    const loaded = await loadServer('serve');
    expect(loaded.startServer).toBe(server.startServer);
  });

  it('explains a missing server for serve: optional dependency, how to install it', async () => {
    const error = await loadServer('serve', failing(notFound('@gatehouse/server'))).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CliError);
    expect(error).toMatchObject({ code: 'server_not_installed' });
    const message = (error as Error).message;
    expect(message).toMatch(/^gatehouse serve needs the reference server \(@gatehouse\/server\), which is not installed/);
    expect(message).toContain('optional dependency of @gatehouse/cli');
    expect(message).toContain('--omit=optional');
    expect(message).toMatch(/npm install @gatehouse\/server@\d+\.\d+\.\d+/);
    // A release tarball's install (npm run release): the server is the release's second tarball.
    expect(message).toMatch(/npm install \.\/gatehouse-server-\d+\.\d+\.\d+\.tgz` beside a release tarball/);
    expect(message).toContain("Cannot find package '@gatehouse/server'");
  });

  it('explains a missing server for the embedded default: set the API URL and key', async () => {
    const error = await loadServer('embedded', failing(notFound('better-sqlite3'))).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'server_not_installed' });
    expect((error as Error).message).toMatch(/^no API URL was given, so this command would use the embedded reference server/);
    expect((error as Error).message).toContain('Set GATEHOUSE_API_URL and GATEHOUSE_API_KEY');
  });

  it('lets any other failure of the server through unchanged', async () => {
    const bug = new TypeError('x is not a function');
    await expect(loadServer('serve', failing(bug))).rejects.toBe(bug);
    const otherMissing = notFound('left-pad');
    await expect(loadServer('serve', failing(otherMissing))).rejects.toBe(otherMissing);
  });
});

describe('isMissingServer', () => {
  it('recognizes a native binding that does not load', () => {
    expect(isMissingServer(Object.assign(new Error('x.node: invalid ELF header'), { code: 'ERR_DLOPEN_FAILED' }))).toBe(true);
    expect(isMissingServer(new Error('Could not locate the bindings file. Tried: .../better_sqlite3.node'))).toBe(true);
    expect(isMissingServer('nope')).toBe(false);
  });
});

describe('server defaults', () => {
  it('equal the server’s own constants', () => {
    expect({ ...defaults }).toEqual({
      DEFAULT_DB_PATH: server.DEFAULT_DB_PATH,
      DEFAULT_HOST: server.DEFAULT_HOST,
      DEFAULT_PORT: server.DEFAULT_PORT,
    });
  });
});
