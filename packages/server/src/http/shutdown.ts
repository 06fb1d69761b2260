/**
 * Behaviour while the app closes (SIGTERM/SIGINT in `gatehouse serve`): requests already in
 * flight finish; a request that still arrives (on a kept-alive connection) gets 503
 * `service_unavailable` with the error envelope rather than Fastify's own body; and every
 * answer sent while closing ends its connection, since a keep-alive connection left open by
 * an in-flight request would otherwise hold the shutdown until the keep-alive timeout.
 * Requires the app to be built with `return503OnClosing: false`.
 */
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.js';

export function registerShutdownBehaviour(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    if (closing) reply.header('connection', 'close');
    return payload;
  });
  app.addHook('onRequest', async () => {
    if (closing) throw new ApiError('service_unavailable', 'The server is shutting down; retry against its replacement.');
  });
}
