/**
 * Reservations (`/reserved_domains`, `/reserved_addrs`), what edge hostports are made from,
 * and the check that an edge's hostports are reserved.
 *
 * A reserved domain (rd_ ids, `domain_*.v0` audit events) keeps its `domain` for life (unique,
 * lowercased); the server fills in `cname_target` (a custom domain's DNS target; null for a
 * subdomain of one of the service's own domains, `SERVICE_DOMAINS`, which needs no DNS record),
 * `acme_challenge_cname_target` (custom wildcards only) and the certificate management policy
 * (letsencrypt, rsa unless ecdsa is asked for). Its deprecated `region` is taken on create and
 * echoed (null when not given), as the service does; no update changes it. A reserved TCP
 * address (ra_ ids, `tcp_address_*.v0` audit events) has an `addr` that the server assigns at
 * creation, read-only as the service's is, and a region (us unless given).
 *
 * `checkReserved` is the service's rule for edges: an HTTPS or TLS edge's hostname is a
 * reserved domain or one label under a reserved wildcard, a TCP edge's hostport is a reserved
 * address; anything else is `invalid_hostport` with a message that says to reserve it. It is
 * skipped when the server runs with `reservationCheck: false` (`serve --no-reservation-check`).
 * Deleting a reservation that edges still use succeeds and leaves the edges in place.
 */
import {
  ReservedAddr,
  ReservedAddrCreate,
  ReservedAddrList,
  ReservedAddrUpdate,
  ReservedDomain,
  ReservedDomainCreate,
  ReservedDomainList,
  ReservedDomainUpdate,
  domainCovers,
} from '@gatehouse/schemas';
import { createHash } from 'node:crypto';
import { ApiError } from '../errors.js';
import { withCommonFields, type CommonFields } from './common.js';
import type { Services } from './context.js';
import { merge, type ResourceDefinition } from './define.js';

const RESERVED_DOMAIN = 'reserved_domain';
const RESERVED_ADDR = 'reserved_addr';

/**
 * The service's own base domains: a reserved subdomain of one (`api.example.ngrok.app`) is
 * served without a DNS record of the user's, so it has no CNAME targets.
 */
const SERVICE_DOMAINS = ['ngrok.app', 'ngrok.dev', 'ngrok-free.app', 'ngrok-free.dev', 'ngrok.io', 'ngrok.pizza'] as const;

/** Whether `domain` (lowercase, perhaps `*.`) lies under one of the service's own domains. */
const isServiceSubdomain = (domain: string): boolean => SERVICE_DOMAINS.some((base) => domain.endsWith(`.${base}`));

interface StoredDomain extends CommonFields {
  domain: string;
  /** Deprecated; absent when the create did not give it. */
  region?: string;
  certificate_management_policy: { authority: 'letsencrypt'; private_key_type: 'rsa' | 'ecdsa' };
}

/** A stable, DNS-safe label derived from an object id (CNAME targets, assigned addresses). */
const label = (id: string, length = 12) => createHash('sha256').update(id).digest('hex').slice(0, length);

export const reservedDomains: ResourceDefinition<StoredDomain, ReservedDomain> = {
  kind: RESERVED_DOMAIN,
  label: 'Reserved domain',
  idPrefix: 'rd',
  path: '/reserved_domains',
  listKey: 'reserved_domains',
  audit: 'domain',
  schemas: { create: ReservedDomainCreate, update: ReservedDomainUpdate, resource: ReservedDomain, list: ReservedDomainList },
  write(input, current) {
    const given = input as Partial<ReservedDomainCreate>;
    const policy = given.certificate_management_policy;
    const { certificate_management_policy: _policy, ...plain } = given;
    const data = merge<StoredDomain>(current, plain);
    if (given.domain !== undefined) data.domain = given.domain.toLowerCase();
    if (policy !== undefined || current === undefined) {
      data.certificate_management_policy = { authority: policy?.authority ?? 'letsencrypt', private_key_type: policy?.private_key_type ?? 'rsa' };
    }
    return data;
  },
  uniqueKeys: (data) => [
    {
      key: `reserved_domain:${data.domain}`,
      conflict: () => new ApiError('duplicate_name', `domain: '${data.domain}' is already reserved.`, { field: 'domain' }),
    },
  ],
  render: (object, { urls }) => {
    const custom = !isServiceSubdomain(object.data.domain);
    const wildcard = object.data.domain.startsWith('*.');
    return withCommonFields(object, urls.of(`/reserved_domains/${object.id}`), {
      domain: object.data.domain,
      region: object.data.region ?? null,
      cname_target: custom ? `${label(object.id)}.cname.gatehouse.invalid` : null,
      acme_challenge_cname_target: custom && wildcard ? `${label(object.id)}.acme.gatehouse.invalid` : null,
      certificate_management_policy: { ...object.data.certificate_management_policy },
    });
  },
};

interface StoredAddr extends CommonFields {
  addr: string;
  region: string;
}

export const reservedAddrs: ResourceDefinition<StoredAddr, ReservedAddr> = {
  kind: RESERVED_ADDR,
  label: 'Reserved TCP address',
  idPrefix: 'ra',
  path: '/reserved_addrs',
  listKey: 'reserved_addrs',
  audit: 'tcp_address',
  schemas: { create: ReservedAddrCreate, update: ReservedAddrUpdate, resource: ReservedAddr, list: ReservedAddrList },
  write(input, current, ctx) {
    const given = input as Partial<ReservedAddrCreate>;
    if (current) return merge<StoredAddr>(current, input);
    const region = given.region ?? 'us';
    const addr = `${parseInt(label(ctx.id, 2), 16) % 9}.tcp.${region}.gatehouse.invalid:${10_000 + (parseInt(label(ctx.id, 6), 16) % 50_000)}`;
    const { region: _region, ...plain } = given;
    return { ...plain, addr, region };
  },
  uniqueKeys: (data) => [
    {
      key: `reserved_addr:${data.addr}`,
      conflict: () => new ApiError('duplicate_name', `addr: '${data.addr}' is already reserved.`, { field: 'addr' }),
    },
  ],
  render: (object, { urls }) => withCommonFields(object, urls.of(`/reserved_addrs/${object.id}`), { addr: object.data.addr, region: object.data.region }),
};

/**
 * Refuses a hostport that no reservation covers: `by: 'domain'` for HTTPS and TLS edges (the
 * hostname must be a reserved domain or under a reserved wildcard), `by: 'addr'` for TCP edges
 * (the whole hostport must be a reserved address). `hostports` are already canonical.
 */
export function checkReserved(hostports: readonly string[], by: 'domain' | 'addr', services: Services, field = 'hostports'): void {
  if (!services.reservationCheck || hostports.length === 0) return;
  if (by === 'domain') {
    const domains = services.store.all<StoredDomain>(RESERVED_DOMAIN).map((d) => d.data.domain);
    hostports.forEach((hostport, i) => {
      const host = hostport.slice(0, hostport.lastIndexOf(':'));
      if (!domainCovers(domains, host)) {
        throw new ApiError(
          'invalid_hostport',
          `${field}[${i}]: '${host}' is not a reserved domain; reserve it first (POST /reserved_domains {"domain": "${host}"}, or a ReservedDomain manifest), or a wildcard that covers it.`,
          { field: `${field}[${i}]`, hostport },
        );
      }
    });
    return;
  }
  const addrs = new Set(services.store.all<StoredAddr>(RESERVED_ADDR).map((a) => a.data.addr));
  hostports.forEach((hostport, i) => {
    if (!addrs.has(hostport)) {
      throw new ApiError(
        'invalid_hostport',
        `${field}[${i}]: '${hostport}' is not a reserved TCP address; reserve it first (POST /reserved_addrs, or a ReservedTCPAddress manifest).`,
        { field: `${field}[${i}]`, hostport },
      );
    }
  });
}
