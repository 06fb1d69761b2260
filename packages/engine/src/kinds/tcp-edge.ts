/**
 * TCP edges (`/edges/tcp`): hostports on reserved TCP addresses plus the backend, IP restriction
 * and traffic policy modules. A hostport is written out (`1.tcp.example.com:20022`) or names a
 * ReservedTCPAddress manifest (`{reserved_tcp_address: ssh}`), whose address the service
 * assigns: apply sends it once the reservation exists.
 */
import { hostportEdge } from './hostport-edge.js';
import { RESERVED_ADDRESS_REF } from './hostports.js';
import { TCP_EDGE_MODULES } from './modules.js';

export const tcpEdge = hostportEdge({
  kind: 'TCPEdge',
  title: 'TCP edge',
  path: '/edges/tcp',
  listKey: 'tcp_edges',
  modules: TCP_EDGE_MODULES,
  hostportRef: RESERVED_ADDRESS_REF,
});
