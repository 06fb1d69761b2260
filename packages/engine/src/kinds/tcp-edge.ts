/** TCP edges (`/edges/tcp`): hostports on reserved TCP addresses plus the backend, IP restriction and traffic policy modules. */
import { hostportEdge } from './hostport-edge.js';
import { addressesNeeded } from './hostports.js';
import { TCP_EDGE_MODULES } from './modules.js';

export const tcpEdge = hostportEdge({
  kind: 'TCPEdge',
  title: 'TCP edge',
  path: '/edges/tcp',
  listKey: 'tcp_edges',
  modules: TCP_EDGE_MODULES,
  requires: addressesNeeded,
});
