/**
 * What a client is made with and what it reports: its options, a request's options, the event
 * of each attempt and the counts. Types only (and the version header's value), so that callers
 * and tests can name them without the transport.
 */
import type { Dispatcher } from 'undici';
import type { GatehouseApiError } from './errors.js';
import type { RetryOptions } from './retry.js';

export const SERVICE_VERSION = '2';

export type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/** Requests allowed per interval, counted over a rolling window (the service's own rule). */
export interface RateLimitOptions {
  requests: number;
  intervalMs: number;
}

/** One attempt, as reported to `onRequest` once it has finished. */
export interface RequestEvent {
  method: Method;
  /** Path and query relative to the base URL. */
  path: string;
  /** 1 for the first attempt. */
  attempt: number;
  /** HTTP status; undefined when no answer arrived. */
  status: number | undefined;
  durationMs: number;
  /** How long the attempt waited for its turn under the rate limit and the cap on requests in flight. */
  waitedMs: number;
  /** Set when the attempt failed (an error status or no answer). */
  error?: GatehouseApiError;
  /** The server's id of this request: the `operation-id` header or the error's `details.operation_id`. */
  operationId?: string;
  /** Whether another attempt follows. */
  willRetry: boolean;
}

export interface ClientOptions {
  /** The API's base URL, e.g. http://127.0.0.1:8484. */
  baseUrl: string;
  apiKey: string;
  retry?: RetryOptions;
  /**
   * The budget requests are paced to: at most `requests` attempts, retries included, in any
   * rolling `intervalMs`. Default: the service's documented budget per account
   * (`SERVICE_BUDGET`, 120 per 60 s), which everything using the account shares (two processes
   * at once: give each its part). `false`: not paced, for a server without a limit (the
   * embedded reference server). Either way the server's own word (429, `Retry-After`,
   * rate-limit headers) is followed.
   */
  rateLimit?: RateLimitOptions | false;
  /** Requests in flight at once. Default `SERVICE_CONCURRENCY`. */
  concurrency?: number;
  /**
   * Longest wait for one attempt: for the first byte of the answer, and for the whole of it;
   * connecting waits at most `CONNECT_TIMEOUT_MS` of it. Default `DEFAULT_TIMEOUT_MS` (10 s).
   */
  timeoutMs?: number;
  /** Longest time for all the requests of this client together, counted from its creation (a command's `--deadline`). */
  deadlineMs?: number;
  /**
   * Cancels every request of this client when aborted (a Ctrl-C): requests waiting, in flight or
   * between retries fail with `aborted` (`deadline_exceeded` for an `AbortSignal.timeout`).
   */
  signal?: AbortSignal;
  /** URL of an HTTP(S) proxy to reach the API through (see `dispatcher.ts`); ignored with `dispatcher`. */
  proxy?: string;
  /** PEM certificates to trust for an https:// API, besides Node's own; ignored with `dispatcher`. */
  ca?: string[];
  /** Called after every attempt (retries included). Must not throw. */
  onRequest?: (event: RequestEvent) => void;
  /** Replaces the connection pool (tests inject faults or mocks); its own timeouts apply besides the client's. */
  dispatcher?: Dispatcher;
  /** Randomness of the backoff jitter; tests pin it. */
  random?: () => number;
}

export interface RequestOptions {
  body?: unknown;
  signal?: AbortSignal;
  /**
   * For a POST: finds what an attempt whose outcome is unknown (no answer, or a 5xx) may have
   * created. The client calls it before sending the POST again; what it returns (not undefined)
   * is taken as the request's answer, undefined sends the POST again. Without it, such a POST
   * is not tried again: it fails with `outcomeUnknown`, and the caller must look before creating.
   */
  recover?: () => Promise<unknown>;
}

/** Counts of attempts made so far, by method. */
export interface RequestCounts {
  total: number;
  byMethod: Record<Method, number>;
  /** Of `total`, the attempts the API refused with 429 (too many requests, or too many at once). */
  rateLimited: number;
}
