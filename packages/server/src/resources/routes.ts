/**
 * HTTPS edge routes (api-spec 2.7) under `/edges/https/{edge_id}/routes`: create, get, PATCH
 * and DELETE (no list endpoint: routes appear inline in their edge, in creation order), and
 * `PUT/GET/DELETE .../routes/{id}/<module>` for each of the thirteen route modules.
 *
 * Rules (service-behaviour.md): `match_type` is exact_path or path_prefix (schema); `match` is
 * required and is a path beginning with `/`, a host, or a host plus path; it is unique per
 * edge (the route's identity, claimed as a unique key); at most one of saml, oidc and oauth
 * is enabled on a route, and OAuth is only on the route `/`, checked whether the modules
 * arrive with the route or one by one (`checkRouteModules`).
 * A module given in a PATCH replaces the stored one whole; only the module's DELETE removes it.
 */
import { HttpsEdgeRoute, HttpsEdgeRouteCreate, HttpsEdgeRouteUpdate, oauthRouteProblem } from '@gatehouse/schemas';
import type { FastifyInstance } from 'fastify';
import type { StoredObject } from '../db/store.js';
import { ApiError, invalidModule, invalidValue } from '../errors.js';
import type { Services } from './context.js';
import { merge, objectPath, registerResource, type ResourceDefinition } from './define.js';
import { registerModules, renderModules, writeModules, type AnyModule } from './modules.js';
import { backendModule } from './modules/backend.js';
import { circuitBreakerModule } from './modules/circuit-breaker.js';
import { ipRestrictionModule } from './modules/ip-restriction.js';
import { oauthModule } from './modules/oauth.js';
import { oidcModule } from './modules/oidc.js';
import { requestHeadersModule, responseHeadersModule } from './modules/headers.js';
import { samlModule } from './modules/saml.js';
import { IDENTITY_MODULES } from './modules/session.js';
import { trafficPolicyModule } from './modules/traffic-policy.js';
import { userAgentFilterModule } from './modules/user-agent-filter.js';
import { webhookVerificationModule } from './modules/webhook-verification.js';
import { compressionModule, websocketTcpConverterModule } from './modules/switch.js';
import { withCommonFields, type CommonFields } from './common.js';

export const HTTPS_EDGE = 'https_edge';
export const HTTPS_EDGE_ROUTE = 'https_edge_route';

/** The route modules in the order of api-spec 2.7, which is the order they are rendered in. */
const ROUTE_MODULES: readonly AnyModule[] = [
  backendModule,
  ipRestrictionModule,
  circuitBreakerModule,
  compressionModule,
  requestHeadersModule,
  responseHeadersModule,
  webhookVerificationModule,
  oauthModule,
  samlModule,
  oidcModule,
  websocketTcpConverterModule,
  userAgentFilterModule,
  trafficPolicyModule,
];

interface StoredRoute extends CommonFields, Record<string, unknown> {
  match_type: 'exact_path' | 'path_prefix';
  match: string;
}

const DNS_LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/i;

/**
 * A path begins with `/`; anything else must be a host (a dotted DNS name, so that a path
 * that forgot its slash is not taken for one) optionally followed by a path.
 */
function checkMatch(match: string): void {
  if (match.startsWith('/')) return;
  const slash = match.indexOf('/');
  const host = slash < 0 ? match : match.slice(0, slash);
  const labels = host.split('.');
  if (labels.length < 2 || host.length > 253 || !labels.every((label) => DNS_LABEL.test(label))) {
    throw invalidValue('match', `'${match}' must be a path beginning with /, a host, or a host followed by a path.`);
  }
}

/**
 * At most one of saml, oidc and oauth enabled on a route. The error names the first enabled
 * one among `written` (the modules this request wrote), else the second enabled one.
 */
function checkIdentityModules(data: Record<string, unknown>, ...written: string[]): void {
  const enabled = IDENTITY_MODULES.filter((name) => (data[name] as { enabled?: boolean } | undefined)?.enabled === true);
  if (enabled.length > 1) {
    const field = enabled.find((name) => written.includes(name)) ?? enabled[1]!;
    throw invalidModule(field, `at most one of saml, oidc and oauth may be enabled on a route; ${enabled.join(' and ')} are.`);
  }
}

/**
 * The rules across a route's modules and its match: at most one identity module enabled
 * (`checkIdentityModules`), and OAuth only on the route `/` (the service's error 7127), checked
 * whether the module arrives with the route, on its own, or the match changes under it.
 */
function checkRouteModules(data: Record<string, unknown>, ...written: string[]): void {
  checkIdentityModules(data, ...written);
  if (data.oauth !== undefined && data.oauth !== null && typeof data.match === 'string') {
    const problem = oauthRouteProblem(data.match);
    if (problem) throw invalidModule(written.includes('match') && !written.includes('oauth') ? 'match' : 'oauth', `${problem}.`);
  }
}

const httpsEdgeRoutes: ResourceDefinition<StoredRoute, HttpsEdgeRoute> = {
  kind: HTTPS_EDGE_ROUTE,
  label: 'HTTPS edge route',
  idPrefix: 'edghtsrt',
  path: '/edges/https/:edge_id/routes',
  parent: { kind: HTTPS_EDGE, param: 'edge_id', label: 'HTTPS edge' },
  schemas: { create: HttpsEdgeRouteCreate, update: HttpsEdgeRouteUpdate, resource: HttpsEdgeRoute },
  write(input, current, ctx) {
    if (typeof input.match === 'string') checkMatch(input.match);
    // A module given replaces its raw input with what it writes.
    const data = { ...merge<StoredRoute>(current, input), ...writeModules(input, ROUTE_MODULES, ctx) };
    checkRouteModules(data, ...Object.keys(input));
    return data;
  },
  uniqueKeys: (data, route) => [
    {
      key: `https_edge_route.match:${route.parentId}:${data.match}`,
      conflict: () =>
        new ApiError('duplicate_route', `match: HTTPS edge '${route.parentId}' already has a route for '${data.match}'.`, {
          field: 'match',
        }),
    },
  ],
  render: (route, services) => renderRoute(route, services),
};

function renderRoute(route: StoredObject<StoredRoute>, services: Services): HttpsEdgeRoute {
  const uri = services.urls.of(objectPath(httpsEdgeRoutes as ResourceDefinition<unknown>, route));
  const { match_type, match } = route.data;
  return {
    edge_id: route.parentId!,
    ...withCommonFields(route, uri, { match_type, match, ...renderModules(route.data, ROUTE_MODULES, services, route) }),
  } as HttpsEdgeRoute;
}

/** Routes of an edge as its response shows them: in creation order. */
export function routesOf(edgeId: string, services: Services): HttpsEdgeRoute[] {
  return services.store.children<StoredRoute>(HTTPS_EDGE_ROUTE, edgeId).map((route) => renderRoute(route, services));
}

/** Route CRUD and `PUT/GET/DELETE .../routes/{id}/<module>` for each route module. */
export function registerHttpsEdgeRoutes(app: FastifyInstance): void {
  registerResource(app, httpsEdgeRoutes);
  registerModules(
    app,
    {
      kind: HTTPS_EDGE_ROUTE,
      label: 'HTTPS edge route',
      path: '/edges/https/:edge_id/routes/:id',
      parent: { param: 'edge_id', kind: HTTPS_EDGE, label: 'HTTPS edge' },
      validate: checkRouteModules,
    },
    ROUTE_MODULES,
  );
}
