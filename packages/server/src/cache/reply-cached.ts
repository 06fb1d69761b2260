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
 * Sends the 200 answer to `request` from the cache of `app`; `render` (which may throw an
 * `ApiError`, never kept) builds the response object when the cache holds no current body.
 */
export function replyCached(
  app: FastifyInstance,
  request: FastifyRequest,
  reply: FastifyReply,
  render: () => unknown,
): FastifyReply {
  const body = app.renderCache.body(request.url, () => reply.serialize(render()) as string);
  return reply.type(JSON_TYPE).send(body);
}
