/**
 * `GatehouseClient`: typed accessors for every endpoint of the management API, each built
 * from the generic `collection`/`module` accessors with its path and schema types. A new
 * family (certificate authorities, event destinations and subscriptions) is one more field
 * here with its types from `@gatehouse/schemas`.
 */
import type {
  CertificateAuthority,
  CertificateAuthorityCreate,
  CertificateAuthorityUpdate,
  EventDestination,
  EventDestinationCreate,
  EventDestinationUpdate,
  EventSubscription,
  EventSubscriptionCreate,
  EventSubscriptionUpdate,
  BotUser,
  BotUserCreate,
  BotUserUpdate,
  EndpointBackend,
  EndpointBackendInput,
  EndpointIpPolicy,
  EndpointIpPolicyInput,
  EndpointMutualTls,
  EndpointMutualTlsInput,
  EndpointTlsTermination,
  EndpointTlsTerminationInput,
  EndpointTrafficPolicy,
  EndpointTrafficPolicyInput,
  FailoverBackend,
  FailoverBackendCreate,
  HttpResponseBackend,
  HttpResponseBackendCreate,
  HttpsEdge,
  HttpsEdgeCreate,
  HttpsEdgeRoute,
  HttpsEdgeRouteCreate,
  HttpsEdgeRouteUpdate,
  HttpsEdgeUpdate,
  IpPolicy,
  IpPolicyCreate,
  IpPolicyRule,
  IpPolicyRuleCreate,
  IpPolicyRuleUpdate,
  IpPolicyUpdate,
  IpRestriction,
  IpRestrictionCreate,
  IpRestrictionUpdate,
  StaticBackend,
  StaticBackendCreate,
  TcpEdge,
  TcpEdgeCreate,
  TcpEdgeUpdate,
  TunnelGroupBackend,
  TunnelGroupBackendCreate,
  WeightedBackend,
  WeightedBackendCreate,
} from '@gatehouse/schemas';
import { ROUTE_MODULE_NAMES as ROUTE_MODULES } from '@gatehouse/schemas/runtime';
import { collection, listableCollection, moduleAccessor, paginate, paginatePages, type Collection, type ModuleAccessor } from './resources.js';
import { Transport } from './transport.js';
import type { ClientOptions, Method, RequestCounts, RequestOptions } from './client-options.js';

/** A route module's field name, from the schemas package's table of them (api-spec 2.7). */
type RouteModuleName = (typeof ROUTE_MODULES)[number];

/**
 * The thirteen route modules, keyed by their field name: each typed as the route's inline
 * field (output) and create field (input), so the list of modules is declared only once.
 */
export type RouteModules = {
  [K in RouteModuleName]: ModuleAccessor<NonNullable<HttpsEdgeRoute[K]>, NonNullable<HttpsEdgeRouteCreate[K]>>;
};

/** The route modules' names in API order, from the same table. */
export const ROUTE_MODULE_NAMES: readonly RouteModuleName[] = ROUTE_MODULES;

export interface HttpsEdgeRoutes extends Collection<HttpsEdgeRoute, HttpsEdgeRouteCreate, HttpsEdgeRouteUpdate> {
  /** Modules of a route of this edge; the owner id is the route's id. */
  modules: RouteModules;
}

export class GatehouseClient {
  readonly transport: Transport;

  readonly ipPolicies;
  readonly ipPolicyRules;
  readonly ipRestrictions;
  readonly botUsers;
  readonly httpsEdges;
  /** `mutual_tls` and `tls_termination` of an HTTPS edge; the owner id is the edge's id. */
  readonly httpsEdgeModules;
  readonly tcpEdges;
  /** `backend`, `ip_restriction` and `traffic_policy` of a TCP edge. */
  readonly tcpEdgeModules;
  readonly backends;
  readonly certificateAuthorities;
  readonly eventDestinations;
  readonly eventSubscriptions;

  constructor(options: ClientOptions) {
    const t = (this.transport = new Transport(options));
    this.ipPolicies = listableCollection<IpPolicy, IpPolicyCreate, IpPolicyUpdate>(t, '/ip_policies', 'ip_policies');
    this.ipPolicyRules = listableCollection<IpPolicyRule, IpPolicyRuleCreate, IpPolicyRuleUpdate>(t, '/ip_policy_rules', 'ip_policy_rules');
    this.ipRestrictions = listableCollection<IpRestriction, IpRestrictionCreate, IpRestrictionUpdate>(t, '/ip_restrictions', 'ip_restrictions');
    this.botUsers = listableCollection<BotUser, BotUserCreate, BotUserUpdate>(t, '/bot_users', 'bot_users');
    this.httpsEdges = listableCollection<HttpsEdge, HttpsEdgeCreate, HttpsEdgeUpdate>(t, '/edges/https', 'https_edges');
    const httpsEdge = (id: string) => `/edges/https/${encodeURIComponent(id)}`;
    this.httpsEdgeModules = {
      mutual_tls: moduleAccessor<EndpointMutualTls, EndpointMutualTlsInput>(t, httpsEdge, 'mutual_tls'),
      tls_termination: moduleAccessor<EndpointTlsTermination, EndpointTlsTerminationInput>(t, httpsEdge, 'tls_termination'),
    };
    this.tcpEdges = listableCollection<TcpEdge, TcpEdgeCreate, TcpEdgeUpdate>(t, '/edges/tcp', 'tcp_edges');
    const tcpEdge = (id: string) => `/edges/tcp/${encodeURIComponent(id)}`;
    this.tcpEdgeModules = {
      backend: moduleAccessor<EndpointBackend, EndpointBackendInput>(t, tcpEdge, 'backend'),
      ip_restriction: moduleAccessor<EndpointIpPolicy, EndpointIpPolicyInput>(t, tcpEdge, 'ip_restriction'),
      traffic_policy: moduleAccessor<EndpointTrafficPolicy, EndpointTrafficPolicyInput>(t, tcpEdge, 'traffic_policy'),
    };
    // Every backend kind is listed under `backends`; its PATCH body is any of its create fields.
    const backend = <T, C>(kind: string) => listableCollection<T, C, Partial<C>>(t, `/backends/${kind}`, 'backends');
    this.backends = {
      tunnelGroup: backend<TunnelGroupBackend, TunnelGroupBackendCreate>('tunnel_group'),
      httpResponse: backend<HttpResponseBackend, HttpResponseBackendCreate>('http_response'),
      failover: backend<FailoverBackend, FailoverBackendCreate>('failover'),
      weighted: backend<WeightedBackend, WeightedBackendCreate>('weighted'),
      static: backend<StaticBackend, StaticBackendCreate>('static'),
    };
    this.certificateAuthorities = listableCollection<CertificateAuthority, CertificateAuthorityCreate, CertificateAuthorityUpdate>(
      t,
      '/certificate_authorities',
      'certificate_authorities',
    );
    this.eventDestinations = listableCollection<EventDestination, EventDestinationCreate, EventDestinationUpdate>(
      t,
      '/event_destinations',
      'event_destinations',
    );
    this.eventSubscriptions = listableCollection<EventSubscription, EventSubscriptionCreate, EventSubscriptionUpdate>(
      t,
      '/event_subscriptions',
      'event_subscriptions',
    );
  }

  /** Routes of one HTTPS edge (no list endpoint: routes appear inline in their edge). */
  httpsEdgeRoutes(edgeId: string): HttpsEdgeRoutes {
    const base = `/edges/https/${encodeURIComponent(edgeId)}/routes`;
    const route = (id: string) => `${base}/${encodeURIComponent(id)}`;
    const modules = Object.fromEntries(ROUTE_MODULE_NAMES.map((name) => [name, moduleAccessor(this.transport, route, name)])) as unknown as RouteModules;
    return { ...collection<HttpsEdgeRoute, HttpsEdgeRouteCreate, HttpsEdgeRouteUpdate>(this.transport, base), modules };
  }

  /** Untyped escape hatch over the same transport (paths relative to the base URL). */
  request<T>(method: Method, path: string, options?: RequestOptions): Promise<T> {
    return this.transport.request<T>(method, path, options);
  }

  /** Every item of any list endpoint, following `next_page_uri`. */
  list<T>(path: string, listKey: string, options?: RequestOptions): AsyncGenerator<T> {
    return paginate<T>(this.transport, path, listKey, options);
  }

  /** `list` a page at a time: the items of each answer as one array. */
  listPages<T>(path: string, listKey: string, options?: RequestOptions): AsyncGenerator<T[]> {
    return paginatePages<T>(this.transport, path, listKey, options);
  }

  /** Attempts made so far, retries included. */
  get requests(): RequestCounts {
    return this.transport.counts;
  }

  close(): Promise<void> {
    return this.transport.close();
  }
}
