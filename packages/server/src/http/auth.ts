/**
 * Authentication (api-spec part 5) and versioning (part 9), checked before anything else a
 * request does, the unknown-path 404 included: `Authorization: Bearer <key>` must name a known
 * API key (401 otherwise) and `Service-Version` must be `2` (400 otherwise).
 *
 * Keys are compared by their SHA-256 digest; the server stores no token in clear, and never
 * logs one (the digests of the few tokens in use are remembered in memory: `tokenResolver`).
 */
import { hash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';
import type { Principal } from '../domain/audit.js';

export const SERVICE_VERSION = '2';

/**
 * Hex SHA-256 digest of a token. `crypto.hash` (Node 20.12+) is the one-shot form of
 * `createHash().update().digest()`: the same digest without building a Hash object per request.
 */
export const hashToken = (token: string): string => hash('sha256', token, 'hex');

/** Looks up the id of the API key a token belongs to. */
export type KeyResolver = (tokenHash: string) => string | undefined;

/** Tokens whose digest is remembered at most (a client sends the same key on every request). */
const KNOWN_TOKENS_MAX = 64;

/**
 * `resolveKey` over tokens rather than digests, remembering the key id of the last few tokens
 * that resolved, so that a client's repeated requests skip the SHA-256. Only tokens of valid
 * keys are remembered (garbage tokens cannot fill it; a wrong key is hashed every time), the
 * map is bounded and emptied when full, and a remembered token is the same string a request
 * carries in its headers anyway; it is never logged or persisted.
 */
export function tokenResolver(resolveKey: KeyResolver): (token: string) => string | undefined {
  const known = new Map<string, string>();
  return (token) => {
    const remembered = known.get(token);
    if (remembered !== undefined) return remembered;
    const id = resolveKey(hashToken(token));
    if (id !== undefined) {
      if (known.size >= KNOWN_TOKENS_MAX) known.clear();
      known.set(token, id);
    }
    return id;
  };
}

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
  }
}

function authenticate(request: FastifyRequest, resolveToken: (token: string) => string | undefined): Principal {
  const header = request.headers.authorization;
  if (header === undefined || header === '') {
    throw new ApiError('missing_authorization', 'Send `Authorization: Bearer <API key>`.');
  }
  const match = /^Bearer ([^\s]+)$/i.exec(header);
  if (!match) {
    throw new ApiError('invalid_authorization', 'The Authorization header must be `Bearer <API key>`.');
  }
  const apiKeyId = resolveToken(match[1]!);
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
    throw new ApiError(
      'unsupported_version',
      `Service-Version '${String(version)}' is not supported; send \`Service-Version: ${SERVICE_VERSION}\`.`,
    );
  }
}

/**
 * Both checks, for requests that never reach the hooks (the router's own errors: a path
 * parameter over the length limit, bad percent-encoding): throws the `ApiError` a client
 * without a valid key and version must hear instead of anything about the URL.
 */
export function checkCredentials(request: FastifyRequest, resolveKey: KeyResolver): void {
  authenticate(request, (token) => resolveKey(hashToken(token)));
  checkVersion(request);
}

export function registerAuth(app: FastifyInstance, resolveKey: KeyResolver): void {
  app.decorateRequest('principal', null as unknown as Principal);
  const resolveToken = tokenResolver(resolveKey);
  // A callback hook rather than an async one: it runs on every request, and spares a promise
  // and a microtask turn each time. An error goes to the error handler either way.
  app.addHook('onRequest', (request, _reply, done) => {
    try {
      request.principal = authenticate(request, resolveToken);
      checkVersion(request);
    } catch (error) {
      done(error as Error);
      return;
    }
    done();
  });
}
