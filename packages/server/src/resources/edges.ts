/**
 * The three edge kinds (`/edges/https`, `/edges/tcp`, `/edges/tls`), from one description
 * (`EdgeKind`): description, metadata, hostports and the kind's modules, given inline on
 * create and PATCH (a given module replaces the stored one whole; PATCH cannot remove one) and
 * rendered inline, `null` when unset. Each module also has `PUT/GET/DELETE <edge>/<module>`
 * (api-spec 4.5), whose DELETE is how a module is removed. No audit events, as the service.
 *
 * Hostports are `hostname:port` pairs (an HTTPS edge's on port 443 only), each on at most one
 * edge of any kind: every edge claims the unique key `hostport:<hostport>`. Each hostport must
 * be reserved (`checkReserved`): a reserved domain for HTTPS and TLS edges, a reserved TCP
 * address for TCP edges. An HTTPS edge also has routes (routes.ts), rendered inline in creation
 * order and deleted with it.
 */
import { HttpsEdgeSchemas, TcpEdgeSchemas, TlsEdgeSchemas } from '@gatehouse/schemas';
import type { FastifyInstance } from 'fastify';
import type { StoredObject } from '../db/store.js';
import { ApiError } from '../errors.js';
import { withCommonFields, type CommonFields } from './common.js';
import type { RequestContext, Services } from './context.js';
import { merge, registerResource, type ResourceDefinition, type UniqueKey } from './define.js';
import { backendModule } from './modules/backend.js';
import { ipRestrictionModule } from './modules/ip-restriction.js';
import { mutualTlsModule } from './modules/mutual-tls.js';
import { tlsTerminationModule } from './modules/tls-termination.js';
import { trafficPolicyModule } from './modules/traffic-policy.js';
import { registerModules, renderModules, writeModules, type AnyModule } from './modules.js';
import { checkReserved } from './reservations.js';
import { HTTPS_EDGE, HTTPS_EDGE_ROUTE, registerHttpsEdgeRoutes, routesOf } from './routes.js';

const TCP_EDGE = 'tcp_edge';
const TLS_EDGE = 'tls_edge';

interface StoredEdge extends CommonFields, Record<string, unknown> {
  hostports: string[];
}

/** What one edge kind is; everything else about edges is shared. */
interface EdgeKind {
  kind: string;
  label: string;
  idPrefix: string;
  /** Collection path, e.g. `/edges/tcp`. */
  path: string;
  listKey: string;
  schemas: ResourceDefinition<StoredEdge>['schemas'];
  /** The modules in the order the edge renders them. */
  modules: readonly AnyModule[];
  /** What reserves a hostport: a reserved domain or a reserved TCP address. */
  reservedBy: 'domain' | 'addr';
  /** The only port the kind's hostports may name (HTTPS edges: 443). */
  onlyPort?: string;
  /** Fields rendered after the modules (an HTTPS edge's routes). */
  renderMore?(edge: StoredObject<StoredEdge>, services: Services): Record<string, unknown>;
  onDelete?(edge: StoredObject<StoredEdge>, ctx: RequestContext): void;
}

const DNS_LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * Checks `hostname:port` pairs (DNS hostname, port 1..65535 without leading zeros, `onlyPort`
 * when given, each pair once) and returns them with the hostname lowercased, the form stored
 * and claimed.
 */
function checkHostports(hostports: readonly string[], onlyPort?: string): string[] {
  const seen = new Set<string>();
  return hostports.map((raw, i) => {
    const at = `hostports[${i}]`;
    const invalid = (why: string) => new ApiError('invalid_hostport', `${at}: '${raw}' ${why}.`, { field: at });
    const colon = raw.lastIndexOf(':');
    if (colon < 0) throw invalid('is not hostname:port');
    const host = raw.slice(0, colon).toLowerCase();
    const port = raw.slice(colon + 1);
    if (host.length === 0 || host.length > 253 || !host.split('.').every((label) => DNS_LABEL.test(label))) {
      throw invalid('does not start with a valid hostname');
    }
    if (!/^[1-9][0-9]{0,4}$/.test(port) || Number(port) > 65_535) throw invalid('does not end with a port in 1..65535');
    if (onlyPort !== undefined && port !== onlyPort) throw invalid(`is not on port ${onlyPort}; HTTPS edges serve ${onlyPort} only`);
    const hostport = `${host}:${port}`;
    if (seen.has(hostport)) throw invalid('is listed twice');
    seen.add(hostport);
    return hostport;
  });
}

/** The unique keys an edge of any kind claims for its hostports. */
function hostportKeys(hostports: readonly string[]): UniqueKey[] {
  return hostports.map((hostport) => ({
    key: `hostport:${hostport}`,
    conflict: () => new ApiError('hostport_in_use', `hostports: '${hostport}' already belongs to another edge.`, { field: 'hostports', hostport }),
  }));
}

/** The resource definition of an edge kind (define.ts). */
function edgeResource(edge: EdgeKind): ResourceDefinition<StoredEdge> {
  return {
    kind: edge.kind,
    label: edge.label,
    idPrefix: edge.idPrefix,
    path: edge.path,
    listKey: edge.listKey,
    schemas: edge.schemas,
    write(input, current, ctx) {
      const given = { ...input };
      if (given.hostports !== undefined) {
        given.hostports = checkHostports(given.hostports as string[], edge.onlyPort);
        checkReserved(given.hostports as string[], edge.reservedBy, ctx);
      }
      // A module given replaces its raw input with what it writes.
      return { ...merge<StoredEdge>(current ?? { hostports: [] }, given), ...writeModules(input, edge.modules, ctx) };
    },
    uniqueKeys: (data) => hostportKeys(data.hostports),
    render: (object, services) =>
      withCommonFields(object, services.urls.of(`${edge.path}/${object.id}`), {
        hostports: object.data.hostports,
        ...renderModules(object.data, edge.modules, services, object),
        ...edge.renderMore?.(object, services),
      }),
    ...(edge.onDelete ? { onDelete: edge.onDelete } : {}),
  };
}

const HTTPS_EDGES: EdgeKind = {
  kind: HTTPS_EDGE,
  label: 'HTTPS edge',
  idPrefix: 'edghts',
  path: '/edges/https',
  listKey: 'https_edges',
  schemas: HttpsEdgeSchemas,
  modules: [mutualTlsModule, tlsTerminationModule],
  reservedBy: 'domain',
  onlyPort: '443',
  renderMore: (edge, services) => ({ routes: routesOf(edge.id, services) }),
  onDelete(edge, { store }) {
    for (const route of store.children(HTTPS_EDGE_ROUTE, edge.id)) store.remove(route.id);
  },
};

const TCP_EDGES: EdgeKind = {
  kind: TCP_EDGE,
  label: 'TCP edge',
  idPrefix: 'edgtcp',
  path: '/edges/tcp',
  listKey: 'tcp_edges',
  schemas: TcpEdgeSchemas,
  modules: [backendModule, ipRestrictionModule, trafficPolicyModule],
  reservedBy: 'addr',
};

const TLS_EDGES: EdgeKind = {
  kind: TLS_EDGE,
  label: 'TLS edge',
  idPrefix: 'edgtls',
  path: '/edges/tls',
  listKey: 'tls_edges',
  schemas: TlsEdgeSchemas,
  modules: [backendModule, ipRestrictionModule, mutualTlsModule, tlsTerminationModule, trafficPolicyModule],
  reservedBy: 'domain',
};

/** CRUD of every edge kind, `PUT/GET/DELETE <edge>/<module>` for their modules, and HTTPS edges' routes. */
export function registerEdges(app: FastifyInstance): void {
  for (const edge of [TCP_EDGES, HTTPS_EDGES, TLS_EDGES]) {
    registerResource(app, edgeResource(edge));
    registerModules(app, { kind: edge.kind, label: edge.label, path: `${edge.path}/:id` }, edge.modules);
    if (edge === HTTPS_EDGES) registerHttpsEdgeRoutes(app);
  }
}
