/**
 * The listening entry of the reference server: builds the app, makes sure it has an API key
 * and listens. `buildApp` never listens, so tests and the CLI's embedded mode use the same
 * app without a socket.
 */
import { buildApp, type AppOptions, type GatehouseApp } from './app.js';

export const DEFAULT_DB_PATH = '.gatehouse/server.db';
export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 8484;

export interface ServeOptions extends Omit<AppOptions, 'baseUrl'> {
  host?: string;
  port?: number;
  /** Defaults to the address the server listens on. */
  baseUrl?: string;
}

export interface RunningServer {
  app: GatehouseApp;
  /** The address it listens on, e.g. http://127.0.0.1:8484. */
  url: string;
  /** The base URL its `uri` fields are built under. */
  baseUrl: string;
  /** A key generated at this start because none was given or stored; shown once. */
  generatedKey?: string;
  /** Stops accepting connections, finishes in-flight requests and closes the database. */
  close(): Promise<void>;
}

export async function startServer(options: ServeOptions = {}): Promise<RunningServer> {
  const host = options.host ?? DEFAULT_HOST;
  const port = options.port ?? DEFAULT_PORT;
  const hostForUrl = host.includes(':') ? `[${host}]` : host;
  const app = await buildApp(options);
  let generatedKey: string | undefined;
  if ((options.apiKeys ?? []).length === 0 && app.apiKeys.storedCount() === 0) {
    generatedKey = app.apiKeys.generate().token;
  }
  await app.listen({ host, port });
  const address = app.server.address();
  const boundPort = typeof address === 'object' && address ? address.port : port;
  const url = `http://${hostForUrl}:${boundPort}`;
  const baseUrl = options.baseUrl ?? url;
  app.services.urls.rebase(baseUrl);
  return {
    app,
    url,
    baseUrl,
    ...(generatedKey !== undefined ? { generatedKey } : {}),
    close: () => app.close(),
  };
}
