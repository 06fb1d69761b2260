/**
 * CIDR validation as the service applies it: IPv4 or IPv6 with an explicit prefix length,
 * the address being the first of its range. Returns the canonical text (IPv6 compressed and
 * lowercased, RFC 5952), or an explanation of what is wrong.
 */
import ipaddr from 'ipaddr.js';

export type CidrCheck = { ok: true; cidr: string } | { ok: false; reason: string };

export function checkCidr(text: string): CidrCheck {
  const slash = text.indexOf('/');
  if (slash < 0) return { ok: false, reason: `'${text}' has no prefix length; write it as ${text}/32 or a range like 203.0.113.0/24` };
  const address = text.slice(0, slash);
  let parsed: [ipaddr.IPv4 | ipaddr.IPv6, number];
  try {
    if (address.includes('.') && !address.includes(':') && !ipaddr.IPv4.isValidFourPartDecimal(address)) {
      throw new Error('not four decimal parts');
    }
    parsed = ipaddr.parseCIDR(text);
  } catch {
    return { ok: false, reason: `'${text}' is not a valid IPv4 or IPv6 CIDR` };
  }
  const [ip, bits] = parsed;
  const network = ip.kind() === 'ipv4'
    ? ipaddr.IPv4.networkAddressFromCIDR(text)
    : ipaddr.IPv6.networkAddressFromCIDR(text);
  if (network.toString() !== ip.toString()) {
    return { ok: false, reason: `'${text}' is not canonical: the range starts at ${network.toString()}/${bits}` };
  }
  return { ok: true, cidr: `${ip.toString()}/${bits}` };
}
