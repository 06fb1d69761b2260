/** IP policies (api-spec 2.2, 4.2) and IP policy rules (2.2, audit payloads of 6.3). */
import { Type, type Static } from '@sinclair/typebox';
import { Description, Metadata, Ref, Strict, StringEnum, listEnvelope, resourceBase, UpdateBody } from '../common.js';

export const IpPolicyCreate = Strict({
  description: Type.Optional(Description),
  metadata: Type.Optional(Metadata),
});
export const IpPolicyUpdate = UpdateBody({ description: Description, metadata: Metadata });
export const IpPolicy = Type.Object({ ...resourceBase });
export const IpPolicyList = listEnvelope('ip_policies', IpPolicy);

export type IpPolicyCreate = Static<typeof IpPolicyCreate>;
export type IpPolicyUpdate = Static<typeof IpPolicyUpdate>;
export type IpPolicy = Static<typeof IpPolicy>;

export const RuleAction = StringEnum(['allow', 'deny'], { description: 'allow or deny traffic from the CIDR' });
export const Cidr = Type.String({
  minLength: 1,
  description: 'IPv4 or IPv6 range in canonical CIDR notation, e.g. 203.0.113.0/24',
});

export const IpPolicyRuleCreate = Strict({
  description: Type.Optional(Description),
  metadata: Type.Optional(Metadata),
  cidr: Cidr,
  ip_policy_id: Type.String({ minLength: 1 }),
  action: RuleAction,
});
export const IpPolicyRuleUpdate = UpdateBody({ description: Description, metadata: Metadata, cidr: Cidr });
export const IpPolicyRule = Type.Object({
  ...resourceBase,
  cidr: Type.String(),
  ip_policy: Ref,
  action: RuleAction,
});
export const IpPolicyRuleList = listEnvelope('ip_policy_rules', IpPolicyRule);

export type IpPolicyRuleCreate = Static<typeof IpPolicyRuleCreate>;
export type IpPolicyRuleUpdate = Static<typeof IpPolicyRuleUpdate>;
export type IpPolicyRule = Static<typeof IpPolicyRule>;
