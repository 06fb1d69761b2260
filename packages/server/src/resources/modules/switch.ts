/**
 * Modules of a route that carry nothing but `enabled` (EndpointCompression,
 * EndpointWebsocketTCPConverter, api-spec 2.7): `enabled` is true when unspecified and stored
 * as given otherwise.
 */
import { EndpointSwitch, EndpointSwitchInput } from '@gatehouse/schemas';
import type { ModuleDefinition } from '../modules.js';

function switchModule(name: string): ModuleDefinition<EndpointSwitch> {
  return {
    name,
    input: EndpointSwitchInput,
    output: EndpointSwitch,
    write: (input) => ({ enabled: (input as EndpointSwitchInput).enabled ?? true }),
  };
}

export const compressionModule = switchModule('compression');
export const websocketTcpConverterModule = switchModule('websocket_tcp_converter');
