/**
 * Modules that carry nothing but `enabled` (compression, websocket_tcp_converter): `enabled`
 * is true when unspecified and stored as given otherwise.
 */
import { EndpointSwitch, EndpointSwitchInput } from '@gatehouse/schemas';
import type { ModuleDefinition } from '../modules.js';

export function switchModule(name: string): ModuleDefinition<EndpointSwitch> {
  return {
    name,
    input: EndpointSwitchInput,
    output: EndpointSwitch,
    write: (input) => ({ enabled: (input as EndpointSwitchInput).enabled ?? true }),
    render: (stored): EndpointSwitch => ({ enabled: stored.enabled }),
  };
}
