/**
 * TCP edges (`/edges/tcp`): description, metadata, hostports, and the backend, IP
 * restriction and traffic policy modules, given inline on create and PATCH (a given module
 * replaces the stored one whole; PATCH cannot remove one) and rendered inline, `null` when
 * unset. Each module also has `PUT/GET/DELETE /edges/tcp/{id}/<module>` (api-spec 4.5); DELETE
 * is how a module is removed.
 *
 * A hostport belongs to at most one edge of any kind: every edge claims the unique key
 * `hostport:<hostport>` (see `hostportKeys`), which HTTPS edges claim too. Each hostport is a
 * reserved TCP address (`checkReserved`).
 */
import { TcpEdge, TcpEdgeCreate, TcpEdgeList, TcpEdgeUpdate } from '@gatehouse/schemas';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.js';
import { withCommonFields, type CommonFields } from './common.js';
import { merge, registerResource, type ResourceDefinition, type UniqueKey } from './define.js';
import { backendModule } from './modules/backend.js';
import { ipRestrictionModule } from './modules/ip-restriction.js';
import { trafficPolicyModule } from './modules/traffic-policy.js';
import { registerModules, renderModules, writeModules, type AnyModule } from './modules.js';
import { checkReserved } from './reservations.js';

export const TCP_EDGE = 'tcp_edge';
export const TCP_EDGE_MODULES: readonly AnyModule[] = [backendModule, ipRestrictionModule, trafficPolicyModule];

const DNS_LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * Checks `hostname:port` pairs (DNS hostname, port 1..65535 without leading zeros, each pair
 * once) and returns them with the hostname lowercased, the form stored and claimed.
 */
export function checkHostports(hostports: readonly string[], field = 'hostports'): string[] {
  const seen = new Set<string>();
  return hostports.map((raw, i) => {
    const at = `${field}[${i}]`;
    const invalid = (why: string) => new ApiError('invalid_hostport', `${at}: '${raw}' ${why}.`, { field: at });
    const colon = raw.lastIndexOf(':');
    if (colon < 0) throw invalid('is not hostname:port');
    const host = raw.slice(0, colon).toLowerCase();
    const port = raw.slice(colon + 1);
    if (host.length === 0 || host.length > 253 || !host.split('.').every((label) => DNS_LABEL.test(label))) {
      throw invalid('does not start with a valid hostname');
    }
    if (!/^[1-9][0-9]{0,4}$/.test(port) || Number(port) > 65_535) throw invalid('does not end with a port in 1..65535');
    const hostport = `${host}:${port}`;
    if (seen.has(hostport)) throw invalid('is listed twice');
    seen.add(hostport);
    return hostport;
  });
}

/** The unique keys an edge of any kind claims for its hostports. */
export function hostportKeys(hostports: readonly string[], field = 'hostports'): UniqueKey[] {
  return hostports.map((hostport) => ({
    key: `hostport:${hostport}`,
    conflict: () =>
      new ApiError('hostport_in_use', `${field}: '${hostport}' already belongs to another edge.`, { field, hostport }),
  }));
}

interface StoredTcpEdge extends CommonFields, Record<string, unknown> {
  hostports: string[];
}

const MODULE_NAMES = new Set(TCP_EDGE_MODULES.map((m) => m.name));

export const tcpEdges: ResourceDefinition<StoredTcpEdge> = {
  kind: TCP_EDGE,
  label: 'TCP edge',
  idPrefix: 'edgtcp',
  path: '/edges/tcp',
  listKey: 'tcp_edges',
  schemas: { create: TcpEdgeCreate, update: TcpEdgeUpdate, resource: TcpEdge, list: TcpEdgeList },
  write(input, current, ctx) {
    const plain = Object.fromEntries(Object.entries(input).filter(([key]) => !MODULE_NAMES.has(key)));
    if (plain.hostports !== undefined) {
      plain.hostports = checkHostports(plain.hostports as string[]);
      checkReserved(plain.hostports as string[], 'addr', ctx);
    }
    return { ...merge<StoredTcpEdge>(current ?? { hostports: [] }, plain), ...writeModules(input, TCP_EDGE_MODULES, ctx) };
  },
  uniqueKeys: (data) => hostportKeys(data.hostports),
  render: (object, services) =>
    withCommonFields(object, services.urls.of(`/edges/tcp/${object.id}`), {
      hostports: object.data.hostports,
      ...renderModules(object.data, TCP_EDGE_MODULES, services),
    }),
};

/** CRUD of TCP edges and `PUT/GET/DELETE /edges/tcp/{id}/<module>` for each of their modules. */
export function registerTcpEdges(app: FastifyInstance): void {
  registerResource(app, tcpEdges);
  registerModules(app, { kind: TCP_EDGE, label: 'TCP edge', path: '/edges/tcp/:id' }, TCP_EDGE_MODULES);
}
