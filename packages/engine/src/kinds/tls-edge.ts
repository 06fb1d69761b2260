/**
 * TLS edges (`/edges/tls`): hostports on reserved domains plus the backend, IP restriction,
 * mutual TLS, TLS termination and traffic policy modules, PUT or DELETEd on their own when they
 * change, as for TCP edges.
 */
import { hostportEdge } from './hostport-edge.js';
import { TLS_EDGE_MODULES } from './modules.js';

export const tlsEdge = hostportEdge({
  kind: 'TLSEdge',
  title: 'TLS edge',
  path: '/edges/tls',
  listKey: 'tls_edges',
  modules: TLS_EDGE_MODULES,
});
