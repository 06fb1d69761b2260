/**
 * How requests reach the API, as the user configures it: the time limit of one attempt
 * (`--timeout`), a deadline for all of them (`--deadline`), the proxy from the environment and
 * extra CA certificates to trust for an https:// API URL. Separate from target selection
 * (target.ts): this module never decides which API is used, only how it is reached.
 *
 * The proxy is the one curl would use for the API URL: `https_proxy`/`HTTPS_PROXY` for an
 * https:// URL, `http_proxy`/`HTTP_PROXY` for an http:// one, `all_proxy`/`ALL_PROXY` for
 * either, none for a host that `NO_PROXY` names (proxy-from-env reads them, lower case first).
 * The client connects through it (`@gatehouse/client`, dispatcher.ts) and names it in errors.
 */
import { readFile } from 'node:fs/promises';
import { DEFAULT_RETRY, DEFAULT_TIMEOUT_MS, type ClientOptions } from '@gatehouse/client';
import { getProxyForUrl } from 'proxy-from-env';
import { Flags } from '@oclif/core';
import { CliError } from '../errors.js';
import { parseDuration as parseAnyDuration } from '../duration.js';
import { sourceOf } from './check.js';

const DEFAULT_TIMEOUT = `${DEFAULT_TIMEOUT_MS / 1000}s`;

export const transportFlags = {
  timeout: Flags.string({
    description: `longest wait for one attempt of a request, e.g. 10s, 500ms, 2m: for the connection (at most 10s of it), the first byte and the whole answer. A request makes up to ${DEFAULT_RETRY.maxAttempts} attempts, and an API that answers nothing for ${DEFAULT_RETRY.maxAttempts} times this long (${(DEFAULT_RETRY.maxAttempts * DEFAULT_TIMEOUT_MS) / 1000}s by default) is given up on`,
    env: 'GATEHOUSE_TIMEOUT',
    default: DEFAULT_TIMEOUT,
    helpGroup: 'CONNECTION',
  }),
  deadline: Flags.string({
    description:
      'longest time for all the requests of the command together, e.g. 5m, waits for the rate limit and retries included; a wait or an attempt that would end later fails at once (none by default)',
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

/** `30s`, `500ms`, `2m`, `1h` or a number of seconds, as milliseconds (duration.ts); undefined when unreadable or not positive. */
export function parseDuration(text: string): number | undefined {
  const ms = parseAnyDuration(text);
  return ms !== undefined && ms > 0 && Number.isFinite(ms) ? ms : undefined;
}

function readDuration(text: string, flag: string, variable: string): number {
  const ms = parseDuration(text);
  if (ms === undefined) throw new CliError('bad_duration', `${sourceOf(flag, variable)} '${text}' is not a duration; use e.g. 30s, 500ms or 2m`);
  return ms;
}

/** Client options for how requests travel: time limits, and for a remote API its proxy and CAs. */
export type TransportOptions = Pick<ClientOptions, 'timeoutMs' | 'deadlineMs' | 'proxy' | 'ca'>;

/**
 * The transport of one command run. `apiUrl` is undefined for the embedded server on
 * 127.0.0.1, which is never reached through a proxy and needs no CA. The deadline starts when
 * the client is made.
 */
export async function transportOptions(flags: TransportFlagValues, apiUrl: string | undefined): Promise<TransportOptions> {
  const timeoutMs = readDuration(flags.timeout ?? DEFAULT_TIMEOUT, 'timeout', 'GATEHOUSE_TIMEOUT');
  const deadline = flags.deadline === undefined ? {} : { deadlineMs: readDuration(flags.deadline, 'deadline', 'GATEHOUSE_DEADLINE') };
  if (apiUrl === undefined) return { timeoutMs, ...deadline };
  const proxy = proxyFor(apiUrl);
  // Node's `tls` (with `http2`, some 3 ms to load) only with --ca-file: undici loads it itself
  // for an https:// URL, and a plan over http:// needs neither.
  const ca = flags['ca-file'] ? [...(await import('node:tls')).rootCertificates, await readCaFile(flags['ca-file'])] : undefined;
  return { timeoutMs, ...deadline, ...(proxy ? { proxy } : {}), ...(ca ? { ca } : {}) };
}

/** The proxy for `apiUrl` from the process environment (see the module's comment), checked; undefined for none. */
export function proxyFor(apiUrl: string): string | undefined {
  const proxy = getProxyForUrl(apiUrl);
  if (!proxy) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(proxy);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') {
    // Never the value itself: a proxy URL may hold a password.
    throw new CliError(
      'bad_proxy',
      `the proxy set for ${apiUrl} (HTTPS_PROXY, HTTP_PROXY or ALL_PROXY) is not an http:// or https:// URL; fix the variable, or name the API's host in NO_PROXY`,
    );
  }
  return proxy;
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
