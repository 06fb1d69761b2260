/**
 * Optional per-key rate limit (`--rate-limit 120/60s`), answering 429 with `Retry-After` as
 * the service does beyond about 120 requests a minute. Off unless configured; the engine's
 * tests turn it on to prove that apply stays within it.
 */
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import type { RateLimit } from '@gatehouse/schemas';
import { ApiError } from '../errors.js';

export { parseRateLimit, type RateLimit } from '@gatehouse/schemas';

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
