/**
 * The IP restriction module (EndpointIPPolicy) of TCP edges and HTTPS edge routes:
 * `ip_policy_ids` in (at least one, each an existing IP policy), `ip_policies` Refs out,
 * `enabled` true when unspecified. A policy deleted after it was attached stays referenced
 * (api-spec part 1), so only the ids being written are checked.
 */
import { EndpointIpPolicy, EndpointIpPolicyInput } from '@gatehouse/schemas';
import { invalidReference } from '../../errors.js';
import type { RequestContext } from '../context.js';
import { IP_POLICY } from '../kinds.js';
import type { ModuleDefinition } from '../modules.js';

/** Throws `invalid_reference` naming `field` for the first id that is not a live IP policy. */
export function checkIpPolicyIds(ids: readonly string[], field: string, { store }: Pick<RequestContext, 'store'>): void {
  for (const id of ids) {
    if (!store.get(id, IP_POLICY)) throw invalidReference(field, id, 'IP policy');
  }
}

interface StoredIpPolicyModule {
  enabled: boolean;
  ip_policy_ids: string[];
}

export const ipRestrictionModule: ModuleDefinition<StoredIpPolicyModule> = {
  name: 'ip_restriction',
  input: EndpointIpPolicyInput,
  output: EndpointIpPolicy,
  write(input, ctx, field) {
    const { enabled = true, ip_policy_ids } = input as EndpointIpPolicyInput;
    checkIpPolicyIds(ip_policy_ids, `${field}.ip_policy_ids`, ctx);
    return { enabled, ip_policy_ids: [...ip_policy_ids] };
  },
  render: (stored, { urls }): EndpointIpPolicy => ({ enabled: stored.enabled, ip_policies: urls.refs(stored.ip_policy_ids) }),
};
