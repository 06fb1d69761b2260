/**
 * Errors the router raises before any hook runs (Fastify's `frameworkErrors`): a path parameter
 * longer than `maxParamLength` (an id over 100 characters, 414) and a path whose percent-encoding
 * is not UTF-8 (400). They get the error envelope like every other answer, and only after the
 * credentials were checked: a caller without a valid key learns nothing about which URLs exist.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';
import { checkCredentials, type KeyResolver } from './auth.js';
import { sendError, toApiError } from './errors.js';

export function routerErrorHandler(resolveKey: () => KeyResolver) {
  return (error: Error & { code?: string }, request: FastifyRequest, reply: FastifyReply): void => {
    try {
      checkCredentials(request, resolveKey());
    } catch (refusal) {
      void sendError(request, reply, refusal as ApiError);
      return;
    }
    const path = request.url.split('?')[0]!.slice(0, 200);
    const apiError =
      error.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? new ApiError('uri_too_long', `A path segment of ${path} is longer than 100 characters; no id is that long.`)
        : error.code === 'FST_ERR_BAD_URL'
          ? new ApiError('invalid_url', 'The path is not valid percent-encoded UTF-8.')
          : toApiError(error as never);
    void sendError(request, reply, apiError);
  };
}
