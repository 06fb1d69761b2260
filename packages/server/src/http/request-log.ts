/**
 * The request log and the operation id, as docs/server.md promises ("the operation_id identifies
 * the request in its log"): every answer carries an `operation-id` header with the id that
 * error envelopes give as `details.operation_id`, and, when the app has a logger, every
 * request is ONE log line, written by Fastify's own pino logger once the answer is sent:
 * `operation_id` (Fastify's request id, the label under which `request.log` binds it too),
 * method, path and query, status and duration. Never a header value (the API key is one) or a
 * body. Fastify's own two lines per request ("incoming request", "request completed") are
 * turned off in app.ts.
 */
import type { FastifyInstance } from 'fastify';

const OPERATION_ID_HEADER = 'operation-id';
/** The field that carries the operation id in log records (Fastify's `requestIdLogLabel`). */
export const REQUEST_ID_LABEL = 'operation_id';

export function registerRequestLog(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
    reply.header(OPERATION_ID_HEADER, request.id);
  });
  app.addHook('onResponse', async (request, reply) => {
    app.log.info(
      {
        [REQUEST_ID_LABEL]: request.id,
        method: request.method,
        path: request.url,
        status: reply.statusCode,
        duration_ms: Math.round(reply.elapsedTime * 10) / 10,
      },
      'request',
    );
  });
}
