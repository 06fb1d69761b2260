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
  return reply.code(error.status).type('application/json').send({
    error_code: error.code,
    status_code: error.status,
    msg: error.message,
    details: { ...error.details, operation_id: request.id },
  });
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

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const apiError = toApiError(error);
    if (apiError.status >= 500) request.log.error({ err: error }, 'request failed');
    return sendError(request, reply, apiError);
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(
      request,
      reply,
      new ApiError('route_not_found', `No endpoint ${request.method} ${request.url.split('?')[0]}.`),
    ),
  );
}
