/**
 * The generic core of the client: one `request(method, path, options)` that every typed accessor
 * uses. It adds the key and version headers, paces requests to the API's budget (`pace.ts`),
 * bounds each attempt in time, retries what is safe to retry (`retry.ts`; a create whose
 * answer was lost only after asking the caller's `recover` what it made; a DELETE retried after
 * a lost answer that then finds the object gone counts as done), turns every failure into a
 * `GatehouseApiError` (`classify.ts`), and reports each attempt to an optional hook and a
 * counter (tests and the plan count requests with it).
 *
 * Time: each attempt ends within `timeoutMs` (connecting within `CONNECT_TIMEOUT_MS` of it);
 * a request makes at most `maxAttempts`; an API that answers nothing is given up on after one
 * request's worth of attempts, whatever the requests that follow (`silence.ts`); and nothing
 * outlives `deadlineMs`: a wait that would end past it fails at once, an attempt in flight is cut
 * at it. The deadline is a time, not a shared AbortSignal: a signal shared by every request
 * would gather a listener per request in flight (Node warns past ten).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Dispatcher } from 'undici';
import { classify, concurrencyRefusal, errorFromResponse, type AttemptPlace } from './classify.js';
import { createDispatcher, withoutCredentials } from './dispatcher.js';
import { GatehouseApiError } from './errors.js';
import { Pacer, PaceRefused, SERVICE_BUDGET, SERVICE_CONCURRENCY, type Slot } from './pace.js';
import { limitsOf, MAX_SERVER_WAIT_MS } from './rate-headers.js';
import { backoffDelay, DEFAULT_RETRY, DEFAULT_TIMEOUT_MS, mayHaveRun, shouldRetry, type RetryOptions } from './retry.js';
import {
  SERVICE_VERSION,
  type ClientOptions,
  type Method,
  type RateLimitOptions,
  type RequestCounts,
  type RequestEvent,
  type RequestOptions,
} from './client-options.js';
import { Silence } from './silence.js';
import { AttemptTimedOut, exchange, type Answer } from './undici.js';

/** An attempt's outcome: an answer's body, or a failure (`sent: false` when nothing went out). */
type Outcome<T> =
  | { ok: true; body: T; status: number; operationId?: string; durationMs: number; waitedMs: number }
  | { ok: false; error: GatehouseApiError; sent: boolean; durationMs: number; waitedMs: number };

export class Transport {
  readonly baseUrl: string;
  readonly #base: URL;
  /** The base URL's origin. */
  readonly #origin: string;
  readonly #apiKey: string;
  readonly #retry: Required<RetryOptions>;
  readonly #pacer: Pacer;
  readonly #silence: Silence;
  readonly #dispatcher: Dispatcher;
  readonly #ownsDispatcher: boolean;
  readonly #options: ClientOptions;
  readonly #timeoutMs: number;
  /** `performance.now()` at which every request must have ended, if there is a deadline. */
  readonly #deadline: number | undefined;
  readonly #proxy: string | undefined;
  /** Per-request controllers, aborted together by the client's signal (its one listener). */
  readonly #controllers = new Set<AbortController>();
  #active = 0;
  #idle: (() => void)[] = [];
  readonly #counts: RequestCounts = { total: 0, byMethod: { GET: 0, POST: 0, PATCH: 0, PUT: 0, DELETE: 0 }, rateLimited: 0 };
  /** Time from send to answer of the attempts so far, a moving average (ms); undefined before the first. */
  #typicalMs: number | undefined;

  constructor(options: ClientOptions) {
    this.#options = options;
    this.#base = new URL(options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`);
    this.baseUrl = this.#base.href.replace(/\/$/, '');
    this.#origin = this.#base.origin;
    this.#apiKey = options.apiKey;
    this.#retry = { ...DEFAULT_RETRY, ...options.retry };
    const concurrency = options.concurrency ?? SERVICE_CONCURRENCY;
    const budget =
      options.rateLimit === false
        ? undefined
        : options.rateLimit
          ? { requests: options.rateLimit.requests, windowMs: options.rateLimit.intervalMs }
          : SERVICE_BUDGET;
    this.#pacer = new Pacer({ concurrency, ...(budget ? { budget } : {}) });
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#silence = new Silence(this.#retry.maxAttempts * this.#timeoutMs);
    this.#deadline = options.deadlineMs === undefined ? undefined : performance.now() + options.deadlineMs;
    this.#ownsDispatcher = options.dispatcher === undefined;
    this.#proxy = options.dispatcher === undefined && options.proxy ? withoutCredentials(options.proxy) : undefined;
    this.#dispatcher =
      options.dispatcher ??
      createDispatcher({
        connections: concurrency,
        timeoutMs: this.#timeoutMs,
        ...(options.proxy ? { proxy: options.proxy } : {}),
        ...(options.ca ? { ca: options.ca } : {}),
      });
    const { signal } = options;
    signal?.addEventListener(
      'abort',
      () => {
        for (const controller of this.#controllers) controller.abort(signal.reason);
      },
      { once: true },
    );
  }

  /** Attempts made so far (a retried request counts once per attempt). */
  get counts(): RequestCounts {
    return { total: this.#counts.total, byMethod: { ...this.#counts.byMethod }, rateLimited: this.#counts.rateLimited };
  }

  /**
   * About how long from now `requests` more requests take to be answered at this client's pace:
   * its budget as spent so far, the cap on requests in flight, what the server said, and the
   * time its attempts have taken (`Pacer.estimateMs`). For progress and ETA: an estimate.
   */
  estimateMs(requests: number): number {
    return this.#pacer.estimateMs(requests, this.#typicalMs ?? 0);
  }

  /** The budget requests are paced to (undefined: not paced) and the cap on requests in flight now. */
  get pace(): { budget: RateLimitOptions | undefined; concurrency: number } {
    const budget = this.#pacer.budget;
    return { budget: budget ? { requests: budget.requests, intervalMs: budget.windowMs } : undefined, concurrency: this.#pacer.concurrency };
  }

  /**
   * Sends a request and returns the parsed JSON answer (undefined for 204). `path` is relative
   * to the base URL (`/ip_policies?limit=100`) or an absolute URL the API returned
   * (`next_page_uri`), which is re-aimed at this client's base URL.
   */
  async request<T>(method: Method, path: string, options: RequestOptions = {}): Promise<T> {
    const place: AttemptPlace = { method, path: this.relativePath(path), baseUrl: this.baseUrl, attempt: 0, proxy: this.#proxy };
    const cancel = this.#cancellation(options.signal);
    this.#active += 1;
    try {
      let lost = false;
      for (let attempt = 1; ; attempt++) {
        const outcome = await this.#attempt<T>({ ...place, attempt }, options.body, cancel.signal);
        const event = { method, path: place.path, attempt, durationMs: outcome.durationMs, waitedMs: outcome.waitedMs };
        if (outcome.ok) {
          this.#report({ ...event, status: outcome.status, willRetry: false, ...(outcome.operationId ? { operationId: outcome.operationId } : {}) });
          return outcome.body;
        }
        const { error } = outcome;
        if (!outcome.sent) throw error;
        if (method === 'DELETE' && lost && error.status === 404) {
          // An earlier attempt whose answer was lost or failed deleted it: the goal is reached.
          this.#report({ ...event, status: 404, willRetry: false });
          return undefined as T;
        }
        lost ||= mayHaveRun(error);
        const decision = this.#retryDecision(method, error, attempt, lost, options.recover !== undefined);
        const retry = decision === 'retry';
        this.#report({ ...event, status: error.status, error, willRetry: retry, ...(error.operationId ? { operationId: error.operationId } : {}) });
        if (decision === 'silent') throw this.#gaveUp(error);
        if (!retry) throw error;
        await this.#backOff(place, attempt, error, cancel.signal);
        if (method === 'POST' && lost) {
          const found = await options.recover!();
          if (found !== undefined) return found as T;
        }
      }
    } finally {
      cancel.dispose();
      this.#active -= 1;
      if (this.#active === 0) for (const resolve of this.#idle.splice(0)) resolve();
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
    if (this.#active > 0) await new Promise<void>((resolve) => this.#idle.push(resolve));
    // Every request of ours has ended; anything undici still holds was given up on (its time
    // ran out before a connection was made): dropped, not waited for.
    if (this.#ownsDispatcher) await this.#dispatcher.destroy();
  }

  /**
   * Whether a failed attempt is tried again: `retry`, `stop`, or `silent` when it would be but
   * the API has answered nothing for too long. `lost`: an attempt so far may have been carried
   * out; `canRecover`: the caller can find what a POST made.
   */
  #retryDecision(method: Method, error: GatehouseApiError, attempt: number, lost: boolean, canRecover: boolean): 'retry' | 'stop' | 'silent' {
    if (attempt >= this.#retry.maxAttempts || !shouldRetry(method, error, canRecover)) return 'stop';
    // A create that may have been carried out is sent again only after looking for what it made.
    if (method === 'POST' && lost && !canRecover) return 'stop';
    // A server that asks for a longer wait than a minute is not waited for.
    if (error.retryAfter !== undefined && error.retryAfter * 1000 > MAX_SERVER_WAIT_MS) return 'stop';
    return this.#silence.remainingMs() > 0 ? 'retry' : 'silent';
  }

  /** `error`, saying that no further attempt is made because the API has been silent too long. */
  #gaveUp(error: GatehouseApiError): GatehouseApiError {
    if (error.msg.includes(this.#silent())) return error;
    return new GatehouseApiError({
      method: error.method,
      path: error.path,
      ...(error.baseUrl !== undefined ? { baseUrl: error.baseUrl } : {}),
      status: error.status,
      errorCode: error.errorCode,
      msg: `${error.msg}; ${this.#silent()}`,
      details: error.details,
      attempts: error.attempts,
      outcomeUnknown: error.outcomeUnknown,
    });
  }

  /**
   * The wait after a failed attempt. After a 429 the pacer already holds every request for as
   * long as the server said; one that said nothing holds them for the backoff.
   */
  async #backOff(place: AttemptPlace, attempt: number, error: GatehouseApiError, signal: AbortSignal | undefined): Promise<void> {
    const delay = backoffDelay(attempt, this.#retry, this.#options.random);
    if (error.status === 429) {
      if (error.retryAfter === undefined) this.#pacer.hold(delay);
      return;
    }
    if (this.#deadline !== undefined && performance.now() + delay >= this.#deadline) {
      throw this.#failure(
        { ...place, attempt: attempt + 1 },
        'deadline_exceeded',
        `the deadline passes before the next attempt; the last one failed: ${error.msg}`,
        false,
        mayHaveRun(error),
      );
    }
    try {
      await sleep(delay, undefined, signal ? { signal } : {});
    } catch {
      throw this.#cancelled({ ...place, attempt: attempt + 1 }, signal, mayHaveRun(error));
    }
  }

  /** One attempt: its turn, the exchange, its answer (errors included) as an outcome; never throws. */
  async #attempt<T>(place: AttemptPlace, body: unknown, signal: AbortSignal | undefined): Promise<Outcome<T>> {
    const queued = performance.now();
    const failed = (error: GatehouseApiError, sent: boolean, started = queued, waitedMs = 0): Outcome<T> => ({
      ok: false,
      error,
      sent,
      durationMs: performance.now() - started,
      waitedMs,
    });
    if (signal?.aborted) return failed(this.#cancelled(place, signal, false), false);
    if (this.#silence.remainingMs() <= 0) {
      return failed(this.#failure(place, 'timeout', `not sent: ${this.#silent()}`, false), false);
    }
    let slot: Slot;
    try {
      slot = await this.#pacer.acquire(this.#deadline, signal);
    } catch (error) {
      if (error instanceof PaceRefused) return failed(this.#failure(place, 'deadline_exceeded', `not sent: ${error.message}`, false), false);
      return failed(this.#cancelled(place, signal, false), false);
    }
    const started = performance.now();
    const waitedMs = started - queued;
    // The attempt's time: its own limit, or less when the API's silence or the deadline ends first.
    const silenceLeft = this.#silence.remainingMs();
    const deadlineLeft = this.#deadline === undefined ? Infinity : this.#deadline - started;
    if (deadlineLeft <= 0) {
      slot.cancel();
      return failed(this.#failure(place, 'deadline_exceeded', 'not sent: the deadline passed', false), false);
    }
    const timeoutMs = Math.ceil(Math.min(this.#timeoutMs, silenceLeft, deadlineLeft));
    const cause = timeoutMs >= this.#timeoutMs ? 'timeout' : deadlineLeft <= silenceLeft ? 'deadline' : 'silence';
    this.#silence.sent();
    let answer: Answer;
    try {
      answer = await this.#exchange(place, body, signal, timeoutMs);
    } catch (error) {
      this.#silence.ended(false);
      slot.release();
      if (error instanceof AttemptTimedOut) return failed(this.#timedOut(place, timeoutMs, cause), true, started, waitedMs);
      if (signal?.aborted) return failed(this.#cancelled(place, signal, true), true, started, waitedMs);
      return failed(classify(error, place), true, started, waitedMs);
    }
    this.#silence.ended(true);
    const limits = limitsOf(answer.header);
    const { status, text } = answer;
    const error = status >= 400 ? errorFromResponse(place, status, text, limits) : undefined;
    // A server's wait longer than a minute is not waited for (that request fails), nor held to.
    const held = limits.retryAfterMs === undefined ? {} : { retryAfterMs: Math.min(limits.retryAfterMs, MAX_SERVER_WAIT_MS) };
    slot.release({ ...limits, ...held, ...(error ? concurrencyRefusal(error) : {}) });
    if (error) return failed(error, true, started, waitedMs);
    const header = answer.header('operation-id');
    const operationId = typeof header === 'string' && header !== '' ? { operationId: header } : {};
    const done = { ok: true as const, status, durationMs: performance.now() - started, waitedMs, ...operationId };
    if (status === 204 || text === '') return { ...done, body: undefined as T };
    try {
      return { ...done, body: JSON.parse(text) as T };
    } catch {
      return failed(
        new GatehouseApiError({ ...where(place), status, errorCode: 'invalid_response', msg: `answer ${status} is not JSON`, attempts: place.attempt }),
        true,
        started,
        waitedMs,
      );
    }
  }

  #exchange(place: AttemptPlace, body: unknown, signal: AbortSignal | undefined, timeoutMs: number): Promise<Answer> {
    const hasBody = body !== undefined;
    return exchange(this.#dispatcher, this.#origin, this.#target(place.path), {
      method: place.method,
      headers: {
        authorization: `Bearer ${this.#apiKey}`,
        'service-version': SERVICE_VERSION,
        accept: 'application/json',
        ...(hasBody ? { 'content-type': 'application/json' } : {}),
      },
      ...(hasBody ? { body: JSON.stringify(body) } : {}),
      ...(signal ? { signal } : {}),
      timeoutMs,
    });
  }

  #report(event: RequestEvent): void {
    this.#counts.total++;
    this.#counts.byMethod[event.method]++;
    if (event.status === 429) this.#counts.rateLimited++;
    // An attempt that got no answer says nothing of how long answers take.
    if (event.status !== undefined) this.#typicalMs = this.#typicalMs === undefined ? event.durationMs : 0.8 * this.#typicalMs + 0.2 * event.durationMs;
    this.#options.onRequest?.(event);
  }

  /**
   * A controller for one request, aborted by the client's signal or the request's own; every
   * wait of the request listens to it, one at a time. None when there is neither signal.
   */
  #cancellation(requestSignal: AbortSignal | undefined): { signal: AbortSignal | undefined; dispose(): void } {
    const clientSignal = this.#options.signal;
    if (!clientSignal && !requestSignal) return { signal: undefined, dispose: () => undefined };
    const controller = new AbortController();
    const fromRequest = () => controller.abort(requestSignal!.reason);
    if (clientSignal?.aborted) controller.abort(clientSignal.reason);
    else if (requestSignal?.aborted) fromRequest();
    this.#controllers.add(controller);
    requestSignal?.addEventListener('abort', fromRequest, { once: true });
    return {
      signal: controller.signal,
      dispose: () => {
        this.#controllers.delete(controller);
        requestSignal?.removeEventListener('abort', fromRequest);
      },
    };
  }

  #timedOut(place: AttemptPlace, timeoutMs: number, cause: 'timeout' | 'silence' | 'deadline'): GatehouseApiError {
    const msg = {
      timeout: `no complete answer within ${timeoutMs} ms`,
      silence: `no answer: ${this.#silent()}`,
      deadline: 'the deadline passed before an answer arrived',
    }[cause];
    return this.#failure(place, cause === 'deadline' ? 'deadline_exceeded' : 'timeout', msg, true);
  }

  #silent(): string {
    const attempts = this.#retry.maxAttempts;
    return `the API has answered nothing for ${this.#silence.limitMs / 1000} s (${attempts} attempts' time), so the client gave up on it`;
  }

  /** Cancelled by a signal: the client's (`deadline_exceeded` for an `AbortSignal.timeout`) or the request's. */
  #cancelled(place: AttemptPlace, signal: AbortSignal | undefined, sent: boolean): GatehouseApiError {
    const deadline = (signal?.reason as { name?: string } | undefined)?.name === 'TimeoutError';
    const msg = sent
      ? deadline
        ? 'the deadline passed before an answer arrived'
        : 'the request was aborted'
      : deadline
        ? 'the deadline passed before it was sent'
        : 'aborted before it was sent';
    return this.#failure(place, deadline ? 'deadline_exceeded' : 'aborted', msg, sent);
  }

  /**
   * A request that ended without an answer: attempt `place.attempt` was sent (it counts, and may
   * have been carried out) or was given up before it was sent.
   */
  #failure(place: AttemptPlace, errorCode: string, msg: string, sent: boolean, outcomeUnknown = sent): GatehouseApiError {
    return new GatehouseApiError({ ...where(place), status: undefined, errorCode, msg, attempts: sent ? place.attempt : place.attempt - 1, outcomeUnknown });
  }

  /**
   * The path and query to send for `path` (relative to the base URL, starting with `/`): the
   * base URL's path and `path`, resolved as a URL relative to the base URL is (percent-encoding,
   * `.` and `..` segments).
   */
  #target(path: string): string {
    const url = new URL(path.replace(/^\//, ''), this.#base);
    return `${url.pathname}${url.search}`;
  }
}

const where = (place: AttemptPlace) => ({ method: place.method, path: place.path, baseUrl: place.baseUrl });
