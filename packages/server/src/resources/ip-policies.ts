/**
 * IP policies (api-spec 4.2) and their rules (`/ip_policy_rules`, modelled on the same
 * conventions). Deleting a policy that others reference succeeds and leaves the references in
 * place (api-spec part 1); its rules go with it. Deleting the only rule of a policy that a
 * `dashboard` IP restriction uses is refused, as the service refuses it (its error 1419): the
 * policy would then allow no address and lock everyone out of the dashboard.
 */
import {
  IpPolicy,
  IpPolicyCreate,
  IpPolicyList,
  IpPolicyRule,
  IpPolicyRuleCreate,
  IpPolicyRuleList,
  IpPolicyRuleUpdate,
  IpPolicyUpdate,
  checkCidr,
} from '@gatehouse/schemas';
import { ApiError, invalidReference } from '../errors.js';
import { merge, type ResourceDefinition } from './define.js';
import { withCommonFields, type CommonFields } from './common.js';
import { IP_POLICY, IP_POLICY_RULE, IP_RESTRICTION } from './kinds.js';

type StoredPolicy = CommonFields;

export const ipPolicies: ResourceDefinition<StoredPolicy> = {
  kind: IP_POLICY,
  label: 'IP policy',
  idPrefix: 'ipp',
  path: '/ip_policies',
  listKey: 'ip_policies',
  audit: 'ip_policy',
  schemas: { create: IpPolicyCreate, update: IpPolicyUpdate, resource: IpPolicy, list: IpPolicyList },
  write: (input, current) => merge(current, input),
  render: (object, { urls }) => withCommonFields(object, urls.of(`/ip_policies/${object.id}`), {}),
  onDelete(policy, ctx) {
    for (const rule of ctx.store.children<StoredRule>(IP_POLICY_RULE, policy.id)) {
      ctx.audit.record('ip_policy_rule', 'deleted', ipPolicyRules.render(rule, ctx), ctx.principal);
      ctx.store.remove(rule.id);
    }
  },
};

interface StoredRule extends CommonFields {
  cidr: string;
  action: 'allow' | 'deny';
}

export const ipPolicyRules: ResourceDefinition<StoredRule> = {
  kind: IP_POLICY_RULE,
  label: 'IP policy rule',
  idPrefix: 'ipr',
  path: '/ip_policy_rules',
  listKey: 'ip_policy_rules',
  audit: 'ip_policy_rule',
  schemas: { create: IpPolicyRuleCreate, update: IpPolicyRuleUpdate, resource: IpPolicyRule, list: IpPolicyRuleList },
  parentFromBody({ ip_policy_id: policyId }, { store }) {
    if (typeof policyId !== 'string' || !store.get(policyId, IP_POLICY)) {
      throw invalidReference('ip_policy_id', String(policyId), 'IP policy');
    }
    return policyId;
  },
  write(input, current) {
    const { ip_policy_id: _parent, ...fields } = input as Partial<IpPolicyRuleCreate>;
    const data = merge<StoredRule>(current, fields);
    const cidr = checkCidr(data.cidr);
    if (!cidr.ok) throw new ApiError('invalid_cidr', `cidr: ${cidr.reason}.`, { field: 'cidr' });
    return { ...data, cidr: cidr.cidr };
  },
  uniqueKeys: (data, object) => [
    {
      key: `ip_policy_rule.cidr:${object.parentId}:${data.cidr}`,
      conflict: () =>
        new ApiError('duplicate_cidr', `cidr: IP policy '${object.parentId}' already has a rule for ${data.cidr}.`, {
          field: 'cidr',
        }),
    },
  ],
  onDelete(rule, { store }) {
    const policyId = rule.parentId!;
    if (store.children(IP_POLICY_RULE, policyId).length > 1) return;
    const dashboard = store
      .all<{ type: string; ip_policy_ids: string[] }>(IP_RESTRICTION)
      .find((r) => r.data.type === 'dashboard' && r.data.ip_policy_ids.includes(policyId));
    if (dashboard) {
      throw new ApiError(
        'resource_in_use',
        `IP policy rule '${rule.id}' is the last rule of IP policy '${policyId}', which the dashboard IP restriction '${dashboard.id}' uses; deleting it would lock everyone out of the dashboard. Add another rule to the policy first, or take the policy out of the restriction.`,
        { id: rule.id, ip_policy_id: policyId, ip_restriction_id: dashboard.id },
      );
    }
  },
  render: (object, { urls }) =>
    withCommonFields(object, urls.of(`/ip_policy_rules/${object.id}`), {
      cidr: object.data.cidr,
      ip_policy: urls.ref(object.parentId!),
      action: object.data.action,
    }),
};
