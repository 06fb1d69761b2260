/**
 * HTTPS edge routes (api-spec 2.7), under `/edges/https/{edge_id}/routes`. A route has a
 * match selector and thirteen optional modules, given inline on create and PATCH (a module
 * in a PATCH replaces the current one whole; only its own DELETE removes it) and rendered
 * inline, `null` when unset. Routes have no list endpoint: they appear in their edge.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Description, Metadata, moduleFields, StringEnum, Timestamp, UpdateBody } from '../common.js';
import {
  EndpointBackend,
  EndpointBackendInput,
  EndpointIpPolicy,
  EndpointIpPolicyInput,
  EndpointTrafficPolicy,
  EndpointTrafficPolicyInput,
} from './backend-modules.js';
import {
  EndpointCircuitBreaker,
  EndpointCircuitBreakerInput,
  EndpointHeaders,
  EndpointHeadersInput,
  EndpointSwitch,
  EndpointSwitchInput,
  EndpointUserAgentFilter,
  EndpointUserAgentFilterInput,
  EndpointWebhookValidation,
  EndpointWebhookValidationInput,
} from './endpoint-modules.js';
import { EndpointOAuth, EndpointOAuthInput, EndpointOidc, EndpointOidcInput, EndpointSaml, EndpointSamlInput } from './auth-modules.js';

export const RouteMatchType = StringEnum(['exact_path', 'path_prefix'], { description: 'how match selects requests' });
export const RouteMatch = Type.String({
  minLength: 1,
  description: 'route selector: a path (beginning with /), a host, or a host plus path; unique per edge',
});

/** The thirteen route modules, in the order of api-spec 2.7: input and output schema. */
export const ROUTE_MODULE_SCHEMAS = {
  backend: { input: EndpointBackendInput, output: EndpointBackend },
  ip_restriction: { input: EndpointIpPolicyInput, output: EndpointIpPolicy },
  circuit_breaker: { input: EndpointCircuitBreakerInput, output: EndpointCircuitBreaker },
  compression: { input: EndpointSwitchInput, output: EndpointSwitch },
  request_headers: { input: EndpointHeadersInput, output: EndpointHeaders },
  response_headers: { input: EndpointHeadersInput, output: EndpointHeaders },
  webhook_verification: { input: EndpointWebhookValidationInput, output: EndpointWebhookValidation },
  oauth: { input: EndpointOAuthInput, output: EndpointOAuth },
  saml: { input: EndpointSamlInput, output: EndpointSaml },
  oidc: { input: EndpointOidcInput, output: EndpointOidc },
  websocket_tcp_converter: { input: EndpointSwitchInput, output: EndpointSwitch },
  user_agent_filter: { input: EndpointUserAgentFilterInput, output: EndpointUserAgentFilter },
  traffic_policy: { input: EndpointTrafficPolicyInput, output: EndpointTrafficPolicy },
};
const { inputs: moduleInputs, outputs: moduleOutputs } = moduleFields(ROUTE_MODULE_SCHEMAS);

const common = { description: Type.Optional(Description), metadata: Type.Optional(Metadata) };

export const HttpsEdgeRouteCreate = Type.Object({ match_type: RouteMatchType, match: RouteMatch, ...common, ...moduleInputs }, { additionalProperties: false });
export const HttpsEdgeRouteUpdate = UpdateBody({ match_type: RouteMatchType, match: RouteMatch, ...common, ...moduleInputs });
export const HttpsEdgeRoute = Type.Object({
  edge_id: Type.String(),
  id: Type.String(),
  created_at: Timestamp,
  match_type: RouteMatchType,
  match: Type.String(),
  uri: Type.String(),
  ...common,
  ...moduleOutputs,
});

export type HttpsEdgeRouteCreate = Static<typeof HttpsEdgeRouteCreate>;
export type HttpsEdgeRouteUpdate = Static<typeof HttpsEdgeRouteUpdate>;
export type HttpsEdgeRoute = Static<typeof HttpsEdgeRoute>;
