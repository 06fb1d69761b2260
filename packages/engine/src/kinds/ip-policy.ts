/** IP policies (api-spec 2.2, 4.2) and their rules, declared inline in the policy's manifest. */
import { checkCidr } from '@gatehouse/schemas/runtime';
import { problem, type Problem } from '../problems.js';
import { collectionCalls, commonBody, commonFields, refToken } from './shared.js';
import type { KindDescriptor } from './types.js';

export const ipPolicy: KindDescriptor = {
  kind: 'IPPolicy',
  policyName: 'policy',
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
  calls: collectionCalls(
    '/ip_policies',
    (normal, ctx) => commonBody(normal, ctx),
    (after, changed, ctx) => commonBody(after, ctx, changed),
  ),
};

export const ipPolicyRule: KindDescriptor = {
  kind: 'IPPolicyRule',
  policyName: 'rule',
  title: 'IP policy rule',
  child: { parentKind: 'IPPolicy', field: 'rules', duplicate: 'duplicate_cidr', key: 'cidr' },
  observe: {
    lists: [{ path: '/ip_policy_rules', listKey: 'ip_policy_rules' }],
    parentId: (live) => refToken(live.ip_policy) || undefined,
  },
  metadata: true,
  naturalKey: (normal) => String(normal.cidr),
  fromManifest: (spec) => {
    const cidr = checkCidr(String(spec.cidr));
    // Assigned rather than spread into a literal (`{...commonFields(spec), cidr}`): V8 gives
    // each such copy its own hidden class, about 4x the memory, and manifests hold many rules.
    // The manifest's own cidr string when it is already canonical (the usual case): no copy.
    const normal = commonFields(spec);
    normal.cidr = cidr.ok && cidr.cidr !== spec.cidr ? cidr.cidr : spec.cidr;
    normal.action = spec.action;
    return normal;
  },
  fromLive: (live) => ({ ...commonFields(live), cidr: String(live.cidr).toLowerCase(), action: live.action }),
  refs: [],
  sensitive: [],
  immutable: ['action'],
  label: (normal) => String(normal.cidr),
  check: (normal, ctx): Problem[] => {
    const result = checkCidr(String(normal.cidr));
    // `fromManifest` already canonicalized valid CIDRs, so re-check the text the user wrote.
    return result.ok ? [] : [problem('cidr_invalid', result.reason, ctx.at(['cidr']))];
  },
  calls: collectionCalls(
    '/ip_policy_rules',
    (normal, ctx) => ({ ...commonBody(normal, ctx), cidr: normal.cidr, action: normal.action, ip_policy_id: ctx.parentId }),
    (after, changed, ctx) => ({ ...commonBody(after, ctx, changed), ...(changed.includes('cidr') ? { cidr: after.cidr } : {}) }),
  ),
};
