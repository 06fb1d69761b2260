/**
 * The service's CIDR rule, in one place for the reference server and the engine's validate
 * step: valid IPv4 or IPv6 with an explicit prefix length, IPv4 written as four decimal parts
 * (no octal or hex shorthand), and canonical (the address is the first of its range).
 * Returns the canonical text (IPv6 compressed and lowercased, RFC 5952) or a sentence saying
 * what is wrong and what to write instead.
 */
import { createRequire } from 'node:module';
import type Ipaddr from 'ipaddr.js';

// `require`, not `import`: ipaddr.js is CommonJS, and an ES module's first `import` of a
// CommonJS package makes Node load its export lexer (WebAssembly, some 10 MB resident for the
// rest of the process: most of validate's fixed memory cost, issue 15).
const ipaddr = createRequire(import.meta.url)('ipaddr.js') as typeof Ipaddr;

export type CidrCheck = { ok: true; cidr: string } | { ok: false; reason: string };

export function checkCidr(text: string): CidrCheck {
  return checkIpv4Cidr(text) ?? checkCidrWithIpaddr(text);
}

/** An IPv4 CIDR in its usual form: four decimal parts without leading zeros, a prefix of 0-32. */
const USUAL_IPV4_CIDR = /^(0|[1-9][0-9]{0,2})\.(0|[1-9][0-9]{0,2})\.(0|[1-9][0-9]{0,2})\.(0|[1-9][0-9]{0,2})\/([0-9]|[12][0-9]|3[0-2])$/;

/**
 * `checkWithIpaddr(text)` for an IPv4 CIDR in its usual form, computed on 32-bit integers (a
 * manifest or a server may hold 100,000 rules: ipaddr.js builds several objects and arrays per
 * CIDR); `undefined` for any other text, which ipaddr.js then decides. `cidr.test.ts` compares
 * both on every form.
 */
function checkIpv4Cidr(text: string): CidrCheck | undefined {
  const match = USUAL_IPV4_CIDR.exec(text);
  if (match === null) return undefined;
  let address = 0;
  for (let i = 1; i <= 4; i++) {
    const part = Number(match[i]);
    if (part > 255) return undefined;
    address = address * 256 + part;
  }
  const bits = Number(match[5]);
  // The network: the address with its low 32 - bits bits cleared (as an unsigned number).
  const size = 2 ** (32 - bits);
  const network = address - (address % size);
  if (network === address) return { ok: true, cidr: text };
  const first = [network >>> 24, (network >>> 16) & 255, (network >>> 8) & 255, network & 255].join('.');
  return { ok: false, reason: `"${text}" is not canonical: its range starts at ${first}; write ${first}/${bits}` };
}

/** `checkCidr` decided by ipaddr.js alone (the reference the IPv4 fast path is tested against). */
export function checkCidrWithIpaddr(text: string): CidrCheck {
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
  let parsed: [Ipaddr.IPv4 | Ipaddr.IPv6, number];
  try {
    // ipaddr.parseCIDR tries IPv6 first and catches its error for every IPv4 CIDR, which is
    // slow; an IPv4 CIDR never holds ':' and an IPv6 one always does, so pick the parser.
    parsed = isV6 ? ipaddr.IPv6.parseCIDR(text) : ipaddr.IPv4.parseCIDR(text);
  } catch {
    return { ok: false, reason: `"${text}" is not a valid IPv4 or IPv6 CIDR` };
  }
  const [address, bits] = parsed;
  // What networkAddressFromCIDR computes (address AND mask), without parsing the text again.
  const family = address.kind() === 'ipv4' ? ipaddr.IPv4 : ipaddr.IPv6;
  const mask = family.subnetMaskFromPrefixLength(bits).toByteArray();
  const network = address.toByteArray().map((byte, i) => byte & mask[i]!);
  const first = (address.kind() === 'ipv4' ? new ipaddr.IPv4(network) : new ipaddr.IPv6(network)).toString();
  const canonical = `${first}/${bits}`;
  if (first !== address.toString()) {
    return { ok: false, reason: `"${text}" is not canonical: its range starts at ${first}; write ${canonical}` };
  }
  return { ok: true, cidr: canonical };
}
