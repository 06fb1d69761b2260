/**
 * HTTPS edges (api-spec 2.7, 4.7): hostports (port 443 only, each on at most one edge), the
 * edge modules `mutual_tls` and `tls_termination`, and the edge's routes, rendered inline in
 * creation order. An edge is created with `routes: []` and its modules `null` unless given.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Description, Metadata, Nullable, listEnvelope, resourceBase, UpdateBody } from '../common.js';
import {
  EndpointMutualTls,
  EndpointMutualTlsInput,
  EndpointTlsTermination,
  EndpointTlsTerminationInput,
} from './endpoint-modules.js';
import { HttpsEdgeRoute } from './routes.js';

export const HttpsHostports = Type.Array(Type.String({ minLength: 1 }), {
  description: 'hostname:443 pairs served by the edge; each belongs to at most one edge',
});

const fields = {
  description: Type.Optional(Description),
  metadata: Type.Optional(Metadata),
  hostports: Type.Optional(HttpsHostports),
  mutual_tls: Type.Optional(EndpointMutualTlsInput),
  tls_termination: Type.Optional(EndpointTlsTerminationInput),
};

export const HttpsEdgeCreate = Type.Object(fields, { additionalProperties: false });
export const HttpsEdgeUpdate = UpdateBody(fields);
export const HttpsEdge = Type.Object({
  ...resourceBase,
  hostports: Type.Array(Type.String()),
  mutual_tls: Nullable(EndpointMutualTls),
  tls_termination: Nullable(EndpointTlsTermination),
  routes: Type.Array(HttpsEdgeRoute),
});
export const HttpsEdgeList = listEnvelope('https_edges', HttpsEdge);

export type HttpsEdgeCreate = Static<typeof HttpsEdgeCreate>;
export type HttpsEdgeUpdate = Static<typeof HttpsEdgeUpdate>;
export type HttpsEdge = Static<typeof HttpsEdge>;
