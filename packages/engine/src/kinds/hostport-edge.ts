/**
 * The descriptor shared by HTTPS, TCP and TLS edges: hostports plus a set of modules that are
 * PUT or DELETEd on their own when they change. The three kinds differ only in their path, the
 * modules they take, their hostports' port (443 only for HTTPS edges) and how their hostports
 * name their reservations (an HTTPS or TLS edge's hostname is a reserved domain, which plan
 * creates first; a TCP edge names the reserved TCP address by reference, since the service
 * assigns it), so they are one description with those parameters.
 */
import { checkHostports, domainsNeeded, hostportKeys, hostports, hostportsBody } from './hostports.js';
import { moduleSet, type ModuleName } from './modules.js';
import { commonBody, commonFields, moduleBodies, requireId, updateWithModules } from './shared.js';
import type { KindDescriptor, RefField } from './types.js';

export interface HostportEdgeOptions {
  kind: 'HTTPSEdge' | 'TCPEdge' | 'TLSEdge';
  title: string;
  /** Collection path, e.g. `/edges/tcp`, and the key of its list envelope. */
  path: string;
  listKey: string;
  modules: ModuleName[];
  /**
   * Hostports written as references to reservations (TCP edges: `RESERVED_ADDRESS_REF`). Without
   * it, hostports are hostnames whose reserved domains must exist first (HTTPS and TLS edges).
   */
  hostportRef?: RefField;
}

export function hostportEdge(options: HostportEdgeOptions): KindDescriptor {
  const modules = moduleSet(options.modules);
  const { path } = options;
  return {
    kind: options.kind,
    policyName: 'edge',
    title: options.title,
    manifestKind: options.kind,
    observe: { lists: [{ path, listKey: options.listKey }] },
    metadata: true,
    uniqueKeys: hostportKeys,
    ...(options.hostportRef ? {} : { requires: domainsNeeded }),
    fromManifest: (spec) => ({ ...commonFields(spec), hostports: hostports(spec), ...modules.fromManifest(spec) }),
    fromLive: (live) => ({ ...commonFields(live), hostports: hostports(live), ...modules.fromLive(live) }),
    refs: options.hostportRef ? [options.hostportRef, ...modules.refs] : modules.refs,
    sensitive: modules.sensitive,
    sets: [['hostports']],
    immutable: [],
    serverChosen: modules.serverChosen,
    serviceText: modules.serviceText,
    label: (normal, name) => name ?? (normal.hostports as string[])[0] ?? String(normal.description ?? ''),
    check: (normal, ctx) => [...checkHostports(normal, ctx, options.kind === 'HTTPSEdge'), ...modules.check(normal, ctx)],
    calls: {
      create: (normal, ctx) => [
        {
          method: 'POST',
          path,
          body: { ...commonBody(normal, ctx), hostports: hostportsBody(normal, ctx), ...moduleBodies(normal, modules.inputs, ctx.resolve) },
        },
      ],
      update: (_before, after, changed, ctx) =>
        updateWithModules(`${path}/${requireId(ctx)}`, after, changed, ctx, modules.inputs, (a, fields, c) =>
          fields.includes('hostports') ? { hostports: hostportsBody(a, c) } : {},
        ),
      delete: (_normal, ctx) => [{ method: 'DELETE', path: `${path}/${requireId(ctx)}` }],
    },
  };
}
