/**
 * The WebSocket-to-TCP converter module of a route (EndpointWebsocketTCPConverter, api-spec
 * 2.7): `enabled` only.
 */
import { switchModule } from './switch.js';

export const websocketTcpConverterModule = switchModule('websocket_tcp_converter');
