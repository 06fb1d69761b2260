/**
 * TLS edges (`/edges/tls`): hostports (a reserved domain and port, each on at most one edge)
 * plus the backend, IP restriction, mutual TLS, TLS termination (`terminate_at` edge or
 * upstream) and traffic policy modules, given inline on create and PATCH and rendered inline
 * (`null` when unset), each also replaced, read and deleted on its own.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Description, Metadata, Nullable, listEnvelope, resourceBase, UpdateBody } from '../common.js';
import {
  EndpointBackend,
  EndpointBackendInput,
  EndpointIpPolicy,
  EndpointIpPolicyInput,
  EndpointTrafficPolicy,
  EndpointTrafficPolicyInput,
} from './backend-modules.js';
import { EndpointMutualTls, EndpointMutualTlsInput, EndpointTlsTermination, EndpointTlsTerminationInput } from './endpoint-modules.js';
import { Hostports } from './tcp-edges.js';

const fields = {
  description: Type.Optional(Description),
  metadata: Type.Optional(Metadata),
  hostports: Type.Optional(Hostports),
  backend: Type.Optional(EndpointBackendInput),
  ip_restriction: Type.Optional(EndpointIpPolicyInput),
  mutual_tls: Type.Optional(EndpointMutualTlsInput),
  tls_termination: Type.Optional(EndpointTlsTerminationInput),
  traffic_policy: Type.Optional(EndpointTrafficPolicyInput),
};

export const TlsEdgeCreate = Type.Object(fields, { additionalProperties: false });
export const TlsEdgeUpdate = UpdateBody(fields);
export const TlsEdge = Type.Object({
  ...resourceBase,
  hostports: Type.Array(Type.String()),
  backend: Nullable(EndpointBackend),
  ip_restriction: Nullable(EndpointIpPolicy),
  mutual_tls: Nullable(EndpointMutualTls),
  tls_termination: Nullable(EndpointTlsTermination),
  traffic_policy: Nullable(EndpointTrafficPolicy),
});
export const TlsEdgeList = listEnvelope('tls_edges', TlsEdge);

export type TlsEdgeCreate = Static<typeof TlsEdgeCreate>;
export type TlsEdge = Static<typeof TlsEdge>;
