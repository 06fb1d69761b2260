/**
 * Storage kinds that resources of other files look up (an IP restriction's policies, the
 * dashboard restriction a rule's deletion must not lock out), kept apart from the resources
 * themselves so that those files need not import each other.
 */
export const IP_POLICY = 'ip_policy';
export const IP_POLICY_RULE = 'ip_policy_rule';
export const IP_RESTRICTION = 'ip_restriction';
