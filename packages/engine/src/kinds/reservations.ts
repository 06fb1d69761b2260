/**
 * Reservations, what edge hostports are made from: `ReservedDomain` (`/reserved_domains`: a
 * hostname or a `*.wildcard` that HTTPS and TLS edges' hostports use) and `ReservedTCPAddress`
 * (`/reserved_addrs`: the `hostname:port` a TCP edge's hostport is).
 *
 * A domain never changes (a new one is a replace); the service keeps it unique, so it is the
 * domain's unique key (a live domain that this stack does not own must be adopted). Its
 * deprecated `region` is sent on create and never compared (the service echoes it and no
 * update changes it). A TCP address's `addr` is assigned by the service and read-only: no
 * manifest can name it, so TCP edges refer to the reservation itself
 * (`{reserved_tcp_address: <name>}`, a reference by value: tcp-edge.ts), and a region change is
 * a replace, which gets a new address. HTTPS and TLS edges declare the domains they need with
 * `requires` (hostports.ts), so a plan creates those before the edge.
 */
import { problem } from '../problems.js';
import { DNS_LABEL } from './hostports.js';
import { collectionCalls, commonBody, commonFields } from './shared.js';
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
  fromManifest: (spec) => ({
    ...commonFields(spec),
    domain: String(spec.domain).toLowerCase(),
    ...(spec.region !== undefined ? { region: spec.region } : {}),
    certificate_management_policy: policyOf(spec),
  }),
  fromLive: (live) => ({
    ...commonFields(live),
    domain: String(live.domain).toLowerCase(),
    ...(typeof live.region === 'string' ? { region: live.region } : {}),
    certificate_management_policy: policyOf(live),
  }),
  refs: [],
  sensitive: [],
  immutable: ['domain'],
  createOnly: ['region'],
  label: (normal, name) => name ?? String(normal.domain),
  check: (normal, ctx) => {
    const labels = String(normal.domain).replace(/^\*\./, '').split('.');
    return labels.length < 2 || !labels.every((l) => DNS_LABEL.test(l))
      ? [problem('invalid_value', `domain "${String(normal.domain)}" must be a DNS name such as api.example.com or *.example.com`, ctx.at(['domain']))]
      : [];
  },
  calls: collectionCalls(
    '/reserved_domains',
    (normal, ctx) => ({
      ...commonBody(normal, ctx),
      domain: normal.domain,
      ...(normal.region !== undefined ? { region: normal.region } : {}),
      certificate_management_policy: normal.certificate_management_policy,
    }),
    (after, changed, ctx) => ({
      ...commonBody(after, ctx, changed),
      ...(changed.includes('certificate_management_policy') ? { certificate_management_policy: after.certificate_management_policy } : {}),
    }),
  ),
};

export const reservedTcpAddress: KindDescriptor = {
  kind: 'ReservedTCPAddress',
  title: 'reserved TCP address',
  manifestKind: 'ReservedTCPAddress',
  observe: { lists: [{ path: '/reserved_addrs', listKey: 'reserved_addrs' }] },
  metadata: true,
  fromManifest: (spec) => ({ ...commonFields(spec), region: spec.region ?? 'us' }),
  // The assigned address is shown (an unmanaged reservation's label) but never compared.
  fromLive: (live) => ({ ...commonFields(live), region: live.region ?? 'us', addr: String(live.addr) }),
  refs: [],
  sensitive: [],
  immutable: ['region'],
  serverChosen: [['addr']],
  label: (normal, name) => name ?? String(normal.addr ?? normal.region),
  calls: collectionCalls(
    '/reserved_addrs',
    (normal, ctx) => ({ ...commonBody(normal, ctx), region: normal.region }),
    (after, changed, ctx) => commonBody(after, ctx, changed),
  ),
};
