/**
 * What a resource's code sees while it handles a request: the store, URL building, the audit
 * log and who is asking. Built once per app; `principal` comes from the request.
 */
import type { FastifyRequest } from 'fastify';
import type { Store } from '../db/store.js';
import type { AuditLog, Principal } from '../domain/audit.js';
import type { Urls } from '../http/urls.js';

export interface Services {
  store: Store;
  urls: Urls;
  audit: AuditLog;
  /**
   * Whether an edge's hostports must be reserved (a reserved domain for HTTPS and TLS edges, a
   * reserved TCP address for TCP edges), as the service requires; `serve --no-reservation-check`
   * turns it off for databases and tests made before reservations existed.
   */
  reservationCheck: boolean;
}

export interface RequestContext extends Services {
  principal: Principal;
}

/** The context of one request: its app's services and who is asking. */
export function requestContext(request: FastifyRequest): RequestContext {
  return { ...request.server.services, principal: request.principal };
}

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
  }
}
