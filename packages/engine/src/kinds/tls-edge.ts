/**
 * TLS edges (`/edges/tls`): hostports (on reserved domains) plus the backend, IP restriction,
 * mutual TLS, TLS termination and traffic policy modules, PUT or DELETEd on their own when they
 * change, as for TCP edges.
 */
import { checkHostports, domainsNeeded, hostportKeys, hostports } from './hostports.js';
import { TLS_EDGE_MODULES, moduleSet } from './modules.js';
import { commonBody, commonFields, moduleBodies, requireId, updateWithModules } from './shared.js';
import type { KindDescriptor } from './types.js';

const modules = moduleSet(TLS_EDGE_MODULES);

export const tlsEdge: KindDescriptor = {
  kind: 'TLSEdge',
  title: 'TLS edge',
  manifestKind: 'TLSEdge',
  observe: { lists: [{ path: '/edges/tls', listKey: 'tls_edges' }] },
  metadata: true,
  uniqueKeys: hostportKeys,
  requires: domainsNeeded,
  fromManifest: (spec) => ({ ...commonFields(spec), hostports: hostports(spec), ...modules.fromManifest(spec) }),
  fromLive: (live) => ({ ...commonFields(live), hostports: hostports(live), ...modules.fromLive(live) }),
  refs: modules.refs,
  sensitive: modules.sensitive,
  sets: [['hostports']],
  immutable: [],
  serverChosen: modules.serverChosen,
  label: (normal, name) => name ?? ((normal.hostports as string[])[0] ?? ''),
  check: (normal, ctx) => [...checkHostports(normal, ctx, false), ...modules.check(normal, ctx)],
  calls: {
    create: (normal, ctx) => [
      {
        method: 'POST',
        path: '/edges/tls',
        body: { ...commonBody(normal, ctx), hostports: normal.hostports, ...moduleBodies(normal, modules.inputs, ctx.resolve) },
      },
    ],
    update: (_before, after, changed, ctx) =>
      updateWithModules(`/edges/tls/${requireId(ctx)}`, after, changed, ctx, modules.inputs, (a, fields, c) => ({
        ...(fields.some((f) => f === 'description' || f === 'metadata') || c.metadata !== undefined ? commonBody(a, c, fields) : {}),
        ...(fields.includes('hostports') ? { hostports: a.hostports } : {}),
      })),
    delete: (_normal, ctx) => [{ method: 'DELETE', path: `/edges/tls/${requireId(ctx)}` }],
  },
};
