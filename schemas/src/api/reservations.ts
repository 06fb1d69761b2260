/**
 * Reservations, which edge hostports are made from (the service's `/reserved_domains` and
 * `/reserved_addrs`): an HTTPS or TLS edge's hostport names a reserved domain (or a name under
 * a reserved wildcard domain `*.example.com`), a TCP edge's hostport is a reserved TCP address.
 *
 * A reserved domain is created with its `domain`, which never changes; the service fills in
 * `cname_target` (the DNS CNAME target for a custom domain; null for a subdomain of the
 * service's own domains, which needs no DNS record), `acme_challenge_cname_target` (custom
 * wildcard domains only) and the certificate management policy it uses. `region` is
 * deprecated (the service routes domains globally): accepted on create and echoed, null when
 * not given, never updated. A reserved TCP address is assigned by the service at creation
 * (`addr`, `hostname:port`, read-only) in a region (`us` when unspecified).
 */
import { Type, type Static } from '@sinclair/typebox';
import { Description, Metadata, Nullable, Strict, StringEnum, listEnvelope, resourceBase, UpdateBody } from '../common.js';

/** A DNS name, optionally a wildcard of one label (`*.example.com`). */
export const DomainName = Type.String({
  minLength: 3,
  maxLength: 253,
  pattern: '^(\\*\\.)?([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\\.)+[a-zA-Z][a-zA-Z0-9-]{0,61}[a-zA-Z0-9]$',
  description: 'the hostname to reserve, e.g. api.example.com, or a wildcard *.example.com; cannot change',
});

export const CERTIFICATE_AUTHORITIES = ['letsencrypt'] as const;
export const PRIVATE_KEY_TYPES = ['rsa', 'ecdsa'] as const;

const PolicyIn = Strict({
  authority: Type.Optional(StringEnum(CERTIFICATE_AUTHORITIES, { description: 'letsencrypt, the only supported authority' })),
  private_key_type: Type.Optional(StringEnum(PRIVATE_KEY_TYPES, { description: 'rsa (default) or ecdsa' })),
});
const PolicyOut = Strict({ authority: StringEnum(CERTIFICATE_AUTHORITIES), private_key_type: StringEnum(PRIVATE_KEY_TYPES) });

const common = { description: Type.Optional(Description), metadata: Type.Optional(Metadata) };

export const TCP_ADDRESS_REGIONS = ['us', 'eu', 'ap', 'au', 'sa', 'jp', 'in', 'us-cal-1'] as const;

/** Deprecated on domains: the service accepts it on create and echoes it, and routes globally whatever it says. */
export const DomainRegion = StringEnum(TCP_ADDRESS_REGIONS, {
  description: 'deprecated: domains are served from every region; accepted on create and echoed, never updated',
});

export const ReservedDomainCreate = Strict({
  ...common,
  domain: DomainName,
  region: Type.Optional(DomainRegion),
  certificate_management_policy: Type.Optional(PolicyIn),
});
export const ReservedDomainUpdate = UpdateBody({ ...common, certificate_management_policy: PolicyIn });
export const ReservedDomain = Type.Object({
  ...resourceBase,
  domain: Type.String(),
  region: Nullable(Type.String()),
  cname_target: Nullable(Type.String()),
  acme_challenge_cname_target: Nullable(Type.String()),
  certificate_management_policy: PolicyOut,
});
export const ReservedDomainList = listEnvelope('reserved_domains', ReservedDomain);

export const TcpAddressRegion = StringEnum(TCP_ADDRESS_REGIONS, { description: 'region of the address; us when unspecified' });
export const ReservedAddrCreate = Strict({
  ...common,
  region: Type.Optional(TcpAddressRegion),
});
export const ReservedAddrUpdate = UpdateBody(common);
export const ReservedAddr = Type.Object({ ...resourceBase, addr: Type.String(), region: Type.String() });
export const ReservedAddrList = listEnvelope('reserved_addrs', ReservedAddr);

export type ReservedDomainCreate = Static<typeof ReservedDomainCreate>;
export type ReservedDomain = Static<typeof ReservedDomain>;
export type ReservedAddrCreate = Static<typeof ReservedAddrCreate>;
export type ReservedAddr = Static<typeof ReservedAddr>;

/**
 * Whether `hostname` is reserved by one of `domains`: the domain itself, or one label under a
 * reserved wildcard (`a.example.com` under `*.example.com`). Case-insensitive.
 */
export function domainCovers(domains: Iterable<string>, hostname: string): boolean {
  const host = hostname.toLowerCase();
  const dot = host.indexOf('.');
  const wildcard = dot < 0 ? undefined : `*${host.slice(dot)}`;
  for (const domain of domains) {
    const d = domain.toLowerCase();
    if (d === host || d === wildcard) return true;
  }
  return false;
}
