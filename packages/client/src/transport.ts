/**
 * The generic core of the client: one `request(method, path, body)` that every typed accessor
 * uses. It adds the key and version headers, holds a client-side rate limit, retries what is
 * safe to retry (see `retry.ts`; a DELETE retried after a lost answer that then finds the
 * object gone counts as done), turns every failure into a `GatehouseApiError`, and reports
 * each attempt to an optional hook and a counter (tests and the plan count requests with it).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import PQueue from 'p-queue';
import type { Dispatcher } from 'undici';
import { GatehouseApiError } from './errors.js';
import { DEFAULT_RETRY, parseRetryAfter, retryDelay, shouldRetry, type RetryOptions } from './retry.js';
import { Agent, AttemptTimedOut, exchange, type Answer } from './undici.js';

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
  /** Off unless given. */
  rateLimit?: RateLimitOptions;
  /** Requests in flight at once. Default 10. */
  concurrency?: number;
  /**
   * Longest wait for one attempt, from sending to the end of the answer; also the connect,
   * headers and body timeouts of the client's own connection pool. Default 30,000 ms.
   */
  timeoutMs?: number;
  /**
   * Cancels every request of this client when aborted: a deadline for a whole run
   * (`AbortSignal.timeout(ms)`), or a Ctrl-C. Requests waiting, in flight or between retries
   * fail with `deadline_exceeded` (a timeout's abort) or `aborted`, never retried.
   */
  signal?: AbortSignal;
  /** Called after every attempt (retries included). Must not throw. */
  onRequest?: (event: RequestEvent) => void;
  /** Replaces the connection pool (tests inject faults or mocks). */
  dispatcher?: Dispatcher;
  /** Randomness of the backoff jitter; tests pin it. */
  random?: () => number;
}

export interface RequestOptions {
  body?: unknown;
  signal?: AbortSignal;
}

/** Counts of attempts made so far, by method. */
export interface RequestCounts {
  total: number;
  byMethod: Record<Method, number>;
}

export class Transport {
  readonly baseUrl: string;
  readonly #base: URL;
  /** The base URL's origin, and its path without the final slash (`''` at the root). */
  readonly #origin: string;
  readonly #pathPrefix: string;
  readonly #apiKey: string;
  readonly #retry: Required<RetryOptions>;
  readonly #queue: PQueue;
  readonly #dispatcher: Dispatcher;
  readonly #ownsDispatcher: boolean;
  readonly #options: ClientOptions;
  readonly #timeoutMs: number;
  readonly #counts: RequestCounts = { total: 0, byMethod: { GET: 0, POST: 0, PATCH: 0, PUT: 0, DELETE: 0 } };

  constructor(options: ClientOptions) {
    this.#options = options;
    this.#base = new URL(options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`);
    this.baseUrl = this.#base.href.replace(/\/$/, '');
    this.#origin = this.#base.origin;
    this.#pathPrefix = this.#base.pathname.replace(/\/$/, '');
    this.#apiKey = options.apiKey;
    this.#retry = { ...DEFAULT_RETRY, ...options.retry };
    const concurrency = options.concurrency ?? 10;
    this.#queue = new PQueue({
      concurrency,
      ...(options.rateLimit
        ? { intervalCap: options.rateLimit.requests, interval: options.rateLimit.intervalMs, strict: true }
        : {}),
    });
    const timeout = (this.#timeoutMs = options.timeoutMs ?? 30_000);
    this.#ownsDispatcher = options.dispatcher === undefined;
    this.#dispatcher =
      options.dispatcher ?? new Agent({ connections: concurrency, headersTimeout: timeout, bodyTimeout: timeout, connectTimeout: timeout });
  }

  /** Attempts made so far (a retried request counts once per attempt). */
  get counts(): RequestCounts {
    return { total: this.#counts.total, byMethod: { ...this.#counts.byMethod } };
  }

  /**
   * Sends a request and returns the parsed JSON answer (undefined for 204). `path` is relative
   * to the base URL (`/ip_policies?limit=100`) or an absolute URL the API returned
   * (`next_page_uri`), which is re-aimed at this client's base URL.
   */
  async request<T>(method: Method, path: string, requestOptions: RequestOptions = {}): Promise<T> {
    const relative = this.relativePath(path);
    const baseUrl = this.baseUrl;
    const signals = [requestOptions.signal, this.#options.signal].filter((s): s is AbortSignal => s !== undefined);
    const signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
    const options: RequestOptions = { ...requestOptions, ...(signal ? { signal } : {}) };
    let mayHaveRun = false;
    for (let attempt = 1; ; attempt++) {
      let started = performance.now();
      let sent = false;
      let status: number | undefined;
      try {
        const result = await this.#queue.add(() => {
          sent = true;
          started = performance.now();
          return this.#send<T>(method, relative, options, attempt);
        }, {
          ...(options.signal ? { signal: options.signal } : {}),
        });
        status = result.status;
        this.#report({ method, path: relative, attempt, status, durationMs: performance.now() - started, willRetry: false, ...(result.operationId ? { operationId: result.operationId } : {}) });
        return result.body;
      } catch (caught) {
        const error = caught instanceof GatehouseApiError ? caught : classify(caught, method, relative, attempt, baseUrl, this.#options.signal);
        if (!sent) {
          // Aborted while waiting for the rate limit: nothing went out, nothing to count.
          const deadline = isDeadline(this.#options.signal);
          throw new GatehouseApiError({
            method,
            path: relative,
            baseUrl,
            status: undefined,
            errorCode: deadline ? 'deadline_exceeded' : 'aborted',
            msg: deadline ? 'the deadline passed before it was sent' : 'aborted before it was sent',
            attempts: attempt - 1,
          });
        }
        if (method === 'DELETE' && mayHaveRun && error.status === 404) {
          // An earlier attempt whose answer was lost or failed deleted it: the goal is reached.
          this.#report({ method, path: relative, attempt, status: 404, durationMs: performance.now() - started, willRetry: false });
          return undefined as T;
        }
        mayHaveRun ||= error.outcomeUnknown || (error.status !== undefined && error.status >= 500);
        const retry = attempt < this.#retry.maxAttempts && shouldRetry(method, error);
        this.#report({
          method,
          path: relative,
          attempt,
          status: error.status,
          durationMs: performance.now() - started,
          error,
          willRetry: retry,
          ...(error.operationId ? { operationId: error.operationId } : {}),
        });
        if (!retry) throw error;
        try {
          await sleep(retryDelay(attempt, error, this.#retry, this.#options.random), undefined, options.signal ? { signal: options.signal } : {});
        } catch {
          // Cancelled between attempts: the last failure stands, marked as the deadline's.
          if (isDeadline(this.#options.signal)) {
            throw new GatehouseApiError({ method, path: relative, baseUrl, status: error.status, errorCode: 'deadline_exceeded', msg: `the deadline passed while waiting to retry after: ${error.msg}`, attempts: attempt, outcomeUnknown: mayHaveRun });
          }
          throw error;
        }
      }
    }
  }

  /** `path` relative to the base URL; absolute URLs under another origin keep only path and query. */
  relativePath(path: string): string {
    if (!/^https?:\/\//i.test(path)) return path.startsWith('/') ? path : `/${path}`;
    const url = new URL(path);
    const prefix = this.#base.pathname.replace(/\/$/, '');
    const pathname = prefix && url.pathname.startsWith(`${prefix}/`) ? url.pathname.slice(prefix.length) : url.pathname;
    return `${pathname}${url.search}`;
  }

  /** Waits for requests in flight and closes the connections this client opened. */
  async close(): Promise<void> {
    await this.#queue.onIdle();
    if (this.#ownsDispatcher) await this.#dispatcher.close();
  }

  #report(event: RequestEvent): void {
    this.#counts.total++;
    this.#counts.byMethod[event.method]++;
    this.#options.onRequest?.(event);
  }

  /**
   * The path and query to send for `path` (relative to the base URL, starting with `/`): the
   * base URL's path and `path`, resolved as a URL relative to the base URL would be. Paths of
   * plain characters without dot segments (every path the client makes) are joined as they
   * are; anything else goes through the URL parser (percent-encoding, `.` and `..` segments).
   */
  #target(path: string): string {
    if (PLAIN_PATH.test(path) && !DOT_SEGMENT.test(path)) return `${this.#pathPrefix}${path}`;
    const url = new URL(path.replace(/^\//, ''), this.#base);
    return `${url.pathname}${url.search}`;
  }

  async #send<T>(method: Method, path: string, options: RequestOptions, attempt: number): Promise<{ status: number; body: T; operationId?: string }> {
    const hasBody = options.body !== undefined;
    let answer: Answer;
    try {
      // The attempt's own limit, whatever the dispatcher's timeouts (an injected one has its
      // own): a timer `exchange` clears when the attempt ends.
      answer = await exchange(this.#dispatcher, this.#origin, this.#target(path), {
        method,
        headers: {
          authorization: `Bearer ${this.#apiKey}`,
          'service-version': SERVICE_VERSION,
          accept: 'application/json',
          ...(hasBody ? { 'content-type': 'application/json' } : {}),
        },
        ...(hasBody ? { body: JSON.stringify(options.body) } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
        timeoutMs: this.#timeoutMs,
      });
    } catch (error) {
      if (error instanceof AttemptTimedOut) {
        throw new GatehouseApiError({
          method,
          path,
          baseUrl: this.baseUrl,
          status: undefined,
          errorCode: 'timeout',
          msg: `no complete answer within ${this.#timeoutMs} ms`,
          attempts: attempt,
          outcomeUnknown: true,
        });
      }
      throw error;
    }
    const { status, text } = answer;
    const header = answer.header('operation-id');
    const operationId = typeof header === 'string' && header !== '' ? { operationId: header } : {};
    if (status >= 400) throw errorFromResponse(method, path, this.baseUrl, status, text, answer.header('retry-after'), attempt);
    if (status === 204 || text === '') return { status, body: undefined as T, ...operationId };
    try {
      return { status, body: JSON.parse(text) as T, ...operationId };
    } catch {
      throw new GatehouseApiError({ method, path, baseUrl: this.baseUrl, status, errorCode: 'invalid_response', msg: `answer ${status} is not JSON`, attempts: attempt });
    }
  }
}

/** A path and query of characters the URL parser keeps as they are. */
const PLAIN_PATH = /^\/[A-Za-z0-9_.~\-/]*(?:\?[A-Za-z0-9_.~\-=&%+,:/]+)?$/;
/** A `.` or `..` path segment, which the URL parser resolves. */
const DOT_SEGMENT = /\/\.\.?(?:[/?]|$)/;

function errorFromResponse(
  method: string,
  path: string,
  baseUrl: string,
  status: number,
  text: string,
  retryAfterHeader: string | string[] | undefined,
  attempt: number,
): GatehouseApiError {
  const retryAfter = parseRetryAfter(retryAfterHeader);
  let envelope: { error_code?: unknown; msg?: unknown; details?: unknown } = {};
  try {
    envelope = JSON.parse(text) as typeof envelope;
  } catch {
    // Not the API's envelope (a proxy's page, an empty body): keep the status.
  }
  const details = envelope.details && typeof envelope.details === 'object' ? (envelope.details as Record<string, unknown>) : {};
  return new GatehouseApiError({
    method,
    path,
    baseUrl,
    status,
    errorCode: typeof envelope.error_code === 'string' ? envelope.error_code : `http_${status}`,
    msg: typeof envelope.msg === 'string' ? envelope.msg : `the server answered ${status} without an error envelope`,
    details,
    ...(retryAfter !== undefined ? { retryAfter } : {}),
    attempts: attempt,
  });
}

const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT']);
const TIMEOUTS = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

/**
 * Node's and OpenSSL's codes of a failed TLS handshake: plain HTTP at an https:// port
 * (`ERR_SSL_WRONG_VERSION_NUMBER`), a certificate nobody trusts, or one for another name.
 */
const TLS_FAILURES = /^(ERR_SSL_|ERR_TLS_|EPROTO$|UNABLE_TO_|SELF_SIGNED_CERT|DEPTH_ZERO_SELF_SIGNED_CERT|CERT_|HOSTNAME_MISMATCH)/;

/** Whether `signal` was aborted by `AbortSignal.timeout` (a deadline), not by a caller. */
function isDeadline(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true && (signal.reason as { name?: string } | undefined)?.name === 'TimeoutError';
}

/** A failure before an answer arrived, as a client error; says whether the request may have run. */
function classify(error: unknown, method: string, path: string, attempt: number, baseUrl: string, clientSignal: AbortSignal | undefined): GatehouseApiError {
  const code = errorCodeOf(error);
  const name = (error as { name?: string } | undefined)?.name;
  if (isDeadline(clientSignal)) {
    return new GatehouseApiError({ method, path, baseUrl, status: undefined, errorCode: 'deadline_exceeded', msg: 'the deadline passed before an answer arrived', attempts: attempt, outcomeUnknown: true });
  }
  if (name === 'AbortError' || code === 'UND_ERR_ABORTED' || code === 'ABORT_ERR') {
    return new GatehouseApiError({ method, path, baseUrl, status: undefined, errorCode: 'aborted', msg: 'the request was aborted', attempts: attempt, outcomeUnknown: true });
  }
  if (code !== undefined && NOT_SENT.has(code)) {
    return new GatehouseApiError({ method, path, baseUrl, status: undefined, errorCode: 'connection_refused', msg: `cannot connect (${code})`, attempts: attempt });
  }
  if (code !== undefined && TLS_FAILURES.test(code)) {
    return new GatehouseApiError({ method, path, baseUrl, status: undefined, errorCode: 'tls_error', msg: `TLS handshake failed (${code}: ${tlsReason(error)})`, attempts: attempt });
  }
  const timeout = code !== undefined && TIMEOUTS.has(code);
  return new GatehouseApiError({
    method,
    path,
    baseUrl,
    status: undefined,
    errorCode: timeout ? 'timeout' : 'network_error',
    msg: `${timeout ? 'no answer in time' : 'connection failed'} (${code ?? (error as Error)?.message ?? 'unknown'})`,
    attempts: attempt,
    outcomeUnknown: true,
  });
}

/**
 * Why the handshake failed, in words: Node's message for certificate failures ("unable to
 * verify the first certificate", "Hostname/IP does not match certificate's altnames: ..."),
 * and a sentence instead of OpenSSL's internal record line when the server does not speak TLS.
 */
function tlsReason(error: unknown): string {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth++) {
    const { code, message } = current as { code?: unknown; message?: unknown };
    if (code === 'ERR_SSL_WRONG_VERSION_NUMBER') return 'the server does not speak TLS at this port';
    if (typeof code === 'string' && TLS_FAILURES.test(code) && typeof message === 'string' && !message.includes('SSL routines')) return message.split('\n')[0]!;
    current = (current as { cause?: unknown }).cause;
  }
  return 'no details';
}

function errorCodeOf(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
