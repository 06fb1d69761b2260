/**
 * The client's retry policy, the only one gatehouse has: which failed attempts are tried again,
 * how often, and how long to wait in between. The engine adds no retries of its own; it only
 * tells the client how to find an object whose create lost its answer (`RequestOptions.recover`).
 *
 * What is tried again: 429, 5xx and failures before an answer (a reset, a timeout, a refused
 * connection, a temporary DNS failure), never another 4xx, and never a failure that would fail
 * the same way (a TLS handshake, a proxy that refuses or drops the tunnel, a name that does not
 * resolve, a body that is not JSON).
 *
 * For which methods: GET, PUT, DELETE and PATCH always. In this API a PATCH replaces each given
 * field whole and never increments or appends (service-behaviour.md, "Updates"), so sending the
 * same body twice leaves the same object. A POST creates an object each time it is carried out:
 * it is tried again at once when the server certainly did not carry it out (a 429, refused
 * before handling; a connection never made), and after a failure that may have carried it out
 * (no answer, a 5xx) only when the caller can look for what it made (`recover`), which the
 * client asks first.
 *
 * How long: exponential backoff with full jitter (a random wait between 0 and
 * base * 2^(attempt-1), capped), so that clients that failed together do not retry together.
 * What the server says (`Retry-After`, rate-limit headers) the pacer holds every request to
 * (`pace.ts`), so a 429 waits there, not here.
 *
 * How many: `maxAttempts` in all. With the defaults, a request against an API that accepts
 * connections and never answers fails after `worstCaseMs` (under a minute; see its test).
 */
import type { GatehouseApiError } from './errors.js';

export interface RetryOptions {
  /** Attempts in all, the first included. Default 5. */
  maxAttempts?: number;
  /** First backoff ceiling in milliseconds; doubled each attempt. Default 250. */
  baseDelayMs?: number;
  /** Longest backoff. Default 2,000. */
  maxDelayMs?: number;
}

export const DEFAULT_RETRY: Required<RetryOptions> = { maxAttempts: 5, baseDelayMs: 250, maxDelayMs: 2_000 };

/**
 * Longest wait for one attempt by default: for connecting (at most `CONNECT_TIMEOUT_MS` of it),
 * for the first byte of the answer and for the whole answer. The service answers in well under
 * a second; ten seconds is a server in trouble, and the attempt is tried again.
 */
export const DEFAULT_TIMEOUT_MS = 10_000;

/** Longest wait for a connection (TCP and TLS, or a proxy's tunnel), whatever the timeout. */
export const CONNECT_TIMEOUT_MS = 10_000;

const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'PATCH']);

/** The failure may have carried the request out: no answer, or a 5xx after it arrived. */
export const mayHaveRun = (error: GatehouseApiError): boolean => error.outcomeUnknown || (error.status !== undefined && error.status >= 500);

/**
 * Whether a failed attempt of `method` may be sent again; `canRecover`: the caller can find what
 * a POST that may have run made (`RequestOptions.recover`).
 */
export function shouldRetry(method: string, error: GatehouseApiError, canRecover = false): boolean {
  if (!error.retryable) return false;
  if (IDEMPOTENT.has(method)) return true;
  // Not idempotent: when the server certainly did nothing, or what it did can be found.
  return error.status === 429 || error.errorCode === 'connection_refused' || canRecover;
}

/** The wait before attempt `attempt + 1` (attempt counts from 1): full jitter under an exponential ceiling. */
export function backoffDelay(attempt: number, options: Required<RetryOptions>, random = Math.random): number {
  const ceiling = Math.min(options.baseDelayMs * 2 ** (attempt - 1), options.maxDelayMs);
  return Math.round(random() * ceiling);
}

/**
 * The longest one request can take against an API that accepts connections and never answers:
 * every attempt waits out `timeoutMs`, with the longest backoff between two.
 */
export function worstCaseMs(timeoutMs: number, options: Required<RetryOptions> = DEFAULT_RETRY): number {
  let total = 0;
  for (let attempt = 1; attempt <= options.maxAttempts; attempt++) {
    total += timeoutMs;
    if (attempt < options.maxAttempts) total += backoffDelay(attempt, options, () => 1);
  }
  return total;
}
