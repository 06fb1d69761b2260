/**
 * How requests reach the API, as the user configures it: the timeout of one request, a
 * deadline for all of them, proxies from HTTPS_PROXY/HTTP_PROXY/NO_PROXY (undici's
 * EnvHttpProxyAgent, the variables curl and most tools read) and extra CA certificates to
 * trust for an https:// API URL. Separate from target selection (target.ts): this module
 * never decides which API is used, only how it is reached.
 *
 * undici's Agent is loaded from its own file, not undici's index (some 110 files, about 80 ms
 * of start-up; see the client's undici.ts), and the index with its proxy agent only when a
 * proxy variable is set: without one, EnvHttpProxyAgent sends everything through a plain Agent made
 * with the same options, so a plain Agent is what it would have used.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { ClientOptions } from '@gatehouse/client';
import { Flags } from '../oclif.js';
import type { Agent, EnvHttpProxyAgent } from 'undici';
import { CliError } from '../errors.js';
import { sourceOf } from './check.js';

export const DEFAULT_TIMEOUT = '30s';

export const transportFlags = {
  timeout: Flags.string({
    description: 'longest wait for one request, e.g. 30s, 500ms, 2m (each retry waits again; a request is tried up to 5 times)',
    env: 'GATEHOUSE_TIMEOUT',
    default: DEFAULT_TIMEOUT,
    helpGroup: 'CONNECTION',
  }),
  deadline: Flags.string({
    description: 'longest time for all the requests of the command together, e.g. 5m (none by default)',
    env: 'GATEHOUSE_DEADLINE',
    helpGroup: 'CONNECTION',
  }),
  'ca-file': Flags.string({
    description: 'PEM file of CA certificates to trust for an https:// API URL, besides the system ones',
    env: 'GATEHOUSE_CA_FILE',
    helpGroup: 'CONNECTION',
  }),
};

export interface TransportFlagValues {
  timeout?: string | undefined;
  deadline?: string | undefined;
  'ca-file'?: string | undefined;
}

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `30s`, `500ms`, `2m`, `1h` or a number of seconds, as milliseconds; undefined when unreadable or not positive. */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)?$/.exec(text.trim());
  if (!match) return undefined;
  const ms = Number(match[1]) * UNITS[match[2] ?? 's']!;
  return ms > 0 && Number.isFinite(ms) ? Math.round(ms) : undefined;
}

function readDuration(text: string, flag: string, variable: string): number {
  const ms = parseDuration(text);
  if (ms === undefined) throw new CliError('bad_duration', `${sourceOf(flag, variable)} '${text}' is not a duration; use e.g. 30s, 500ms or 2m`);
  return ms;
}

export interface Transport {
  /** Options for the client: timeout, deadline signal and, for a remote API, the dispatcher. */
  clientOptions: Pick<ClientOptions, 'timeoutMs' | 'signal' | 'dispatcher'>;
  /** Closes the dispatcher made here (the client does not close one it was given). */
  close(): Promise<void>;
}

/**
 * The transport of one command run. `remote` is false for the embedded server on 127.0.0.1,
 * which is never reached through a proxy and needs no CA. The deadline starts now.
 */
export async function openTransport(flags: TransportFlagValues, remote: boolean): Promise<Transport> {
  const timeoutMs = readDuration(flags.timeout ?? DEFAULT_TIMEOUT, 'timeout', 'GATEHOUSE_TIMEOUT');
  const deadlineMs = flags.deadline === undefined ? undefined : readDuration(flags.deadline, 'deadline', 'GATEHOUSE_DEADLINE');
  const signal = deadlineMs === undefined ? {} : { signal: AbortSignal.timeout(deadlineMs) };
  if (!remote) return { clientOptions: { timeoutMs, ...signal }, close: async () => undefined };

  // Node's `tls` (with `http2`, some 3 ms to load) only with --ca-file: undici loads it itself
  // for an https:// URL, and a plan over http:// needs neither.
  const ca = flags['ca-file'] ? [...(await import('node:tls')).rootCertificates, await readCaFile(flags['ca-file'])] : undefined;
  const tls = ca ? { ca } : {};
  const dispatcher = new (dispatcherClass())({
    connections: 10,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    connectTimeout: timeoutMs,
    connect: tls,
    requestTls: tls,
  });
  return { clientOptions: { timeoutMs, ...signal, dispatcher }, close: () => dispatcher.close() };
}

/** The proxy variables undici's EnvHttpProxyAgent reads (NO_PROXY only narrows them). */
const PROXY_VARIABLES = ['http_proxy', 'HTTP_PROXY', 'https_proxy', 'HTTPS_PROXY'] as const;

/** EnvHttpProxyAgent when a proxy variable is set (not empty), else undici's plain Agent. */
function dispatcherClass(env: NodeJS.ProcessEnv = process.env): typeof EnvHttpProxyAgent | typeof Agent {
  const require = createRequire(import.meta.url);
  return PROXY_VARIABLES.some((name) => env[name])
    ? // From undici's index: its proxy agent calls the `connect` API the index adds to dispatchers.
      (require('undici') as typeof import('undici')).EnvHttpProxyAgent
    : (require('undici/lib/dispatcher/agent.js') as typeof Agent);
}

async function readCaFile(path: string): Promise<string> {
  const source = sourceOf('ca-file', 'GATEHOUSE_CA_FILE');
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new CliError('bad_ca_file', `cannot read ${source} ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  if (!text.includes('-----BEGIN CERTIFICATE-----')) {
    throw new CliError('bad_ca_file', `${source} ${path} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  }
  return text;
}
