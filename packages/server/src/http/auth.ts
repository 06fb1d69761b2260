/**
 * Authentication (api-spec part 5) and versioning (part 9), checked before anything else a
 * request does, the unknown-path 404 included: `Authorization: Bearer <key>` must name a known
 * API key (401 otherwise) and `Service-Version` must be `2` (400 otherwise).
 *
 * Keys are compared by their SHA-256 digest; the server stores no token in clear, and never
 * logs one.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';
import type { Principal } from '../domain/audit.js';

const SERVICE_VERSION = '2';

/** Hex SHA-256 digest of a token. */
export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/** Looks up the id of the API key a token belongs to. */
export type KeyResolver = (tokenHash: string) => string | undefined;

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
  }
}

function authenticate(request: FastifyRequest, resolveKey: KeyResolver): Principal {
  const header = request.headers.authorization;
  if (header === undefined || header === '') {
    throw new ApiError('missing_authorization', 'Send `Authorization: Bearer <API key>`.');
  }
  const match = /^Bearer ([^\s]+)$/i.exec(header);
  if (!match) {
    throw new ApiError('invalid_authorization', 'The Authorization header must be `Bearer <API key>`.');
  }
  const apiKeyId = resolveKey(hashToken(match[1]!));
  if (apiKeyId === undefined) {
    throw new ApiError('invalid_authorization', 'The API key is not valid.');
  }
  return { apiKeyId };
}

function checkVersion(request: FastifyRequest): void {
  const version = request.headers['service-version'];
  if (version === undefined) {
    throw new ApiError('missing_version', `Send the header \`Service-Version: ${SERVICE_VERSION}\`.`);
  }
  if (version !== SERVICE_VERSION) {
    throw new ApiError('unsupported_version', `Service-Version '${String(version)}' is not supported; send \`Service-Version: ${SERVICE_VERSION}\`.`);
  }
}

/**
 * Both checks, for requests that never reach the hooks (the router's own errors: a path
 * parameter over the length limit, bad percent-encoding): throws the `ApiError` a client
 * without a valid key and version must hear instead of anything about the URL.
 */
export function checkCredentials(request: FastifyRequest, resolveKey: KeyResolver): void {
  authenticate(request, resolveKey);
  checkVersion(request);
}

export function registerAuth(app: FastifyInstance, resolveKey: KeyResolver): void {
  app.decorateRequest('principal', null as unknown as Principal);
  app.addHook('onRequest', async (request) => {
    request.principal = authenticate(request, resolveKey);
    checkVersion(request);
  });
}
