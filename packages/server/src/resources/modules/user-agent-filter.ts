/**
 * The user agent filter module of a route (EndpointUserAgentFilter, api-spec 2.7): `allow`
 * and `deny` lists, `[]` when not given. The spec states no default for `enabled`; like every
 * other module it is true when unspecified, so that configuring the filter turns it on.
 */
import { EndpointUserAgentFilter, EndpointUserAgentFilterInput } from '@gatehouse/schemas';
import type { ModuleDefinition } from '../modules.js';

export const userAgentFilterModule: ModuleDefinition<EndpointUserAgentFilter> = {
  name: 'user_agent_filter',
  input: EndpointUserAgentFilterInput,
  output: EndpointUserAgentFilter,
  write(input) {
    const given = input as EndpointUserAgentFilterInput;
    return { enabled: given.enabled ?? true, allow: [...(given.allow ?? [])], deny: [...(given.deny ?? [])] };
  },
  render: (stored): EndpointUserAgentFilter => ({ enabled: stored.enabled, allow: [...stored.allow], deny: [...stored.deny] }),
};
