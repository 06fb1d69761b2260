/**
 * Optional per-key rate limit (`--rate-limit 120/60s`), answering 429 with `Retry-After` as
 * the service does beyond about 120 requests a minute. Off unless configured; the engine's
 * tests turn it on to prove that apply stays within it.
 */
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.js';

export interface RateLimit {
  max: number;
  windowMs: number;
}

/** Parses `120/60s`, `100/1m`, `10/500ms` (requests per window). */
export function parseRateLimit(text: string): RateLimit {
  const match = /^(\d+)\s*\/\s*(\d+)\s*(ms|s|m)?$/.exec(text.trim());
  if (!match) throw new Error(`rate limit '${text}' must look like 120/60s (requests per window)`);
  const max = Number(match[1]);
  const amount = Number(match[2]);
  const unit = match[3] ?? 's';
  const windowMs = amount * (unit === 'ms' ? 1 : unit === 's' ? 1000 : 60_000);
  if (max < 1 || windowMs < 1) throw new Error(`rate limit '${text}' must allow at least one request per window`);
  return { max, windowMs };
}

/**
 * Must be awaited before any route is registered: the plugin applies itself to routes from an
 * onRoute hook, so routes declared before it loads would not be limited.
 */
export async function registerRateLimit(app: FastifyInstance, limit: RateLimit): Promise<void> {
  await app.register(rateLimit, {
    global: true,
    max: limit.max,
    timeWindow: limit.windowMs,
    hook: 'onRequest',
    keyGenerator: (request) => request.principal?.apiKeyId ?? request.ip,
    errorResponseBuilder: (_request, context) =>
      new ApiError('rate_limited', `Rate limit of ${context.max} requests per ${context.after} exceeded; retry later.`, {
        retry_after_seconds: Math.ceil(context.ttl / 1000),
      }),
  });
}
