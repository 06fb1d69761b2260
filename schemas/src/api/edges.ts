/**
 * The three edge kinds, from one description (`edgeSchemas`): description, metadata and
 * hostports (each belongs to at most one edge of any kind), plus the modules of the kind, each
 * given inline on create and PATCH and rendered inline, `null` when unset. The kinds differ in
 * their hostports (HTTPS edges serve port 443 only), their modules and their list key, and an
 * HTTPS edge also renders its routes, in creation order.
 *
 * - HTTPS edges (api-spec 2.7, 4.7): the `mutual_tls` and `tls_termination` edge modules; created
 *   with `routes: []` and its modules `null` unless given.
 * - TCP edges (`/edges/tcp`): the backend, IP restriction and traffic policy modules.
 * - TLS edges (`/edges/tls`): hostports on reserved domains; the backend, IP restriction, mutual
 *   TLS, TLS termination (`terminate_at` edge or upstream) and traffic policy modules.
 */
import { Type, type Static, type TArray, type TProperties, type TSchema, type TString } from '@sinclair/typebox';
import { Description, Metadata, listEnvelope, moduleFields, resourceBase, UpdateBody, type ModuleSchemas } from '../common.js';
import { EndpointMutualTls, EndpointMutualTlsInput, EndpointTlsTermination, EndpointTlsTerminationInput } from './endpoint-modules.js';
import { HttpsEdgeRoute, ROUTE_MODULE_SCHEMAS } from './routes.js';

/**
 * The create, update, resource and list schemas of one edge kind. `modules` are in the order
 * bodies and responses list them; `rendered` are response fields after them (an HTTPS edge's
 * routes).
 */
// `{}`: no rendered fields, as TypeBox writes an empty set of properties.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export function edgeSchemas<K extends string, H extends TSchema, M extends Record<string, ModuleSchemas>, R extends TProperties = {}>(options: {
  listKey: K;
  hostports: H;
  modules: M;
  rendered?: R;
}) {
  const { inputs, outputs } = moduleFields(options.modules);
  const fields = {
    description: Type.Optional(Description),
    metadata: Type.Optional(Metadata),
    hostports: Type.Optional(options.hostports),
    ...inputs,
  };
  const resource = Type.Object({
    ...resourceBase,
    hostports: Type.Array(Type.String()) as TArray<TString>,
    ...outputs,
    ...((options.rendered ?? {}) as R),
  });
  return {
    create: Type.Object(fields, { additionalProperties: false }),
    update: UpdateBody(fields),
    resource,
    list: listEnvelope(options.listKey, resource),
  };
}

export const Hostports = Type.Array(Type.String({ minLength: 1 }), {
  description: 'hostname:port pairs served by the edge (port 1..65535); each belongs to at most one edge',
});
export const HttpsHostports = Type.Array(Type.String({ minLength: 1 }), {
  description: 'hostname:443 pairs served by the edge; each belongs to at most one edge',
});

// The modules edges share with routes, described once (routes.ts).
const { backend, ip_restriction: ipRestriction, traffic_policy: trafficPolicy } = ROUTE_MODULE_SCHEMAS;
const mutualTls = { input: EndpointMutualTlsInput, output: EndpointMutualTls };
const tlsTermination = { input: EndpointTlsTerminationInput, output: EndpointTlsTermination };

// `<Kind>EdgeSchemas`: the four schemas of each kind together, as the reference server takes them.

export const HttpsEdgeSchemas = edgeSchemas({
  listKey: 'https_edges',
  hostports: HttpsHostports,
  modules: { mutual_tls: mutualTls, tls_termination: tlsTermination },
  rendered: { routes: Type.Array(HttpsEdgeRoute) },
});
export const HttpsEdgeCreate = HttpsEdgeSchemas.create;
export const HttpsEdgeUpdate = HttpsEdgeSchemas.update;
export const HttpsEdge = HttpsEdgeSchemas.resource;
export const HttpsEdgeList = HttpsEdgeSchemas.list;
export type HttpsEdgeCreate = Static<typeof HttpsEdgeCreate>;
export type HttpsEdgeUpdate = Static<typeof HttpsEdgeUpdate>;
export type HttpsEdge = Static<typeof HttpsEdge>;

export const TcpEdgeSchemas = edgeSchemas({
  listKey: 'tcp_edges',
  hostports: Hostports,
  modules: { backend, ip_restriction: ipRestriction, traffic_policy: trafficPolicy },
});
export const TcpEdgeCreate = TcpEdgeSchemas.create;
export const TcpEdgeUpdate = TcpEdgeSchemas.update;
export const TcpEdge = TcpEdgeSchemas.resource;
export const TcpEdgeList = TcpEdgeSchemas.list;
export type TcpEdgeCreate = Static<typeof TcpEdgeCreate>;
export type TcpEdgeUpdate = Static<typeof TcpEdgeUpdate>;
export type TcpEdge = Static<typeof TcpEdge>;

export const TlsEdgeSchemas = edgeSchemas({
  listKey: 'tls_edges',
  hostports: Hostports,
  modules: { backend, ip_restriction: ipRestriction, mutual_tls: mutualTls, tls_termination: tlsTermination, traffic_policy: trafficPolicy },
});
export const TlsEdgeCreate = TlsEdgeSchemas.create;
export const TlsEdgeUpdate = TlsEdgeSchemas.update;
export const TlsEdge = TlsEdgeSchemas.resource;
export const TlsEdgeList = TlsEdgeSchemas.list;
export type TlsEdgeCreate = Static<typeof TlsEdgeCreate>;
export type TlsEdgeUpdate = Static<typeof TlsEdgeUpdate>;
export type TlsEdge = Static<typeof TlsEdge>;
