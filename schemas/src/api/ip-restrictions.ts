/** IP restrictions (api-spec 2.1, 4.1). `type` is fixed at creation; PATCH cannot change it. */
import { Type, type Static } from '@sinclair/typebox';
import { Description, Metadata, Ref, Strict, StringEnum, listEnvelope, resourceBase, UpdateBody } from '../common.js';

export const IP_RESTRICTION_TYPES = ['dashboard', 'api', 'agent', 'endpoints'] as const;
export const IpRestrictionType = StringEnum(IP_RESTRICTION_TYPES, {
  description: 'which traffic the attached policies restrict',
});

const IpPolicyIds = Type.Array(Type.String({ minLength: 1 }), {
  minItems: 1,
  uniqueItems: true,
  description: 'ids of the IP policies that enforce the restriction; at least one',
});

export const IpRestrictionCreate = Strict({
  description: Type.Optional(Description),
  metadata: Type.Optional(Metadata),
  enforced: Type.Optional(Type.Boolean({ description: 'true: enforced; false (default): warnings only' })),
  type: IpRestrictionType,
  ip_policy_ids: IpPolicyIds,
});
export const IpRestrictionUpdate = UpdateBody({
  description: Description,
  metadata: Metadata,
  enforced: Type.Boolean(),
  ip_policy_ids: IpPolicyIds,
});
export const IpRestriction = Type.Object({
  ...resourceBase,
  enforced: Type.Boolean(),
  type: IpRestrictionType,
  ip_policies: Type.Array(Ref),
});
export const IpRestrictionList = listEnvelope('ip_restrictions', IpRestriction);

export type IpRestrictionCreate = Static<typeof IpRestrictionCreate>;
export type IpRestrictionUpdate = Static<typeof IpRestrictionUpdate>;
export type IpRestriction = Static<typeof IpRestriction>;
