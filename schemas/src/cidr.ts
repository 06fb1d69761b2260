/**
 * The service's CIDR rule, in one place for the reference server and the engine's validate
 * step: valid IPv4 or IPv6 with an explicit prefix length, IPv4 written as four decimal parts
 * (no octal or hex shorthand), and canonical (the address is the first of its range).
 * Returns the canonical text (IPv6 compressed and lowercased, RFC 5952) or a sentence saying
 * what is wrong and what to write instead.
 */
import ipaddr from 'ipaddr.js';

export type CidrCheck = { ok: true; cidr: string } | { ok: false; reason: string };

export function checkCidr(text: string): CidrCheck {
  const slash = text.indexOf('/');
  if (slash < 0) {
    return {
      ok: false,
      reason: `"${text}" is a bare address; write it with a prefix length, e.g. ${text}/${text.includes(':') ? 128 : 32}`,
    };
  }
  const isV6 = text.includes(':');
  if (!isV6 && !ipaddr.IPv4.isValidFourPartDecimal(text.slice(0, slash))) {
    return { ok: false, reason: `"${text}" is not a valid IPv4 or IPv6 CIDR (IPv4 takes four decimal parts)` };
  }
  let parsed: [ipaddr.IPv4 | ipaddr.IPv6, number];
  try {
    // IPv4 CIDRs never hold ':' and IPv6 ones always do (ipaddr.parseCIDR would try IPv6 first).
    parsed = isV6 ? ipaddr.IPv6.parseCIDR(text) : ipaddr.IPv4.parseCIDR(text);
  } catch {
    return { ok: false, reason: `"${text}" is not a valid IPv4 or IPv6 CIDR` };
  }
  const [address, bits] = parsed;
  const first = (isV6 ? ipaddr.IPv6.networkAddressFromCIDR(text) : ipaddr.IPv4.networkAddressFromCIDR(text)).toString();
  const canonical = `${first}/${bits}`;
  if (first !== address.toString()) {
    return { ok: false, reason: `"${text}" is not canonical: its range starts at ${first}; write ${canonical}` };
  }
  return { ok: true, cidr: canonical };
}
