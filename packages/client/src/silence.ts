/**
 * How long the API has kept silent: the time during which at least one attempt was waiting for
 * an answer and none came, counted since the last answer of any kind (an error status is an
 * answer too). Time with nothing in flight (a backoff, a wait for the rate limit) is not
 * silence.
 *
 * Why a client-wide measure: a request's own retries are bounded (`maxAttempts` attempts of at
 * most the timeout each), but the requests a failure leads to are not: a create that timed out
 * is followed by a look-up for what it made, a lock that could not be taken by a read of the
 * lock, each with attempts of its own. Against an API that accepts connections and never
 * answers, those would add up to minutes. Once the API has been silent for `limitMs` (the
 * attempts of one request: `maxAttempts` x the timeout), every attempt in flight is cut there
 * and no further one starts: the whole command fails within one request's worst case.
 */
export class Silence {
  readonly limitMs: number;
  readonly #now: () => number;
  /** Silence counted before the current stretch of attempts in flight. */
  #before = 0;
  #inFlight = 0;
  /** When the current stretch began (an attempt sent with none in flight, or the last answer). */
  #since = 0;

  constructor(limitMs: number, now: () => number = () => performance.now()) {
    this.limitMs = limitMs;
    this.#now = now;
  }

  /** Silence so far, in ms. */
  elapsedMs(): number {
    return this.#before + (this.#inFlight > 0 ? this.#now() - this.#since : 0);
  }

  /** How much longer an attempt sent now may wait for its answer; 0 or less when the API is given up on. */
  remainingMs(): number {
    return this.limitMs - this.elapsedMs();
  }

  /** An attempt was sent. */
  sent(): void {
    if (this.#inFlight === 0) this.#since = this.#now();
    this.#inFlight += 1;
  }

  /** An attempt ended: `answered` when an answer (any status) arrived. */
  ended(answered: boolean): void {
    const now = this.#now();
    if (answered) {
      this.#before = 0;
      this.#since = now;
    } else if (this.#inFlight === 1) {
      this.#before += now - this.#since;
    }
    this.#inFlight -= 1;
  }
}
