/** IP policies (api-spec 2.2, 4.2) and their rules, declared inline in the policy's manifest. */
import ipaddr from 'ipaddr.js';
import { problem, type Problem } from '../problems.js';
import { commonBody, commonFields, refToken, requireId } from './shared.js';
import type { KindDescriptor } from './types.js';

export const ipPolicy: KindDescriptor = {
  kind: 'IPPolicy',
  title: 'IP policy',
  manifestKind: 'IPPolicy',
  observe: { lists: [{ path: '/ip_policies', listKey: 'ip_policies' }] },
  metadata: true,
  fromManifest: (spec) => commonFields(spec),
  fromLive: (live) => commonFields(live),
  refs: [],
  sensitive: [],
  immutable: [],
  label: (normal, name) => name ?? String(normal.description ?? ''),
  calls: {
    create: (normal, ctx) => [{ method: 'POST', path: '/ip_policies', body: commonBody(normal, ctx) }],
    update: (_before, after, changed, ctx) => [
      { method: 'PATCH', path: `/ip_policies/${requireId(ctx)}`, body: commonBody(after, ctx, changed) },
    ],
    delete: (_normal, ctx) => [{ method: 'DELETE', path: `/ip_policies/${requireId(ctx)}` }],
  },
};

/**
 * The service's CIDR rule: valid IPv4 or IPv6 with a prefix length, and canonical (the
 * address is the first of its range). Returns the canonical form (IPv6 lowercased and
 * compressed) or a message saying what to write instead.
 */
export function canonicalCidr(cidr: string): { ok: true; value: string } | { ok: false; message: string } {
  if (!cidr.includes('/')) return { ok: false, message: `"${cidr}" is a bare address; write it with a prefix length, e.g. ${cidr}/${cidr.includes(':') ? 128 : 32}` };
  let parsed: [ipaddr.IPv4 | ipaddr.IPv6, number];
  try {
    // ipaddr.parseCIDR tries IPv6 first and catches its error for every IPv4 CIDR, which is
    // slow; an IPv4 CIDR never holds ':' and an IPv6 one always does, so pick the parser.
    parsed = cidr.includes(':') ? ipaddr.IPv6.parseCIDR(cidr) : ipaddr.IPv4.parseCIDR(cidr);
  } catch {
    return { ok: false, message: `"${cidr}" is not a valid IPv4 or IPv6 CIDR` };
  }
  const [address, bits] = parsed;
  // What networkAddressFromCIDR computes (address AND mask), without parsing the text again.
  const bytes = address.toByteArray();
  const mask = (address.kind() === 'ipv4' ? ipaddr.IPv4 : ipaddr.IPv6).subnetMaskFromPrefixLength(bits).toByteArray();
  const network = bytes.map((byte, i) => byte & mask[i]!);
  const first = (address.kind() === 'ipv4' ? new ipaddr.IPv4(network) : new ipaddr.IPv6(network)).toString();
  const canonical = `${first}/${bits}`;
  if (first !== address.toString()) return { ok: false, message: `"${cidr}" is not canonical: its range starts at ${first}; write ${canonical}` };
  return { ok: true, value: canonical };
}

export const ipPolicyRule: KindDescriptor = {
  kind: 'IPPolicyRule',
  title: 'IP policy rule',
  child: { parentKind: 'IPPolicy', field: 'rules', duplicate: 'duplicate_cidr' },
  observe: {
    lists: [{ path: '/ip_policy_rules', listKey: 'ip_policy_rules' }],
    parentId: (live) => refToken(live.ip_policy) || undefined,
  },
  metadata: true,
  naturalKey: (normal) => String(normal.cidr),
  fromManifest: (spec) => {
    const cidr = canonicalCidr(String(spec.cidr));
    return { ...commonFields(spec), cidr: cidr.ok ? cidr.value : spec.cidr, action: spec.action };
  },
  fromLive: (live) => ({ ...commonFields(live), cidr: String(live.cidr).toLowerCase(), action: live.action }),
  refs: [],
  sensitive: [],
  immutable: ['action'],
  label: (normal) => String(normal.cidr),
  check: (normal, ctx): Problem[] => {
    const result = canonicalCidr(String(normal.cidr));
    // `fromManifest` already canonicalized valid CIDRs, so re-check the text the user wrote.
    return result.ok ? [] : [problem('cidr_invalid', result.message, ctx.at(['cidr']))];
  },
  calls: {
    create: (normal, ctx) => [
      {
        method: 'POST',
        path: '/ip_policy_rules',
        body: { ...commonBody(normal, ctx), cidr: normal.cidr, action: normal.action, ip_policy_id: ctx.parentId },
      },
    ],
    update: (_before, after, changed, ctx) => [
      {
        method: 'PATCH',
        path: `/ip_policy_rules/${requireId(ctx)}`,
        body: { ...commonBody(after, ctx, changed), ...(changed.includes('cidr') ? { cidr: after.cidr } : {}) },
      },
    ],
    delete: (_normal, ctx) => [{ method: 'DELETE', path: `/ip_policy_rules/${requireId(ctx)}` }],
  },
};

