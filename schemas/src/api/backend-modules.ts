/**
 * The three endpoint modules that TCP edges and HTTPS edge routes share (api-spec 2.5, 2.7):
 * backend, IP restriction and traffic policy. Writes take ids (`backend_id`,
 * `ip_policy_ids`); reads return Refs (`backend`, `ip_policies`), as service-behaviour.md
 * describes. `enabled` is true when unspecified.
 */
import { Type, type Static } from '@sinclair/typebox';
import { BODY_MAX_BYTES, Ref, Strict } from '../common.js';

const Enabled = Type.Boolean({ description: 'true if the module is applied to traffic; true when unspecified' });

export const EndpointBackendInput = Strict({
  enabled: Type.Optional(Enabled),
  backend_id: Type.String({ minLength: 1, description: 'id of a backend of any kind' }),
});
export const EndpointBackend = Type.Object({ enabled: Type.Boolean(), backend: Ref });

export const EndpointIpPolicyInput = Strict({
  enabled: Type.Optional(Enabled),
  ip_policy_ids: Type.Array(Type.String({ minLength: 1 }), {
    minItems: 1,
    uniqueItems: true,
    description: 'ids of the IP policies checked to allow a source IP; at least one',
  }),
});
export const EndpointIpPolicy = Type.Object({ enabled: Type.Boolean(), ip_policies: Type.Array(Ref) });

export const EndpointTrafficPolicyInput = Strict({
  enabled: Type.Optional(Enabled),
  value: Type.String({
    minLength: 1,
    maxLength: BODY_MAX_BYTES,
    maxBytes: BODY_MAX_BYTES,
    description: 'the traffic policy applied to endpoint traffic, at most 64 KiB of UTF-8',
  }),
});
export const EndpointTrafficPolicy = Type.Object({ enabled: Type.Boolean(), value: Type.String() });

export type EndpointBackendInput = Static<typeof EndpointBackendInput>;
export type EndpointBackend = Static<typeof EndpointBackend>;
export type EndpointIpPolicyInput = Static<typeof EndpointIpPolicyInput>;
export type EndpointIpPolicy = Static<typeof EndpointIpPolicy>;
export type EndpointTrafficPolicyInput = Static<typeof EndpointTrafficPolicyInput>;
export type EndpointTrafficPolicy = Static<typeof EndpointTrafficPolicy>;
