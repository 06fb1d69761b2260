/**
 * TCP edges (`/edges/tcp`): hostports plus the backend, IP restriction and traffic policy
 * modules, given inline on create and PATCH and rendered inline (`null` when unset).
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

export const Hostports = Type.Array(Type.String({ minLength: 1 }), {
  description: 'hostname:port pairs served by the edge (port 1..65535); each belongs to at most one edge',
});

const fields = {
  description: Type.Optional(Description),
  metadata: Type.Optional(Metadata),
  hostports: Type.Optional(Hostports),
  backend: Type.Optional(EndpointBackendInput),
  ip_restriction: Type.Optional(EndpointIpPolicyInput),
  traffic_policy: Type.Optional(EndpointTrafficPolicyInput),
};

export const TcpEdgeCreate = Type.Object(fields, { additionalProperties: false });
export const TcpEdgeUpdate = UpdateBody(fields);
export const TcpEdge = Type.Object({
  ...resourceBase,
  hostports: Type.Array(Type.String()),
  backend: Nullable(EndpointBackend),
  ip_restriction: Nullable(EndpointIpPolicy),
  traffic_policy: Nullable(EndpointTrafficPolicy),
});
export const TcpEdgeList = listEnvelope('tcp_edges', TcpEdge);

export type TcpEdgeCreate = Static<typeof TcpEdgeCreate>;
export type TcpEdgeUpdate = Static<typeof TcpEdgeUpdate>;
export type TcpEdge = Static<typeof TcpEdge>;
