/**
 * Opens the connection a command works through: the HTTP client and the engine's `LiveApi`
 * over it. Which API is decided first, by `chooseTarget` (target.ts: empty variables, `CI`,
 * `--embedded`), before anything is opened. With an API URL, that API (a key is then
 * required). Otherwise the embedded server: the reference server started in this process on 127.0.0.1 (a free port) over
 * `.gatehouse/server.db`, the database `gatehouse serve` uses, with a fresh random key that
 * only this process knows; `close()` stops it. The key is never printed. The server is an
 * optional dependency, imported only here (see `server/load.ts`).
 */
import { randomBytes } from 'node:crypto';
import { GatehouseClient, type RateLimitOptions, type RequestEvent } from '@gatehouse/client';
import type { LiveApi, Target } from '@gatehouse/engine/core';
import { parseRateLimit } from '@gatehouse/schemas/runtime';
import { CliError } from '../errors.js';
import { ClientLiveApi } from '../live-api.js';
import { DEFAULT_DB_PATH } from '../server/defaults.js';
import { loadServer } from '../server/load.js';
import type { ConnectionFlagValues } from './flags.js';
import { checkApiKey, checkApiUrl, sourceOf } from './check.js';
import { chooseTarget } from './target.js';
import { transportOptions } from './transport.js';
import { checkStackName } from '../stack-flags.js';

export interface Connection {
  client: GatehouseClient;
  api: LiveApi;
  target: Target;
  stack: string;
  /** Closes the client and, in embedded mode, the server. Safe to call twice. */
  close(): Promise<void>;
}

export interface ConnectOptions {
  /** Database of the embedded server; `.gatehouse/server.db` unless a test says otherwise. */
  embeddedDb?: string;
  onRequest?: (event: RequestEvent) => void;
  /** The environment target selection reads (`CI`, empty variables); `process.env` by default. */
  env?: NodeJS.ProcessEnv;
}

/**
 * The budget requests are paced to, per target: `--rate-limit` when given (`off`: none, for an
 * API without a limit); otherwise, for an API URL, the client's default, the service's
 * documented budget (120 requests per rolling 60 s per account); for the embedded server, none:
 * it runs in this process, has no limit, and pacing it would only slow a local run down.
 */
export async function connect(flags: ConnectionFlagValues, options: ConnectOptions = {}): Promise<Connection> {
  const resolved = resolveTarget(flags, options.env ?? process.env);
  const rateLimit = readRateLimit(flags['rate-limit']);
  const clientOptions = {
    ...(rateLimit !== undefined ? { rateLimit } : {}),
    ...(options.onRequest ? { onRequest: options.onRequest } : {}),
  };
  if (resolved.mode === 'api') {
    const { url: apiUrl, key: apiKey } = resolved;
    const transport = await transportOptions(flags, apiUrl);
    const client = new GatehouseClient({ baseUrl: apiUrl, apiKey, ...clientOptions, ...transport });
    const target: Target = { url: client.transport.baseUrl, embedded: false };
    return withClose({ client, api: new ClientLiveApi(client, target), target, stack: flags.stack }, () => client.close());
  }

  const transport = await transportOptions(flags, undefined);
  const { startServer } = await loadServer('embedded');
  const apiKey = `gh_embedded_${randomBytes(24).toString('base64url')}`;
  const server = await startServer({ host: '127.0.0.1', port: 0, db: options.embeddedDb ?? DEFAULT_DB_PATH, apiKeys: [apiKey] });
  const client = new GatehouseClient({ baseUrl: server.url, apiKey, rateLimit: false, ...clientOptions, ...transport });
  const target: Target = { url: server.url, embedded: true };
  return withClose({ client, api: new ClientLiveApi(client, target), target, stack: flags.stack }, async () => {
    await client.close();
    await server.close();
  });
}

/** The target the flags name, checked (stack name, URL, key), before anything is opened: `CliError` when it cannot be used. */
export type ResolvedTarget = { mode: 'api'; url: string; key: string } | { mode: 'embedded' };

export function resolveTarget(flags: ConnectionFlagValues, env: NodeJS.ProcessEnv = process.env): ResolvedTarget {
  checkStackName(flags.stack);
  const choice = chooseTarget({ apiUrl: flags['api-url'], apiKey: flags['api-key'], embedded: flags.embedded }, env);
  if (choice.mode === 'embedded') return { mode: 'embedded' };
  const url = checkApiUrl(choice.url, sourceOf('api-url', 'GATEHOUSE_API_URL'));
  if (!choice.key) throw new CliError('missing_api_key', `an API key is required with the API URL ${url}: set GATEHOUSE_API_KEY or pass --api-key`);
  return { mode: 'api', url, key: checkApiKey(choice.key, sourceOf('api-key', 'GATEHOUSE_API_KEY')) };
}

function withClose(connection: Omit<Connection, 'close'>, close: () => Promise<void>): Connection {
  let closing: Promise<void> | undefined;
  return { ...connection, close: () => (closing ??= close()) };
}

/** `--rate-limit`: a budget, `false` for `off` (an API without a limit), undefined when not given. */
function readRateLimit(text: string | undefined): RateLimitOptions | false | undefined {
  if (!text) return undefined;
  if (text.trim().toLowerCase() === 'off') return false;
  try {
    const { max, windowMs } = parseRateLimit(text);
    return { requests: max, intervalMs: windowMs };
  } catch (error) {
    throw new CliError('bad_rate_limit', `--rate-limit: ${(error as Error).message}`);
  }
}
