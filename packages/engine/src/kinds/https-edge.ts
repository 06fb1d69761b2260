/**
 * HTTPS edges (api-spec 2.7, 4.7) with their edge modules, and their routes, declared inline
 * in the edge's manifest and read inline in the edge's live object (routes have no list).
 * A route's identity is its edge plus match_type and match (unique per edge); its modules
 * are PUT and DELETEd on their own when they change.
 */
import { oauthRouteProblem } from '@gatehouse/schemas/runtime';
import { problem, type Problem } from '../problems.js';
import { hostportEdge } from './hostport-edge.js';
import { DNS_LABEL } from './hostports.js';
import { HTTPS_EDGE_MODULES, ROUTE_MODULES, moduleSet } from './modules.js';
import { commonBody, commonFields, moduleBodies, requireId, requireParent, updateWithModules } from './shared.js';
import type { KindDescriptor } from './types.js';

const routeModules = moduleSet(ROUTE_MODULES);

export const httpsEdge = hostportEdge({
  kind: 'HTTPSEdge',
  title: 'HTTPS edge',
  path: '/edges/https',
  listKey: 'https_edges',
  modules: HTTPS_EDGE_MODULES,
});

const AUTH_MODULES = ['saml', 'oidc', 'oauth'] as const;

export const httpsEdgeRoute: KindDescriptor = {
  kind: 'HTTPSEdgeRoute',
  policyName: 'route',
  title: 'HTTPS edge route',
  child: { parentKind: 'HTTPSEdge', field: 'routes', duplicate: 'duplicate_route', key: 'match' },
  observe: { inline: { field: 'routes' } },
  metadata: true,
  // The service keeps `match` unique per edge (whatever the match_type), so `match` is the
  // natural key and match_type an updatable field.
  naturalKey: (normal) => String(normal.match),
  fromManifest: (spec) => ({ ...commonFields(spec), match_type: spec.match_type, match: spec.match, ...routeModules.fromManifest(spec) }),
  fromLive: (live) => ({ ...commonFields(live), match_type: live.match_type, match: live.match, ...routeModules.fromLive(live) }),
  refs: routeModules.refs,
  sensitive: routeModules.sensitive,
  immutable: [],
  serverChosen: routeModules.serverChosen,
  serviceText: routeModules.serviceText,
  label: (normal) => `${String(normal.match_type)}:${String(normal.match)}`,
  check: (normal, ctx) => {
    const out: Problem[] = [];
    const match = String(normal.match);
    const host = match.startsWith('/') ? '' : match.split('/')[0]!;
    const labels = host.split('.');
    if (!match.startsWith('/') && (labels.length < 2 || host.length > 253 || !labels.every((l) => DNS_LABEL.test(l)))) {
      out.push(problem('route_match_invalid', `route match "${match}" must be a path beginning with /, a host, or a host plus path`, ctx.at(['match'])));
    }
    const auth = AUTH_MODULES.filter((m) => (normal[m] as { enabled?: boolean } | undefined)?.enabled === true);
    if (auth.length > 1) {
      out.push(
        problem('module_invalid', `at most one of saml, oidc and oauth may be enabled on a route; this one enables ${auth.join(' and ')}`, ctx.at([auth[1]!])),
      );
    }
    const oauthProblem = normal.oauth !== undefined ? oauthRouteProblem(match) : undefined;
    if (oauthProblem) out.push(problem('module_invalid', oauthProblem, ctx.at(['oauth'])));
    return [...out, ...routeModules.check(normal, ctx)];
  },
  calls: {
    create: (normal, ctx) => [
      {
        method: 'POST',
        path: `/edges/https/${requireParent(ctx)}/routes`,
        body: { ...commonBody(normal, ctx), match_type: normal.match_type, match: normal.match, ...moduleBodies(normal, routeModules.inputs, ctx.resolve) },
      },
    ],
    update: (_before, after, changed, ctx) =>
      updateWithModules(`/edges/https/${requireParent(ctx)}/routes/${requireId(ctx)}`, after, changed, ctx, routeModules.inputs, (a, fields) =>
        Object.fromEntries(['match_type', 'match'].filter((f) => fields.includes(f)).map((f) => [f, a[f]])),
      ),
    delete: (_normal, ctx) => [{ method: 'DELETE', path: `/edges/https/${requireParent(ctx)}/routes/${requireId(ctx)}` }],
  },
};
