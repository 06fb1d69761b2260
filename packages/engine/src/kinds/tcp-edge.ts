/** TCP edges (`/edges/tcp`): hostports plus the backend, IP restriction and traffic policy modules. */
import { addressesNeeded, checkHostports, hostportKeys, hostports } from './hostports.js';
import { TCP_EDGE_MODULES, moduleSet } from './modules.js';
import { commonBody, commonFields, moduleBodies, requireId, updateWithModules } from './shared.js';
import type { KindDescriptor } from './types.js';

const modules = moduleSet(TCP_EDGE_MODULES);

export const tcpEdge: KindDescriptor = {
  kind: 'TCPEdge',
  policyName: 'edge',
  title: 'TCP edge',
  manifestKind: 'TCPEdge',
  observe: { lists: [{ path: '/edges/tcp', listKey: 'tcp_edges' }] },
  metadata: true,
  uniqueKeys: hostportKeys,
  requires: addressesNeeded,
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
        path: '/edges/tcp',
        body: { ...commonBody(normal, ctx), hostports: normal.hostports, ...moduleBodies(normal, modules.inputs, ctx.resolve) },
      },
    ],
    update: (_before, after, changed, ctx) =>
      updateWithModules(`/edges/tcp/${requireId(ctx)}`, after, changed, ctx, modules.inputs, (a, fields, c) => ({
        ...(fields.some((f) => f === 'description' || f === 'metadata') || c.metadata !== undefined ? commonBody(a, c, fields) : {}),
        ...(fields.includes('hostports') ? { hostports: a.hostports } : {}),
      })),
    delete: (_normal, ctx) => [{ method: 'DELETE', path: `/edges/tcp/${requireId(ctx)}` }],
  },
};
