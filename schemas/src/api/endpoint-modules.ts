/**
 * Endpoint modules of HTTPS edges and their routes (api-spec 2.6, 2.7), except the three
 * shared with TCP edges (`backend-modules.ts`) and the identity modules (`auth-modules.ts`).
 *
 * Each module has an input schema (the body of `PUT .../<module>` and of the module's field in
 * its owner's create/PATCH body) and an output schema (what GET/PUT and the owner return).
 * Inputs take ids, outputs return Refs; `enabled` is true when unspecified. Ranges stated by
 * the spec (uint32, `num_buckets` 1..128, `error_threshold_percentage` 0..1) are enforced by
 * the schemas themselves so every consumer of them applies the same limits.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Ref, Strict, StringEnum, Uint32 } from '../common.js';

export const ModuleEnabled = Type.Boolean({
  description: 'true if the module is applied to traffic; true when unspecified',
});

/** HTTP header name (an RFC 9110 token). */
export const HeaderName = Type.String({ minLength: 1, pattern: "^[!#$%&'*+\\-.^_`|~0-9A-Za-z]+$" });

// --- edge modules -------------------------------------------------------------------------

export const EndpointMutualTlsInput = Strict({
  enabled: Type.Optional(ModuleEnabled),
  certificate_authority_ids: Type.Array(Type.String({ minLength: 1 }), {
    uniqueItems: true,
    description: 'ids of the certificate authorities validating TLS client certificates',
  }),
});
export const EndpointMutualTls = Type.Object({
  enabled: Type.Boolean(),
  certificate_authorities: Type.Array(Ref),
});

export const TLS_VERSIONS = ['1.0', '1.1', '1.2', '1.3'] as const;
export const TerminateAt = StringEnum(['edge', 'upstream'], {
  description: 'edge: the edge terminates TLS; upstream: TLS passes through to the upstream',
});

export const EndpointTlsTerminationInput = Strict({
  enabled: Type.Optional(ModuleEnabled),
  terminate_at: Type.Optional(TerminateAt),
  min_version: Type.Optional(
    Type.Union([StringEnum(TLS_VERSIONS), Type.Null()], {
      description: 'minimum TLS version; must be null (or absent) when terminate_at is upstream',
    }),
  ),
});
export const EndpointTlsTermination = Type.Object({
  enabled: Type.Boolean(),
  terminate_at: TerminateAt,
  min_version: Type.Union([StringEnum(TLS_VERSIONS), Type.Null()]),
});

// --- route modules --------------------------------------------------------------------------

export const EndpointCircuitBreakerInput = Strict({
  enabled: Type.Optional(ModuleEnabled),
  tripped_duration: Type.Optional(Uint32),
  rolling_window: Type.Optional(Uint32),
  // 0 is what the service returns when unset (and so takes back as "unset"), else 1..128.
  num_buckets: Type.Optional(Type.Integer({ minimum: 0, maximum: 128, description: 'buckets of the rolling window, at most 128; 0: unset' })),
  volume_threshold: Type.Optional(Uint32),
  error_threshold_percentage: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
});
export const EndpointCircuitBreaker = Type.Object({
  enabled: Type.Boolean(),
  tripped_duration: Type.Integer(),
  rolling_window: Type.Integer(),
  num_buckets: Type.Integer(),
  volume_threshold: Type.Integer(),
  error_threshold_percentage: Type.Number(),
});

/** Modules that carry nothing but `enabled` (compression, websocket_tcp_converter). */
export const EndpointSwitchInput = Strict({ enabled: Type.Optional(ModuleEnabled) });
export const EndpointSwitch = Type.Object({ enabled: Type.Boolean() });

export const EndpointHeadersInput = Strict({
  enabled: Type.Optional(ModuleEnabled),
  add: Type.Optional(
    Type.Record(Type.String(), Type.String(), {
      propertyNames: HeaderName,
      description: 'header name to value; names come back lowercased',
    }),
  ),
  remove: Type.Optional(Type.Array(HeaderName, { description: 'header names to remove; [] when not given' })),
});
export const EndpointHeaders = Type.Object({
  enabled: Type.Boolean(),
  add: Type.Record(Type.String(), Type.String()),
  remove: Type.Array(Type.String()),
});

export const EndpointWebhookValidationInput = Strict({
  enabled: Type.Optional(ModuleEnabled),
  provider: Type.String({ minLength: 1, description: 'webhook sender, matched case-insensitively' }),
  secret: Type.Optional(Type.String({ description: 'required for every provider except sns' })),
});
export const EndpointWebhookValidation = Type.Object({
  enabled: Type.Boolean(),
  provider: Type.String(),
  secret: Type.String(),
});

export const EndpointUserAgentFilterInput = Strict({
  enabled: Type.Optional(ModuleEnabled),
  allow: Type.Optional(Type.Array(Type.String())),
  deny: Type.Optional(Type.Array(Type.String())),
});
export const EndpointUserAgentFilter = Type.Object({
  enabled: Type.Boolean(),
  allow: Type.Array(Type.String()),
  deny: Type.Array(Type.String()),
});

export type EndpointMutualTlsInput = Static<typeof EndpointMutualTlsInput>;
export type EndpointMutualTls = Static<typeof EndpointMutualTls>;
export type EndpointTlsTerminationInput = Static<typeof EndpointTlsTerminationInput>;
export type EndpointTlsTermination = Static<typeof EndpointTlsTermination>;
export type EndpointCircuitBreakerInput = Static<typeof EndpointCircuitBreakerInput>;
export type EndpointCircuitBreaker = Static<typeof EndpointCircuitBreaker>;
export type EndpointSwitchInput = Static<typeof EndpointSwitchInput>;
export type EndpointSwitch = Static<typeof EndpointSwitch>;
export type EndpointHeadersInput = Static<typeof EndpointHeadersInput>;
export type EndpointHeaders = Static<typeof EndpointHeaders>;
export type EndpointWebhookValidationInput = Static<typeof EndpointWebhookValidationInput>;
export type EndpointWebhookValidation = Static<typeof EndpointWebhookValidation>;
export type EndpointUserAgentFilterInput = Static<typeof EndpointUserAgentFilterInput>;
export type EndpointUserAgentFilter = Static<typeof EndpointUserAgentFilter>;
