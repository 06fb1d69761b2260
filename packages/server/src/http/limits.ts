/**
 * The service's limits, reproduced for tests, demos and benchmarks (each off unless asked for):
 *
 * - a rate limit (`serve --rate-limit 120/60s`): at most `max` requests per API key in any
 *   window of `windowMs` (a rolling window, as the service's "120 requests per rolling
 *   minute", not fixed buckets that allow twice the limit across a bucket's edge). Refused
 *   requests count too, as on the service, so a client that ignores `Retry-After` stays
 *   refused. The answer is 429 `rate_limited` with `Retry-After` (seconds until a request
 *   would be accepted) and the service's own code in `details.service_error_code`;
 * - a cap on simultaneous requests (`serve --max-concurrent N`) per API key: a request that
 *   arrives while N are in flight is answered 429 `too_many_concurrent_requests` at once;
 * - latency (`serve --latency 50ms`): every answer waits that long first, as if it crossed a
 *   network, so that a client's pacing and concurrency can be seen working.
 *
 * The limits count authenticated requests only (the service counts an account's requests, and
 * an unknown key belongs to no account); they are registered after authentication.
 */
import type { FastifyInstance } from 'fastify';
import type { RateLimit } from '@gatehouse/schemas';
import { ApiError } from '../errors.js';

export interface Limits {
  /** Requests allowed per key in any window; off when absent. */
  rateLimit?: RateLimit;
  /** Requests in flight allowed per key at once; off when absent. */
  maxConcurrent?: number;
  /** Milliseconds every answer waits before it is sent; none when absent or 0. */
  latencyMs?: number;
}

/** The service's error codes for its two limits (its documentation, "ERR_NGROK_226/225"). */
export const SERVICE_RATE_LIMITED = 'ERR_NGROK_226';
export const SERVICE_TOO_MANY_CONCURRENT = 'ERR_NGROK_225';

/**
 * The times of the last `max` requests of one key, oldest first. A request is accepted when
 * fewer than `max` of them fall within the window, i.e. when the oldest of the last `max` is
 * older than the window; so only those `max` times need keeping.
 */
export class RollingWindow {
  private readonly times: number[] = [];

  constructor(private readonly limit: RateLimit) {}

  /** Counts a request made at `now`; 0 when it is within the limit, else ms until one would be. */
  take(now: number): number {
    const { max, windowMs } = this.limit;
    const accepted = this.times.length < max || this.times[0]! <= now - windowMs;
    this.times.push(now);
    if (this.times.length > max) this.times.shift();
    // Refused: the next request fits once the oldest of the last `max` (this one included) leaves the window.
    return accepted ? 0 : Math.max(1, this.times[0]! + windowMs - now);
  }
}

export function registerLimits(app: FastifyInstance, limits: Limits): void {
  const { rateLimit, maxConcurrent, latencyMs } = limits;
  if (latencyMs) {
    app.addHook('onSend', async (_request, _reply, payload) => {
      await new Promise((resolve) => setTimeout(resolve, latencyMs));
      return payload;
    });
  }
  if (rateLimit) {
    const windows = new Map<string, RollingWindow>();
    const per = describeWindow(rateLimit.windowMs);
    app.addHook('onRequest', async (request, reply) => {
      const key = request.principal.apiKeyId;
      let window = windows.get(key);
      if (!window) windows.set(key, (window = new RollingWindow(rateLimit)));
      const waitMs = window.take(Date.now());
      if (waitMs === 0) return;
      const retryAfter = Math.ceil(waitMs / 1000);
      reply.header('retry-after', String(retryAfter));
      throw new ApiError('rate_limited', `Your account is rate limited to ${rateLimit.max} API requests per ${per}; retry after ${retryAfter} s.`, {
        service_error_code: SERVICE_RATE_LIMITED,
        retry_after_seconds: retryAfter,
      });
    });
  }
  if (maxConcurrent) {
    const inFlight = new Map<string, number>();
    app.addHook('onRequest', async (request, reply) => {
      const key = request.principal.apiKeyId;
      const count = inFlight.get(key) ?? 0;
      if (count >= maxConcurrent) {
        reply.header('retry-after', '1');
        throw new ApiError('too_many_concurrent_requests', `Your account is limited to ${maxConcurrent} simultaneous API requests; wait for one to finish.`, {
          service_error_code: SERVICE_TOO_MANY_CONCURRENT,
        });
      }
      inFlight.set(key, count + 1);
      // Once the answer is sent or the connection is gone, whichever comes first.
      reply.raw.once('close', () => {
        const left = inFlight.get(key)! - 1;
        if (left === 0) inFlight.delete(key);
        else inFlight.set(key, left);
      });
    });
  }
}

/** `60000` -> `60 s`, `500` -> `500 ms`, as the window is described in the message. */
function describeWindow(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
