/**
 * The service's hostport rules: `hostname:port` with a DNS hostname and a port 1..65535 (443
 * only for HTTPS edges); the service stores the hostname lowercased, and a hostport belongs to
 * at most one edge of either kind.
 *
 * A TCP edge may also name a hostport by reference, `{reserved_tcp_address: <name>}` (the
 * address the service assigns to that reservation, which no manifest can know beforehand): in
 * the normal form the item is the reference's token, and the API is sent the reservation's
 * `addr` (`hostportsBody`).
 */
import { isMap } from '../identity/patterns.js';
import { problem, type Problem } from '../problems.js';
import type { CallContext, CheckContext, RefField, Spec } from './types.js';

export const DNS_LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/i;

/** The hostport as the service stores it (hostname lowercased); a reference token (`Kind/name`, an id) as it is. */
function canonicalHostport(raw: string): string {
  const colon = raw.lastIndexOf(':');
  return colon < 0 || raw.includes('/') ? raw : `${raw.slice(0, colon).toLowerCase()}${raw.slice(colon)}`;
}

/** The hostports of a spec, canonical; an item written as a reference and not yet resolved stays as written. */
export const hostports = (source: Spec): unknown[] =>
  ((source.hostports as unknown[] | undefined) ?? []).map((h) => (typeof h === 'string' ? canonicalHostport(h) : h));

/** A TCP edge's hostport by reference: `{reserved_tcp_address: <name or {id}>}` stands for that reservation's `addr`. */
export const RESERVED_ADDRESS_REF: RefField = {
  pattern: ['hostports', '*'],
  kind: 'ReservedTCPAddress',
  set: true,
  byValue: { field: 'reserved_tcp_address', value: 'addr' },
};

/** The hostports as the API takes them: a reference becomes the address of the reservation it names. */
export const hostportsBody = (normal: Spec, ctx: CallContext): string[] =>
  ((normal.hostports as string[] | undefined) ?? []).map((h) => ctx.referencedValue?.(h, 'addr') ?? h);

/**
 * The service's rules for each hostport written out (one written as a reference is the
 * address the service assigned: nothing to check).
 */
export function checkHostports(normal: Spec, ctx: CheckContext, https: boolean): Problem[] {
  const out: Problem[] = [];
  const seen = new Set<string>();
  const written = (ctx.manifest?.hostports as unknown[] | undefined) ?? [];
  ((normal.hostports as string[] | undefined) ?? []).forEach((hostport, i) => {
    if (isMap(written[i])) return; // listed twice: a unique key claimed twice (load/check.ts)
    const colon = hostport.lastIndexOf(':');
    const host = colon < 0 ? '' : hostport.slice(0, colon);
    const port = colon < 0 ? '' : hostport.slice(colon + 1);
    const example = https ? 'api.example.com:443' : '1.tcp.example.com:20022';
    if (host.length === 0 || host.length > 253 || !host.split('.').every((label) => DNS_LABEL.test(label))) {
      out.push(problem('hostport_invalid', `hostport "${hostport}" must start with a DNS hostname, as in ${example}`, ctx.at(['hostports', i])));
    } else if (!/^[1-9][0-9]{0,4}$/.test(port) || Number(port) > 65_535) {
      out.push(problem('hostport_invalid', `hostport "${hostport}" must end with a port in 1..65535, as in ${example}`, ctx.at(['hostports', i])));
    } else if (https && port !== '443') {
      out.push(problem('hostport_invalid', `HTTPS edges serve only port 443; write ${host}:443 instead of "${hostport}"`, ctx.at(['hostports', i])));
    } else if (seen.has(hostport)) {
      out.push(problem('duplicate_hostport', `hostport "${hostport}" is listed twice in this edge; remove one`, ctx.at(['hostports', i])));
    }
    seen.add(hostport);
  });
  return out;
}

/** One unique key per hostport, shared by HTTPS and TCP edges. */
export const hostportKeys = (normal: Spec) =>
  ((normal.hostports as string[] | undefined) ?? []).map((h, i) => ({
    key: `hostport:${h}`,
    path: ['hostports', i] as (string | number)[],
    code: 'duplicate_hostport' as const,
  }));

/** What an HTTPS or TLS edge's hostports need: the reserved domain of each hostname, or a wildcard over it. */
export const domainsNeeded = (normal: Spec) => [
  {
    kind: 'ReservedDomain',
    keys: ((normal.hostports as string[] | undefined) ?? []).flatMap((h) => {
      const host = h.slice(0, h.lastIndexOf(':'));
      const dot = host.indexOf('.');
      return dot < 0 ? [host] : [host, `*${host.slice(dot)}`];
    }),
  },
];
