/**
 * The user agent filter module of a route (EndpointUserAgentFilter, api-spec 2.7): `allow`
 * and `deny` lists, `[]` when not given. The spec states no default for `enabled`; like every
 * other module it is true when unspecified, so that configuring the filter turns it on.
 * Every pattern must compile as an RE2 regular expression (domain/re2-pattern.ts).
 */
import { EndpointUserAgentFilter, EndpointUserAgentFilterInput } from '@gatehouse/schemas';
import { invalidModule } from '../../errors.js';
import { re2Problem } from '../../domain/re2-pattern.js';
import type { ModuleDefinition } from '../modules.js';

export const userAgentFilterModule: ModuleDefinition<EndpointUserAgentFilter> = {
  name: 'user_agent_filter',
  input: EndpointUserAgentFilterInput,
  output: EndpointUserAgentFilter,
  write(input) {
    const given = input as EndpointUserAgentFilterInput;
    for (const field of ['allow', 'deny'] as const) {
      (given[field] ?? []).forEach((pattern, i) => {
        const why = re2Problem(pattern);
        if (why) throw invalidModule(`${field}[${i}]`, `'${pattern.slice(0, 100)}' is not an RE2 regular expression: ${why}.`);
      });
    }
    return { enabled: given.enabled ?? true, allow: [...(given.allow ?? [])], deny: [...(given.deny ?? [])] };
  },
};
