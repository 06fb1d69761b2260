/**
 * Answers a GET from the render cache: the body cached for the request's URL, or the one the
 * route renders now, serialized by the route's own response schema (exactly what Fastify
 * would send for the object) and kept. The URL is the key because it is everything a GET's
 * answer depends on besides the database and the base URL, which the cache watches itself.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RenderCache } from './render-cache.js';

/** The content type Fastify gives a JSON body it serializes. */
const JSON_TYPE = 'application/json; charset=utf-8';

declare module 'fastify' {
  interface FastifyInstance {
    renderCache: RenderCache;
  }
}

/**
 * A GET route's handler that sends the 200 answer from the render cache of `app`; `render`
 * (which may throw an `ApiError`, never kept) builds the response object for the request when
 * the cache holds no current body.
 *
 * Synchronous, and it returns nothing once it has sent: an async handler costs a promise, a
 * microtask and Fastify's wrapping of its result on every read. GET by id under the bench's
 * load (10 connections, the library's app with `serve`'s logger, 2-core VM, 2026-11-28):
 * faster in 8 of 8 alternated pairs of 3 s runs, median 21,780 against 21,290 GETs a second,
 * 43 against 44 us of CPU per GET. An error `render` throws (a 404) reaches the error handler
 * as a rejection would: Fastify sends what a synchronous handler throws.
 */
export function cachedRead(
  app: FastifyInstance,
  render: (request: FastifyRequest) => unknown,
): (request: FastifyRequest, reply: FastifyReply) => void {
  return (request, reply) => {
    const body = app.renderCache.body(request.url, () => reply.serialize(render(request)) as string);
    reply.type(JSON_TYPE).send(body);
  };
}
