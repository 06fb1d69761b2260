/**
 * Reservations, what edge hostports are made from: `ReservedDomain` (`/reserved_domains`: a
 * hostname or a `*.wildcard` that HTTPS and TLS edges' hostports use) and `ReservedTCPAddress`
 * (`/reserved_addrs`: the `hostname:port` a TCP edge's hostport is).
 *
 * A domain never changes (a new one is a replace); the service keeps it unique, so it is the
 * domain's unique key (a live domain that this stack does not own must be adopted). A TCP
 * address is assigned by the service unless the manifest names it (`addr`, which the reference
 * server honours and which identifies an existing reservation); an address left out is the
 * server's choice and never a difference. Edges declare what they need with `requires`
 * (hostports.ts), so a plan creates the reservations an edge's hostports name before the edge.
 */
import { problem } from '../problems.js';
import { DNS_LABEL } from './hostports.js';
import { commonBody, commonFields, requireId } from './shared.js';
import type { KindDescriptor, Spec } from './types.js';

const policyOf = (source: Spec): Spec => {
  const policy = (source.certificate_management_policy ?? {}) as Spec;
  return { authority: policy.authority ?? 'letsencrypt', private_key_type: policy.private_key_type ?? 'rsa' };
};

export const reservedDomain: KindDescriptor = {
  kind: 'ReservedDomain',
  title: 'reserved domain',
  manifestKind: 'ReservedDomain',
  observe: { lists: [{ path: '/reserved_domains', listKey: 'reserved_domains' }] },
  metadata: true,
  naturalKey: (normal) => String(normal.domain),
  uniqueKeys: (normal) => [{ key: `domain:${String(normal.domain)}`, path: ['domain'], code: 'duplicate_hostport' }],
  fromManifest: (spec) => ({ ...commonFields(spec), domain: String(spec.domain).toLowerCase(), certificate_management_policy: policyOf(spec) }),
  fromLive: (live) => ({ ...commonFields(live), domain: String(live.domain).toLowerCase(), certificate_management_policy: policyOf(live) }),
  refs: [],
  sensitive: [],
  immutable: ['domain'],
  label: (normal, name) => name ?? String(normal.domain),
  check: (normal, ctx) => {
    const labels = String(normal.domain).replace(/^\*\./, '').split('.');
    return labels.length < 2 || !labels.every((l) => DNS_LABEL.test(l))
      ? [problem('invalid_value', `domain "${String(normal.domain)}" must be a DNS name such as api.example.com or *.example.com`, ctx.at(['domain']))]
      : [];
  },
  calls: {
    create: (normal, ctx) => [
      {
        method: 'POST',
        path: '/reserved_domains',
        body: { ...commonBody(normal, ctx), domain: normal.domain, certificate_management_policy: normal.certificate_management_policy },
      },
    ],
    update: (_before, after, changed, ctx) => [
      {
        method: 'PATCH',
        path: `/reserved_domains/${requireId(ctx)}`,
        body: {
          ...commonBody(after, ctx, changed),
          ...(changed.includes('certificate_management_policy') ? { certificate_management_policy: after.certificate_management_policy } : {}),
        },
      },
    ],
    delete: (_normal, ctx) => [{ method: 'DELETE', path: `/reserved_domains/${requireId(ctx)}` }],
  },
};

export const reservedTcpAddress: KindDescriptor = {
  kind: 'ReservedTCPAddress',
  title: 'reserved TCP address',
  manifestKind: 'ReservedTCPAddress',
  observe: { lists: [{ path: '/reserved_addrs', listKey: 'reserved_addrs' }] },
  metadata: true,
  naturalKey: (normal) => String(normal.addr ?? ''),
  uniqueKeys: (normal) => (normal.addr === undefined ? [] : [{ key: `addr:${String(normal.addr)}`, path: ['addr'], code: 'duplicate_hostport' }]),
  fromManifest: (spec) => ({
    ...commonFields(spec),
    region: spec.region ?? 'us',
    ...(spec.addr !== undefined ? { addr: String(spec.addr).toLowerCase() } : {}),
  }),
  fromLive: (live) => ({ ...commonFields(live), region: live.region ?? 'us', addr: String(live.addr).toLowerCase() }),
  refs: [],
  sensitive: [],
  immutable: ['region', 'addr'],
  serverChosen: [['addr']],
  label: (normal, name) => name ?? String(normal.addr ?? normal.region),
  calls: {
    create: (normal, ctx) => [
      {
        method: 'POST',
        path: '/reserved_addrs',
        body: { ...commonBody(normal, ctx), region: normal.region, ...(normal.addr !== undefined ? { addr: normal.addr } : {}) },
      },
    ],
    update: (_before, after, changed, ctx) => [{ method: 'PATCH', path: `/reserved_addrs/${requireId(ctx)}`, body: commonBody(after, ctx, changed) }],
    delete: (_normal, ctx) => [{ method: 'DELETE', path: `/reserved_addrs/${requireId(ctx)}` }],
  },
};
