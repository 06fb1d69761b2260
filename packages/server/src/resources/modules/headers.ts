/**
 * The request and response header modules of a route (EndpointRequestHeaders,
 * EndpointResponseHeaders, api-spec 2.6/2.7): headers added and removed before the request goes
 * upstream, or from the response. Header names in `add` are stored lowercased (HTTP header
 * names are case-insensitive, and the service returns them so), two names that differ only in
 * case are a 400 rather than one silently winning, and `remove` is `[]` when not given.
 */
import { EndpointHeaders, EndpointHeadersInput } from '@gatehouse/schemas';
import { invalidModule } from '../../errors.js';
import type { ModuleDefinition } from '../modules.js';

function headersModule(name: 'request_headers' | 'response_headers'): ModuleDefinition<EndpointHeaders> {
  return {
    name,
    input: EndpointHeadersInput,
    output: EndpointHeaders,
    write(input, _ctx, field) {
      const given = input as EndpointHeadersInput;
      const add: Record<string, string> = {};
      for (const [header, value] of Object.entries(given.add ?? {})) {
        const lower = header.toLowerCase();
        if (lower in add) throw invalidModule(`${field}.add`, `header '${lower}' is given twice (names are case-insensitive).`);
        add[lower] = value;
      }
      return { enabled: given.enabled ?? true, add, remove: [...(given.remove ?? [])] };
    },
  };
}

export const requestHeadersModule = headersModule('request_headers');
export const responseHeadersModule = headersModule('response_headers');
