/**
 * Backends (`/backends/<kind>`), the objects that endpoint backend modules point at. Five
 * kinds, shaped as the service shapes them: tunnel_group (labels), http_response (body,
 * headers, status_code), failover (an ordered list of backend ids), weighted (backend id ->
 * weight 0..10000) and static (`/backends/static`, ids `bkdsc_`: `address` host:port and
 * `tls.enabled`, false when unspecified, `tls: {}` included). Composite backends (failover,
 * weighted) return the ids they were given, not Refs. Every list uses the envelope key
 * `backends`.
 */
import { Type, type Static, type TProperties } from '@sinclair/typebox';
import { BODY_MAX_BYTES, Description, Metadata, Ref, listEnvelope, resourceBase, UpdateBody } from '../common.js';

export const WEIGHT_MAX = 10_000;

const common = { description: Type.Optional(Description), metadata: Type.Optional(Metadata) };

/** Create body: the common fields plus `fields`; unknown fields rejected. */
function createBody<T extends TProperties>(fields: T) {
  return Type.Object({ ...common, ...fields }, { additionalProperties: false });
}
/** PATCH body: the common fields plus `fields`, every one optional, at least one given. */
const updateBody = <T extends TProperties>(fields: T) => UpdateBody({ ...common, ...fields });

const Labels = Type.Record(Type.String(), Type.String(), {
  minProperties: 1,
  description: 'labels a tunnel must carry to join the group, e.g. {"app": "web"}; at least one',
});
const Headers = Type.Record(Type.String(), Type.String({ minLength: 1 }), {
  description: 'headers to return, name -> value',
});
const StatusCode = Type.Integer({ minimum: 100, maximum: 599, description: 'HTTP status to return; 200 when unspecified' });
const BackendIds = Type.Array(Type.String({ minLength: 1 }), {
  minItems: 1,
  uniqueItems: true,
  description: 'ids of the backends to try, in order; each must exist',
});
const Weights = Type.Record(Type.String(), Type.Integer({ minimum: 0, maximum: WEIGHT_MAX }), {
  minProperties: 1,
  description: 'backend id -> weight (0..10000); each backend must exist',
});

export const TunnelGroupBackendCreate = createBody({ labels: Labels });
export const TunnelGroupBackendUpdate = updateBody({ labels: Labels });
export const TunnelGroupBackend = Type.Object({
  ...resourceBase,
  labels: Type.Record(Type.String(), Type.String()),
  /** Tunnels currently in the group; the reference server runs no agents, so always empty. */
  tunnels: Type.Array(Ref),
});
export const TunnelGroupBackendList = listEnvelope('backends', TunnelGroupBackend);

const httpResponseFields = {
  body: Type.Optional(Type.String({ maxLength: BODY_MAX_BYTES, maxBytes: BODY_MAX_BYTES, description: 'the response body, at most 64 KiB of UTF-8' })),
  headers: Type.Optional(Headers),
  status_code: Type.Optional(StatusCode),
};
export const HttpResponseBackendCreate = createBody(httpResponseFields);
export const HttpResponseBackendUpdate = updateBody(httpResponseFields);
export const HttpResponseBackend = Type.Object({
  ...resourceBase,
  body: Type.String(),
  headers: Type.Record(Type.String(), Type.String()),
  status_code: Type.Integer(),
});
export const HttpResponseBackendList = listEnvelope('backends', HttpResponseBackend);

export const FailoverBackendCreate = createBody({ backends: BackendIds });
export const FailoverBackendUpdate = updateBody({ backends: BackendIds });
export const FailoverBackend = Type.Object({ ...resourceBase, backends: Type.Array(Type.String()) });
export const FailoverBackendList = listEnvelope('backends', FailoverBackend);

export const WeightedBackendCreate = createBody({ backends: Weights });
export const WeightedBackendUpdate = updateBody({ backends: Weights });
export const WeightedBackend = Type.Object({ ...resourceBase, backends: Type.Record(Type.String(), Type.Integer()) });
export const WeightedBackendList = listEnvelope('backends', WeightedBackend);

/** `host:port` of a static backend. */
const Address = Type.String({
  minLength: 3,
  maxLength: 260,
  pattern: '^[^\\s:/]+:[1-9][0-9]{0,4}$',
  description: 'host:port to forward to, e.g. 10.0.0.5:8080 or app.internal:443',
});
/** The service sends `tls: {}` in its own examples: `enabled` is false when left out. */
const StaticTls = Type.Object(
  { enabled: Type.Optional(Type.Boolean({ description: 'connect to the address over TLS; false when unspecified' })) },
  { additionalProperties: false },
);
export const StaticBackendCreate = createBody({ address: Address, tls: Type.Optional(StaticTls) });
export const StaticBackendUpdate = updateBody({ address: Address, tls: StaticTls });
export const StaticBackend = Type.Object({ ...resourceBase, address: Type.String(), tls: Type.Object({ enabled: Type.Boolean() }) });
export const StaticBackendList = listEnvelope('backends', StaticBackend);

export type StaticBackendCreate = Static<typeof StaticBackendCreate>;
export type StaticBackend = Static<typeof StaticBackend>;
export type TunnelGroupBackendCreate = Static<typeof TunnelGroupBackendCreate>;
export type TunnelGroupBackend = Static<typeof TunnelGroupBackend>;
export type HttpResponseBackendCreate = Static<typeof HttpResponseBackendCreate>;
export type HttpResponseBackend = Static<typeof HttpResponseBackend>;
export type FailoverBackendCreate = Static<typeof FailoverBackendCreate>;
export type FailoverBackend = Static<typeof FailoverBackend>;
export type WeightedBackendCreate = Static<typeof WeightedBackendCreate>;
export type WeightedBackend = Static<typeof WeightedBackend>;
