/**
 * IP restrictions (api-spec 2.1, 4.1): bind IP policies to one kind of traffic source.
 *
 * Rules: `type` is given on create and never changes (the PATCH schema has no such field);
 * at most one restriction per type (unique key); `ip_policy_ids` names at least one existing
 * policy, and a PATCH that gives it replaces the set. A policy deleted afterwards stays
 * referenced and keeps rendering as a Ref (api-spec part 1), so only ids being written are
 * checked. Every change records its ip_restriction_*.v0 audit event.
 */
import { IpRestriction, IpRestrictionCreate, IpRestrictionList, IpRestrictionUpdate } from '@gatehouse/schemas';
import { ApiError } from '../errors.js';
import { withCommonFields, type CommonFields } from './common.js';
import { merge, type ResourceDefinition } from './define.js';
import { IP_RESTRICTION } from './kinds.js';
import { checkIpPolicyIds } from './modules/ip-restriction.js';

interface StoredRestriction extends CommonFields {
  enforced: boolean;
  type: IpRestrictionCreate['type'];
  ip_policy_ids: string[];
}

export const ipRestrictions: ResourceDefinition<StoredRestriction> = {
  kind: IP_RESTRICTION,
  label: 'IP restriction',
  idPrefix: 'ipx',
  path: '/ip_restrictions',
  listKey: 'ip_restrictions',
  audit: 'ip_restriction',
  schemas: { create: IpRestrictionCreate, update: IpRestrictionUpdate, resource: IpRestriction, list: IpRestrictionList },
  write(input, current, ctx) {
    const fields = input as Partial<IpRestrictionCreate>;
    if (fields.ip_policy_ids !== undefined) checkIpPolicyIds(fields.ip_policy_ids, 'ip_policy_ids', ctx);
    return merge<StoredRestriction>(current ?? { enforced: false, type: fields.type!, ip_policy_ids: [] }, input);
  },
  uniqueKeys: (data) => [
    {
      key: `ip_restriction.type:${data.type}`,
      conflict: () =>
        new ApiError('duplicate_type', `type: an IP restriction of type '${data.type}' already exists; update it instead.`, {
          field: 'type',
        }),
    },
  ],
  render: (object, { urls }) =>
    withCommonFields(object, urls.of(`/ip_restrictions/${object.id}`), {
      enforced: object.data.enforced,
      type: object.data.type,
      ip_policies: urls.refs(object.data.ip_policy_ids),
    }),
};
