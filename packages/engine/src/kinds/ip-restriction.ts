/**
 * IP restrictions (api-spec 2.1, 4.1): at most one per type; the type cannot be updated. A
 * `dashboard` restriction's declared policies must declare at least one rule: the service
 * refuses to delete the last rule of a policy a dashboard restriction uses (its error 1419),
 * so that nobody locks everyone out of the dashboard.
 */
import { collectionCalls, commonBody, commonFields, refToken } from './shared.js';
import type { KindDescriptor } from './types.js';

export const ipRestriction: KindDescriptor = {
  kind: 'IPRestriction',
  policyName: 'restriction',
  title: 'IP restriction',
  manifestKind: 'IPRestriction',
  observe: { lists: [{ path: '/ip_restrictions', listKey: 'ip_restrictions' }] },
  metadata: true,
  naturalKey: (normal) => String(normal.type),
  uniqueKeys: (normal) => [{ key: `type:${String(normal.type)}`, path: ['type'], code: 'duplicate_restriction_type' }],
  fromManifest: (spec) => ({
    ...commonFields(spec),
    type: spec.type,
    enforced: Boolean(spec.enforced ?? false),
    ip_policies: (spec.ip_policies as unknown[]).map(refToken),
  }),
  fromLive: (live) => ({
    ...commonFields(live),
    type: live.type,
    enforced: Boolean(live.enforced),
    ip_policies: ((live.ip_policies as unknown[]) ?? []).map(refToken),
  }),
  refs: [{ pattern: ['ip_policies', '*'], kind: 'IPPolicy', set: true }],
  sensitive: [],
  immutable: ['type'],
  label: (normal, name) => name ?? String(normal.type),
  keepsChildren: (normal) =>
    normal.type !== 'dashboard'
      ? []
      : (normal.ip_policies as string[]).map((token, i) => ({
          token,
          path: ['ip_policies', i],
          childKind: 'IPPolicyRule',
          why: 'the service refuses to delete the last rule of a policy a dashboard restriction uses, so that nobody is locked out of the dashboard',
        })),
  calls: collectionCalls(
    '/ip_restrictions',
    (normal, ctx) => ({
      ...commonBody(normal, ctx),
      type: normal.type,
      enforced: normal.enforced,
      ip_policy_ids: (normal.ip_policies as string[]).map(ctx.resolve),
    }),
    (after, changed, ctx) => ({
      ...commonBody(after, ctx, changed),
      ...(changed.includes('enforced') ? { enforced: after.enforced } : {}),
      ...(changed.includes('ip_policies') ? { ip_policy_ids: (after.ip_policies as string[]).map(ctx.resolve) } : {}),
    }),
  ),
};
