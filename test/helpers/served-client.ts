/**
 * The real reference server in this process, on a loopback port over an in-memory database, and
 * a client of it: for the tests of the client against the server (no process start needed).
 */
import { startServer, type RunningServer } from '@gatehouse/server';
import { GatehouseClient } from '@gatehouse/client';

export interface ServedClient {
  server: RunningServer;
  client: GatehouseClient;
  /** Closes the client, then the server. */
  close(): Promise<void>;
}

/** Starts a server accepting `key` and a client of it that uses that key. */
export async function startServedClient(key: string): Promise<ServedClient> {
  const server = await startServer({ host: '127.0.0.1', port: 0, db: ':memory:', reservationCheck: false, apiKeys: [key] });
  const client = new GatehouseClient({ baseUrl: server.url, apiKey: key, rateLimit: false });
  return {
    server,
    client,
    async close() {
      await client.close();
      await server.close();
    },
  };
}
