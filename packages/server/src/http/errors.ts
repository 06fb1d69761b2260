/**
 * Every failure leaves the server as the envelope of service-behaviour.md:
 * `{error_code, status_code, msg, details: {operation_id, ...}}`. Fastify's own client-side
 * errors (bad JSON, wrong media type, oversize body) are mapped to stable codes; only a fault
 * of the server itself becomes a 500.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';
import { describeValidationError } from './validation.js';

export function sendError(request: FastifyRequest, reply: FastifyReply, error: ApiError) {
  return reply.code(error.status).type('application/json').send(error.envelope(request.id));
}

/** Maps anything thrown while handling a request to the `ApiError` the client should see. */
export function toApiError(error: FastifyError & { validationContext?: string }): ApiError {
  if (error instanceof ApiError) return error;
  if (error.validation && error.validation.length > 0) {
    return describeValidationError(error.validation[0] as never, error.validationContext ?? 'body');
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('unsupported_content_type', 'Send the body as JSON with `Content-Type: application/json`.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError('missing_body', 'The body is empty; send a JSON object.');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ApiError('invalid_json', `The body is not valid JSON: ${error.message}`);
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('payload_too_large', 'The body is too large.');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError('invalid_json', 'The body length does not match Content-Length.');
  }
  if (error instanceof SyntaxError || (error.statusCode === 400 && /JSON/i.test(error.message))) {
    return new ApiError('invalid_json', `The body is not valid JSON: ${error.message}`);
  }
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    return new ApiError('invalid_value', error.message);
  }
  return new ApiError('internal_error', 'The server failed to handle this request.');
}

/** Up to this much of a refused body is read and dropped so that the client can read the 413. */
const DRAIN_MAX_BYTES = 64 * 1024 * 1024;
const DRAIN_MAX_MS = 10_000;

/**
 * Reads what is left of a refused request body and drops it. A client that sends its whole
 * body before reading the answer (most do, without `Expect: 100-continue`) gets a connection
 * reset, not the 413, when the server closes while the body still arrives. The connection is
 * closed after the answer; a body beyond `DRAIN_MAX_BYTES` or `DRAIN_MAX_MS` is not waited for.
 */
function drainBody(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  reply.header('connection', 'close');
  const raw = request.raw;
  if (raw.complete || raw.readableEnded || raw.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    let received = 0;
    const done = () => {
      clearTimeout(timer);
      raw.removeListener('data', onData);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > DRAIN_MAX_BYTES) done();
    };
    const timer = setTimeout(done, DRAIN_MAX_MS);
    raw.on('data', onData);
    raw.once('end', done);
    raw.once('error', done);
    raw.once('close', done);
    raw.resume();
  });
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler(async (error: FastifyError, request, reply) => {
    const apiError = toApiError(error);
    if (apiError.status >= 500) request.log.error({ err: error }, 'request failed');
    if (apiError.code === 'payload_too_large') await drainBody(request, reply);
    return sendError(request, reply, apiError);
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(request, reply, new ApiError('route_not_found', `No endpoint ${request.method} ${request.url.split('?')[0]}.`)),
  );
}
