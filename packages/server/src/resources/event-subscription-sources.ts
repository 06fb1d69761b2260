/**
 * The sources of an event subscription as objects of their own (the service's Event Sources
 * endpoints), identified by their event type under their subscription:
 *
 *   GET    /event_subscriptions/{id}/sources          {sources: [...], uri}
 *   POST   /event_subscriptions/{id}/sources          one more event type -> 201, the source
 *   GET    /event_subscriptions/{id}/sources/{type}   the source
 *   PATCH  /event_subscriptions/{id}/sources/{type}   its fields and filter
 *   DELETE /event_subscriptions/{id}/sources/{type}   204
 *
 * They read and write the `sources` the subscription itself stores and renders, through the
 * same checks (`checkEventSources`: known type, once per subscription, traffic-only fields and a
 * filter over filterable fields), and each change records the subscription's
 * `event_subscription_updated.v0` audit event. The last source cannot be deleted: a
 * subscription has at least one (delete the subscription instead).
 */
import {
  EventSubscriptionSource,
  EventSubscriptionSourceCreate,
  EventSubscriptionSourceList,
  EventSubscriptionSourceParams,
  EventSubscriptionSourceUpdate,
  IdParams,
  type EventSubscriptionSourceInput,
} from '@gatehouse/schemas';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { StoredObject } from '../db/store.js';
import { ApiError, notFound } from '../errors.js';
import { requestContext, type RequestContext } from './context.js';
import { checkSources, EVENT_SUBSCRIPTION, eventSubscriptions, renderSource, type StoredSubscription } from './event-subscriptions.js';
import { isEmptyBody, loadFromUrl } from './define.js';

const BASE = '/event_subscriptions/:id/sources';

export function registerEventSubscriptionSources(app: FastifyInstance): void {
  const load = (request: FastifyRequest) => loadFromUrl<StoredSubscription>(request, { kind: EVENT_SUBSCRIPTION, label: 'Event subscription' });
  const sourceOf = (subscription: StoredObject<StoredSubscription>, type: string) => {
    const index = subscription.data.sources.findIndex((s) => s.type === type);
    if (index < 0) throw notFound(`Source of event subscription '${subscription.id}' for event type`, type);
    return index;
  };
  const subscriptionUri = (id: string) => app.services.urls.of(`/event_subscriptions/${id}`);

  /** Stores `sources` on the subscription after the shared checks, with its audit event. */
  const save = (ctx: RequestContext, subscription: StoredObject<StoredSubscription>, sources: EventSubscriptionSourceInput[]) => {
    checkSources(sources);
    const updated = ctx.store.update(subscription, { ...subscription.data, sources });
    ctx.audit.record('event_subscription', 'updated', eventSubscriptions.render(updated, ctx), ctx.principal);
  };

  app.get(BASE, { schema: { params: IdParams, response: { 200: EventSubscriptionSourceList } } }, async (request) => {
    const subscription = load(request);
    const uri = subscriptionUri(subscription.id);
    return { sources: subscription.data.sources.map((s) => renderSource(uri, s)), uri: `${uri}/sources` };
  });

  app.post(BASE, { schema: { params: IdParams, body: EventSubscriptionSourceCreate, response: { 201: EventSubscriptionSource } } }, async (request, reply) => {
    const ctx = requestContext(request);
    const source = request.body as EventSubscriptionSourceInput;
    const rendered = ctx.store.transaction(() => {
      const subscription = load(request);
      save(ctx, subscription, [...subscription.data.sources, source]);
      return renderSource(subscriptionUri(subscription.id), source);
    });
    return reply.code(201).send(rendered);
  });

  app.get(`${BASE}/:type`, { schema: { params: EventSubscriptionSourceParams, response: { 200: EventSubscriptionSource } } }, async (request) => {
    const subscription = load(request);
    const source = subscription.data.sources[sourceOf(subscription, (request.params as { type: string }).type)]!;
    return renderSource(subscriptionUri(subscription.id), source);
  });

  app.patch(
    `${BASE}/:type`,
    { schema: { params: EventSubscriptionSourceParams, body: EventSubscriptionSourceUpdate, response: { 200: EventSubscriptionSource } } },
    async (request) => {
      const ctx = requestContext(request);
      return ctx.store.transaction(() => {
        const subscription = load(request);
        const index = sourceOf(subscription, (request.params as { type: string }).type);
        const source = { ...subscription.data.sources[index]!, ...(request.body as EventSubscriptionSourceUpdate) };
        // `{}` (the service's documentation sends it) changes nothing: no write, no event.
        if (!isEmptyBody(request.body))
          save(
            ctx,
            subscription,
            subscription.data.sources.map((s, i) => (i === index ? source : s)),
          );
        return renderSource(subscriptionUri(subscription.id), source);
      });
    },
  );

  app.delete(`${BASE}/:type`, { schema: { params: EventSubscriptionSourceParams } }, async (request, reply) => {
    const ctx = requestContext(request);
    ctx.store.transaction(() => {
      const subscription = load(request);
      const index = sourceOf(subscription, (request.params as { type: string }).type);
      if (subscription.data.sources.length === 1) {
        throw new ApiError(
          'invalid_value',
          `sources: '${subscription.data.sources[0]!.type}' is the only source of event subscription '${subscription.id}', which needs at least one; delete the subscription instead.`,
          { field: 'sources' },
        );
      }
      save(
        ctx,
        subscription,
        subscription.data.sources.filter((_, i) => i !== index),
      );
    });
    return reply.code(204).send();
  });
}
