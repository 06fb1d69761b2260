/**
 * The set-up most end-to-end tests share: a `gatehouse serve` process (built CLI, free port)
 * over a database in a fresh temporary directory, and a client of it with the same key.
 */
import { join } from 'node:path';
import { GatehouseClient } from '@gatehouse/client';
import { startServe, tempDir, type ServeProcess } from './cli.js';

export interface ServedApi {
  /** Holds `server.db`; tests may put their own files beside it. */
  dir: ReturnType<typeof tempDir>;
  server: ServeProcess;
  client: GatehouseClient;
  /** Closes the client, stops the server and removes the directory. */
  close(): Promise<void>;
}

/**
 * Starts `gatehouse serve --api-key <key> <args>` over `<dir>/server.db`; removes the directory
 * if it cannot. Tests whose fixtures have edges on hostports no manifest reserves pass
 * `--no-reservation-check`.
 */
export async function serveWithClient(key: string, args: readonly string[] = []): Promise<ServedApi> {
  const dir = tempDir();
  let server: ServeProcess;
  try {
    server = await startServe(['--port', '0', '--db', join(dir.path, 'server.db'), '--api-key', key, ...args]);
  } catch (error) {
    dir.cleanup();
    throw error;
  }
  const client = new GatehouseClient({ baseUrl: server.url, apiKey: key, rateLimit: false });
  return {
    dir,
    server,
    client,
    async close() {
      await client.close();
      await server.stop();
      dir.cleanup();
    },
  };
}
