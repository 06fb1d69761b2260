/**
 * The pace of a client's requests: a budget of requests per rolling window and a cap on requests
 * in flight, spent so that the API never has a reason to answer 429.
 *
 * The service allows about 120 requests per rolling 60 s per account and caps simultaneous
 * requests (`SERVICE_BUDGET`, `SERVICE_CONCURRENCY`); it counts every request it receives,
 * refusals and retries included. So the pacer counts every attempt, and keeps each one in the
 * window from the moment it is sent until `windowMs` after its answer ended: the service saw it
 * somewhere in between, so however long the request travelled, no `windowMs` span of the
 * service's clock ever holds more than `requests` of ours. (Counting from the send instead lets a
 * slow request's arrival and a fast one's a full window later fall into one window.) Unlike
 * fixed intervals (p-queue's `intervalCap`), which let a burst at the end of one interval and
 * another at the start of the next put twice the budget into one window, a rolling window never
 * does.
 *
 * What the server says overrides what the pacer assumes (`Answer`): `Retry-After` holds every
 * request until then; `RateLimit-Remaining`/`-Reset` (or `X-RateLimit-*`) says how many more the
 * server takes before its window frees, so a budget shared with other tools is not overrun; a
 * refusal for too many simultaneous requests lowers the cap.
 *
 * Waiters are served first come, first served. A waiter that cannot be served before its
 * `notAfter` time (a deadline) is refused as soon as that is known, rather than when it passes;
 * one whose signal aborts leaves the line.
 */

/** At most `requests` attempts in any rolling `windowMs`. */
export interface Budget {
  requests: number;
  windowMs: number;
}

/** The service's documented budget per account: 120 requests per rolling minute. */
export const SERVICE_BUDGET: Readonly<Budget> = { requests: 120, windowMs: 60_000 };

/**
 * Requests in flight at once. The service caps simultaneous requests per account without
 * documenting the number (its refusal, `ERR_NGROK_225`, names it); under a budget of two
 * requests a second, more in flight gain nothing but a faster first burst, and this is what
 * apply's parallelism defaults to. A refusal for too many simultaneous requests lowers it for
 * the rest of the run (`Answer.concurrencyRefused`).
 */
export const SERVICE_CONCURRENCY = 10;

/** What an answer told about the server's limits (see `rate-headers.ts`). */
export interface Answer {
  /** The server asked to wait this long before any further request (`Retry-After`). */
  retryAfterMs?: number;
  /** Requests the server still takes in its current window, and when that window frees. */
  remaining?: number;
  resetMs?: number;
  /** The server refused the request for too many simultaneous requests; its cap, if it said. */
  concurrencyRefused?: { limit?: number };
}

/** A granted request: release it when its attempt has ended, or cancel it if it was never sent. */
export interface Slot {
  /** How long the request waited for its turn, in ms. */
  readonly waitedMs: number;
  /** The attempt ended (answered or not); `answer` is what the server said about its limits. */
  release(answer?: Answer): void;
  /** The request was not sent after all: it does not count. */
  cancel(): void;
}

/** Why `acquire` gave no slot. */
export class PaceRefused extends Error {
  constructor(
    message: string,
    /** When the turn would have come, on the pacer's clock (Infinity: after requests in flight end). */
    readonly readyAt: number,
  ) {
    super(message);
    this.name = 'PaceRefused';
  }
}

export interface PacerOptions {
  /** Undefined: no budget (only the cap on requests in flight applies). */
  budget?: Budget;
  concurrency: number;
  /** The clock, in ms (monotonic); tests pass a fake one. */
  now?: () => number;
}

interface Waiter {
  notAfter: number;
  enqueued: number;
  resolve(slot: Slot): void;
  reject(error: Error): void;
  timer?: ReturnType<typeof setTimeout>;
}

interface Sent {
  /** When the attempt ended; Infinity while it is in flight. */
  end: number;
}

export class Pacer {
  readonly #budget: Budget | undefined;
  #concurrency: number;
  readonly #now: () => number;
  /** Attempts still in the window, in the order they were sent. */
  #sent: Sent[] = [];
  #inFlight = 0;
  #waiters: Waiter[] = [];
  /** No request before this time (the server's `Retry-After`). */
  #holdUntil = -Infinity;
  /** The server's own count: `remaining` more requests until `until`. */
  #server: { remaining: number; until: number } | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(options: PacerOptions) {
    if (options.budget && !(options.budget.requests >= 1 && options.budget.windowMs > 0))
      throw new RangeError('a budget needs at least 1 request per window of more than 0 ms');
    this.#budget = options.budget;
    this.#concurrency = Math.max(1, options.concurrency);
    this.#now = options.now ?? (() => performance.now());
  }

  get budget(): Budget | undefined {
    return this.#budget;
  }

  get concurrency(): number {
    return this.#concurrency;
  }

  /**
   * Waits for a turn: fewer requests in flight than the cap, room in the window, no hold. Rejects
   * with `PaceRefused` when the turn cannot come by `notAfter` (as soon as that is known), and
   * with the signal's reason when it aborts first.
   */
  acquire(notAfter = Infinity, signal?: AbortSignal): Promise<Slot> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<Slot>((resolve, reject) => {
      const onAbort = () => this.#remove(waiter, signal!.reason);
      const waiter: Waiter = {
        notAfter,
        enqueued: this.#now(),
        resolve: (slot) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(slot);
        },
        reject: (error) => {
          signal?.removeEventListener('abort', onAbort);
          reject(error);
        },
      };
      if (Number.isFinite(notAfter)) {
        // The turn may wait on requests in flight, whose end nobody knows: refuse at the latest then.
        waiter.timer = setTimeout(() => this.#refuse(waiter, Infinity), Math.max(0, notAfter - this.#now()));
      }
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiters.push(waiter);
      this.#pump();
    });
  }

  /**
   * How long from now until `n` more requests, each taking about `durationMs` from its send to
   * its answer, have all been answered if they are sent as soon as the pace allows: the rolling
   * window as it stands (attempts in flight counted as ending `durationMs` from now), any hold,
   * the server's remaining count and the cap on requests in flight. An estimate (the server may
   * say otherwise, requests take their own time) for progress and ETA, never a promise; 0 for
   * no request.
   */
  estimateMs(n: number, durationMs: number): number {
    if (!(n > 0)) return 0;
    const now = this.#now();
    const duration = Math.max(0, durationMs);
    // The cap on requests in flight alone: n requests, `concurrency` at a time.
    const byConcurrency = Math.ceil(n / this.#concurrency) * duration;
    let start = Math.max(now, this.#holdUntil);
    if (this.#server && now < this.#server.until && this.#server.remaining <= 0) start = Math.max(start, this.#server.until);
    if (!this.#budget) return Math.max(start - now + duration, byConcurrency);
    const { requests, windowMs } = this.#budget;
    // Each request leaves the window `windowMs` after its answer: the k-th next one may be sent
    // once the one `requests` places before it has left. Ends ascend: those of the simulated
    // requests come after every real one.
    const ends = this.#sent
      .filter((s) => s.end + windowMs > now)
      .map((s) => (Number.isFinite(s.end) ? s.end : now + duration))
      .sort((a, b) => a - b);
    let sent = start;
    for (let k = 0; k < n; k++) {
      const blocking = ends.length - requests;
      if (blocking >= 0) sent = Math.max(sent, ends[blocking]! + windowMs);
      ends.push(sent + duration);
    }
    return Math.max(sent + duration - now, byConcurrency);
  }

  /** Holds every request for `ms` from now (a server's wait that no header stated). */
  hold(ms: number): void {
    this.#holdUntil = Math.max(this.#holdUntil, this.#now() + ms);
  }

  #refuse(waiter: Waiter, readyAt: number, pump = true): void {
    const message = Number.isFinite(readyAt)
      ? `the deadline comes before its turn under the rate limit (in ${Math.ceil(readyAt - this.#now())} ms)`
      : 'the deadline passed while it waited for its turn';
    this.#remove(waiter, new PaceRefused(message, readyAt), pump);
  }

  /** Takes `waiter` out of the line, rejected with `error` (nothing when it was served already). */
  #remove(waiter: Waiter, error: unknown, pump = true): void {
    const index = this.#waiters.indexOf(waiter);
    if (index < 0) return;
    this.#waiters.splice(index, 1);
    clearTimeout(waiter.timer);
    waiter.reject(error as Error);
    // The line moved: the next one may be served now.
    if (pump) this.#pump();
  }

  #pump(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    while (this.#waiters.length > 0 && this.#inFlight < this.#concurrency) {
      const head = this.#waiters[0]!;
      const now = this.#now();
      const readyAt = this.#readyAt(now);
      if (readyAt > now) {
        if (readyAt > head.notAfter) {
          this.#refuse(head, readyAt, false);
          continue;
        }
        // Requests in flight end with `release`, which pumps again; a time is waited for here.
        if (Number.isFinite(readyAt)) this.#timer = setTimeout(() => this.#pump(), Math.ceil(readyAt - now));
        return;
      }
      this.#waiters.shift();
      clearTimeout(head.timer);
      head.resolve(this.#grant(now, head.enqueued));
    }
  }

  #grant(now: number, enqueued: number): Slot {
    const sent: Sent = { end: Infinity };
    if (this.#budget) this.#sent.push(sent);
    this.#inFlight += 1;
    if (this.#server && now < this.#server.until) this.#server.remaining -= 1;
    let done = false;
    const finish = (answer: Answer | undefined, counted: boolean) => {
      if (done) return;
      done = true;
      this.#inFlight -= 1;
      const at = this.#now();
      if (counted) sent.end = at;
      else this.#sent = this.#sent.filter((s) => s !== sent);
      if (answer) this.#learn(answer, at);
      this.#pump();
    };
    return { waitedMs: now - enqueued, release: (answer) => finish(answer, true), cancel: () => finish(undefined, false) };
  }

  /** Takes in what an answer said about the server's limits. */
  #learn(answer: Answer, now: number): void {
    if (answer.retryAfterMs !== undefined) this.#holdUntil = Math.max(this.#holdUntil, now + answer.retryAfterMs);
    if (answer.remaining !== undefined && answer.resetMs !== undefined) {
      // Requests still in flight were sent before this answer and may not be in its count yet.
      this.#server = { remaining: answer.remaining - this.#inFlight, until: now + answer.resetMs };
    }
    if (answer.concurrencyRefused) {
      // The server's own number when it gave one; else fewer than were in flight when it refused.
      const { limit } = answer.concurrencyRefused;
      const cap = limit !== undefined ? Math.min(this.#concurrency, limit) : Math.min(this.#concurrency - 1, this.#inFlight);
      this.#concurrency = Math.max(1, cap);
    }
  }

  /** The earliest time a request may be sent: after any hold, with room in both counts. */
  #readyAt(now: number): number {
    let ready = Math.max(now, this.#holdUntil);
    if (this.#server && now < this.#server.until && this.#server.remaining <= 0) ready = Math.max(ready, this.#server.until);
    if (this.#budget) {
      const { requests, windowMs } = this.#budget;
      this.#sent = this.#sent.filter((s) => s.end + windowMs > now);
      const over = this.#sent.length - requests;
      if (over >= 0) {
        // Room comes when `over + 1` of them have left the window: the (over+1)-th earliest end.
        const ends = this.#sent.map((s) => s.end).sort((a, b) => a - b);
        ready = Math.max(ready, ends[over]! + windowMs);
      }
    }
    return ready;
  }
}
