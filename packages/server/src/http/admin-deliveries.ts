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
import { Nullable } from '@gatehouse/schemas';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { DeliveryRecord, type DeliveryLog, type DeliveryQuery } from '../domain/delivery-log.js';

const ADMIN_DELIVERIES_PATH = '/_admin/deliveries';

const IdFilter = Type.Optional(Type.String({ minLength: 1 }));

const querystring = Type.Object(
  {
    after: Type.Optional(Type.Integer({ minimum: 0 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    event_id: IdFilter,
    subscription_id: IdFilter,
    destination_id: IdFilter,
  },
  { additionalProperties: false },
);

const response = { 200: Type.Object({ deliveries: Type.Array(DeliveryRecord), pending: Type.Integer(), next_after: Nullable(Type.Integer()) }) };

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
