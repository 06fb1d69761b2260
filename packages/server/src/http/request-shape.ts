/**
 * Checks on the shape of a request that come before its body is parsed: GET and DELETE take
 * no body (a `Content-Type` without a body is harmless: many clients send one on every
 * request), a body must be declared as JSON, and an endpoint without a query-string schema
 * takes no query parameter at all (those with one reject unknown parameters through it).
 * Registered after authentication.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';

const BODYLESS = new Set(['GET', 'HEAD', 'DELETE']);

function hasBody(headers: Record<string, string | string[] | undefined>): boolean {
  const length = headers['content-length'];
  return headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * An HTTP/1.1 request must name its Host (RFC 9112, 3.2); one without is answered 400
 * `bad_request` in the envelope, before authentication, as the other malformed requests are.
 */
export function registerHostCheck(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    if (request.raw.httpVersion === '1.1' && !request.headers.host) {
      throw new ApiError('bad_request', 'The request has no Host header, which HTTP/1.1 requires; send one.');
    }
  });
}

export function registerRequestShapeChecks(app: FastifyInstance): void {
  // A DELETE declared as JSON but with no body: nothing to parse. Without this, Fastify's JSON
  // parser would answer `missing_body` to a request that needs none.
  app.addHook('preParsing', async (request, _reply, payload) => {
    if (request.method === 'DELETE' && !hasBody(request.headers)) delete request.headers['content-type'];
    return payload;
  });
  app.addHook('onRequest', async (request) => checkShape(request));
}

/** Throws the `ApiError` for a request whose shape is wrong (see the module comment). */
function checkShape(request: FastifyRequest): void {
  const withBody = hasBody(request.headers);
  if (BODYLESS.has(request.method)) {
    if (withBody) {
      throw new ApiError('unexpected_body', `${request.method} takes no body; send the request without one.`);
    }
  } else if (withBody && request.headers['content-type'] === undefined) {
    throw new ApiError('missing_content_type', 'Send the body with `Content-Type: application/json`.');
  }
  if (!request.is404 && request.routeOptions.schema?.querystring === undefined) {
    // No query string at all (most requests): nothing to look at.
    if (!request.url.includes('?')) return;
    const [field] = Object.keys(request.query as Record<string, unknown>);
    if (field !== undefined) {
      throw new ApiError('unknown_query_parameter', `Unknown query parameter '${field}'; this endpoint takes none.`, {
        field,
        location: 'query',
      });
    }
  }
}
