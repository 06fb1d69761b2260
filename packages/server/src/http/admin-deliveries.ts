/**
 * `GET /_admin/deliveries`: the operators' read-only view of event delivery, outside the
 * API's own paths (the `_admin` prefix is no resource of api-spec). Like every route it needs a
 * valid API key and `Service-Version: 2`.
 *
 * Query: `after` (a `seq` cursor, records after it), `limit` (1..1000, default 100),
 * and filters `event_id`, `subscription_id`, `destination_id`. Answer, oldest first:
 *
 *     {"deliveries": [{seq, event_id, event_type, subscription_id, destination_id, attempt,
 *                      outcome: delivered|failed|dropped, detail, recorded_at}],
 *      "pending": <outbox rows not yet delivered>, "next_after": <last seq> | null}
 *
 * `next_after` is null when this page was not full; otherwise pass it as `after`.
 */
import type { FastifyInstance } from 'fastify';
import type { DeliveryLog, DeliveryQuery } from '../domain/delivery-log.js';

const ADMIN_DELIVERIES_PATH = '/_admin/deliveries';

const idFilter = { type: 'string', minLength: 1 } as const;

const querystring = {
  type: 'object',
  additionalProperties: false,
  properties: {
    after: { type: 'integer', minimum: 0 },
    limit: { type: 'integer', minimum: 1, maximum: 1000 },
    event_id: idFilter,
    subscription_id: idFilter,
    destination_id: idFilter,
  },
} as const;

const nullableString = { type: ['string', 'null'] } as const;

const response = {
  200: {
    type: 'object',
    properties: {
      deliveries: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            seq: { type: 'integer' },
            event_id: { type: 'string' },
            event_type: { type: 'string' },
            subscription_id: { type: 'string' },
            destination_id: { type: 'string' },
            attempt: { type: 'integer' },
            outcome: { type: 'string' },
            detail: nullableString,
            recorded_at: { type: 'string' },
          },
        },
      },
      pending: { type: 'integer' },
      next_after: { type: ['integer', 'null'] },
    },
  },
} as const;

export function registerAdminDeliveries(app: FastifyInstance, log: DeliveryLog): void {
  app.get(ADMIN_DELIVERIES_PATH, { schema: { querystring, response } }, async (request) => {
    const query = request.query as Partial<DeliveryQuery>;
    const limit = query.limit ?? 100;
    const deliveries = log.records({ ...query, limit });
    const last = deliveries[deliveries.length - 1];
    return {
      deliveries,
      pending: log.pendingCount(),
      next_after: deliveries.length === limit && last ? last.seq : null,
    };
  });
}
