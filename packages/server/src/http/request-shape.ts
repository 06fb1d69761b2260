/**
 * Checks on the shape of a request that come before its body is parsed: GET and DELETE take
 * no body (a `Content-Type` without a body is harmless: many clients send one on every
 * request), a body must be declared as JSON, and an endpoint without a query-string schema
 * takes no query parameter at all (those with one reject unknown parameters through it).
 * Registered after authentication.
 */
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.js';

const BODYLESS = new Set(['GET', 'HEAD', 'DELETE']);

function hasBody(headers: Record<string, string | string[] | undefined>): boolean {
  const length = headers['content-length'];
  return headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

export function registerRequestShapeChecks(app: FastifyInstance): void {
  // A DELETE declared as JSON but with no body: nothing to parse. Without this, Fastify's JSON
  // parser would answer `missing_body` to a request that needs none.
  app.addHook('preParsing', async (request, _reply, payload) => {
    if (request.method === 'DELETE' && !hasBody(request.headers)) delete request.headers['content-type'];
    return payload;
  });
  app.addHook('onRequest', async (request) => {
    const withBody = hasBody(request.headers);
    if (BODYLESS.has(request.method)) {
      if (withBody) {
        throw new ApiError('unexpected_body', `${request.method} takes no body; send the request without one.`);
      }
    } else if (withBody && request.headers['content-type'] === undefined) {
      throw new ApiError('missing_content_type', 'Send the body with `Content-Type: application/json`.');
    }
    if (!request.is404 && request.routeOptions.schema?.querystring === undefined) {
      const [field] = Object.keys(request.query as Record<string, unknown>);
      if (field !== undefined) {
        throw new ApiError('unknown_query_parameter', `Unknown query parameter '${field}'; this endpoint takes none.`, {
          field,
          location: 'query',
        });
      }
    }
  });
}
