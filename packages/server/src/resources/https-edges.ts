/**
 * HTTPS edges (api-spec 2.7, 4.7): create, get, list (`https_edges`), PATCH (description,
 * metadata, hostports, mutual_tls, tls_termination) and DELETE, which deletes the edge's
 * routes with it; and `PUT/GET/DELETE /edges/https/{id}/<module>` for the edge modules.
 *
 * An edge is created with `hostports: []`, `routes: []` and its modules `null` unless given.
 * Hostports are `hostname:443` (HTTPS edges serve no other port) and each belongs to at most
 * one edge of any kind, through the `hostport:<hostport>` keys TCP edges claim too; each
 * hostname is a reserved domain (`checkReserved`).
 */
import { HttpsEdge, HttpsEdgeCreate, HttpsEdgeList, HttpsEdgeUpdate } from '@gatehouse/schemas';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.js';
import { withCommonFields, type CommonFields } from './common.js';
import { merge, registerResource, type ResourceDefinition } from './define.js';
import { registerModules, renderModules, writeModules, type AnyModule } from './modules.js';
import { mutualTlsModule } from './modules/mutual-tls.js';
import { tlsTerminationModule } from './modules/tls-termination.js';
import { HTTPS_EDGE, HTTPS_EDGE_ROUTE, registerHttpsEdgeRoutes, routesOf } from './routes.js';
import { checkHostports, hostportKeys } from './tcp-edges.js';
import { checkReserved } from './reservations.js';

export { HTTPS_EDGE } from './routes.js';
export const HTTPS_EDGE_MODULES: readonly AnyModule[] = [mutualTlsModule, tlsTerminationModule];
const MODULE_NAMES = new Set(HTTPS_EDGE_MODULES.map((m) => m.name));

/** The only port HTTPS edges serve. */
export const HTTPS_PORT = '443';

interface StoredHttpsEdge extends CommonFields, Record<string, unknown> {
  hostports: string[];
}

/** `hostname:port` pairs as `checkHostports` accepts them, on port 443 only. */
export function checkHttpsHostports(hostports: readonly string[]): string[] {
  return checkHostports(hostports).map((hostport, i) => {
    if (!hostport.endsWith(`:${HTTPS_PORT}`)) {
      const field = `hostports[${i}]`;
      throw new ApiError('invalid_hostport', `${field}: '${hostports[i]}' is not on port 443; HTTPS edges serve 443 only.`, {
        field,
      });
    }
    return hostport;
  });
}

export const httpsEdges: ResourceDefinition<StoredHttpsEdge, HttpsEdge> = {
  kind: HTTPS_EDGE,
  label: 'HTTPS edge',
  idPrefix: 'edghts',
  path: '/edges/https',
  listKey: 'https_edges',
  schemas: { create: HttpsEdgeCreate, update: HttpsEdgeUpdate, resource: HttpsEdge, list: HttpsEdgeList },
  write(input, current, ctx) {
    const plain = Object.fromEntries(Object.entries(input).filter(([key]) => !MODULE_NAMES.has(key)));
    if (plain.hostports !== undefined) {
      plain.hostports = checkHttpsHostports(plain.hostports as string[]);
      checkReserved(plain.hostports as string[], 'domain', ctx);
    }
    return { ...merge<StoredHttpsEdge>(current ?? { hostports: [] }, plain), ...writeModules(input, HTTPS_EDGE_MODULES, ctx) };
  },
  uniqueKeys: (data) => hostportKeys(data.hostports),
  render: (edge, services) =>
    withCommonFields(edge, services.urls.of(`/edges/https/${edge.id}`), {
      hostports: edge.data.hostports,
      ...(renderModules(edge.data, HTTPS_EDGE_MODULES, services, edge) as Pick<HttpsEdge, 'mutual_tls' | 'tls_termination'>),
      routes: routesOf(edge.id, services),
    }),
  onDelete(edge, { store }) {
    for (const route of store.children(HTTPS_EDGE_ROUTE, edge.id)) store.remove(route.id);
  },
};

/** HTTPS edges, their edge modules, their routes and the routes' modules. */
export function registerHttpsEdges(app: FastifyInstance): void {
  registerResource(app, httpsEdges);
  registerModules(app, { kind: HTTPS_EDGE, label: 'HTTPS edge', path: '/edges/https/:id' }, HTTPS_EDGE_MODULES);
  registerHttpsEdgeRoutes(app);
}
