/**
 * The traffic policy module (EndpointTrafficPolicy) of TCP edges and HTTPS edge routes:
 * `enabled` (true when unspecified) and `value`, the policy text, stored and returned as given.
 */
import { EndpointTrafficPolicy, EndpointTrafficPolicyInput } from '@gatehouse/schemas';
import type { ModuleDefinition } from '../modules.js';

export const trafficPolicyModule: ModuleDefinition<EndpointTrafficPolicy> = {
  name: 'traffic_policy',
  input: EndpointTrafficPolicyInput,
  output: EndpointTrafficPolicy,
  write(input) {
    const { enabled = true, value } = input as EndpointTrafficPolicyInput;
    return { enabled, value };
  },
};
