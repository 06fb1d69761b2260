/**
 * TLS edges (`/edges/tls`, edgtls_ ids): description, metadata, hostports (each hostname a
 * reserved domain, each hostport on at most one edge of any kind) and the backend, IP
 * restriction, mutual TLS, TLS termination and traffic policy modules, given inline on create
 * and PATCH (a given module replaces the stored one whole) and rendered inline, `null` when
 * unset; each module also has `PUT/GET/DELETE /edges/tls/{id}/<module>`, whose DELETE is how a
 * module is removed. No audit events, as for the other edges.
 */
import { TlsEdge, TlsEdgeCreate, TlsEdgeList, TlsEdgeUpdate } from '@gatehouse/schemas';
import type { FastifyInstance } from 'fastify';
import { withCommonFields, type CommonFields } from './common.js';
import { merge, registerResource, type ResourceDefinition } from './define.js';
import { backendModule } from './modules/backend.js';
import { ipRestrictionModule } from './modules/ip-restriction.js';
import { mutualTlsModule } from './modules/mutual-tls.js';
import { tlsTerminationModule } from './modules/tls-termination.js';
import { trafficPolicyModule } from './modules/traffic-policy.js';
import { registerModules, renderModules, writeModules, type AnyModule } from './modules.js';
import { checkReserved } from './reservations.js';
import { checkHostports, hostportKeys } from './tcp-edges.js';

export const TLS_EDGE = 'tls_edge';
/** The modules in the order the edge renders them. */
export const TLS_EDGE_MODULES: readonly AnyModule[] = [backendModule, ipRestrictionModule, mutualTlsModule, tlsTerminationModule, trafficPolicyModule];
const MODULE_NAMES = new Set(TLS_EDGE_MODULES.map((m) => m.name));

interface StoredTlsEdge extends CommonFields, Record<string, unknown> {
  hostports: string[];
}

export const tlsEdges: ResourceDefinition<StoredTlsEdge, TlsEdge> = {
  kind: TLS_EDGE,
  label: 'TLS edge',
  idPrefix: 'edgtls',
  path: '/edges/tls',
  listKey: 'tls_edges',
  schemas: { create: TlsEdgeCreate, update: TlsEdgeUpdate, resource: TlsEdge, list: TlsEdgeList },
  write(input, current, ctx) {
    const plain = Object.fromEntries(Object.entries(input).filter(([key]) => !MODULE_NAMES.has(key)));
    if (plain.hostports !== undefined) {
      plain.hostports = checkHostports(plain.hostports as string[]);
      checkReserved(plain.hostports as string[], 'domain', ctx);
    }
    return { ...merge<StoredTlsEdge>(current ?? { hostports: [] }, plain), ...writeModules(input, TLS_EDGE_MODULES, ctx) };
  },
  uniqueKeys: (data) => hostportKeys(data.hostports),
  render: (object, services) =>
    withCommonFields(object, services.urls.of(`/edges/tls/${object.id}`), {
      hostports: object.data.hostports,
      ...(renderModules(object.data, TLS_EDGE_MODULES, services, object) as Omit<TlsEdge, 'id' | 'uri' | 'created_at' | 'hostports'>),
    }),
};

/** CRUD of TLS edges and `PUT/GET/DELETE /edges/tls/{id}/<module>` for each of their modules. */
export function registerTlsEdges(app: FastifyInstance): void {
  registerResource(app, tlsEdges);
  registerModules(app, { kind: TLS_EDGE, label: 'TLS edge', path: '/edges/tls/:id' }, TLS_EDGE_MODULES);
}
