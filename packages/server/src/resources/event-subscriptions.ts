/**
 * Event subscriptions (`/event_subscriptions`, esb_ ids; api-spec 6): which event types go to
 * which destinations. Sources are checked against the event catalogue (`event-sources.ts` of
 * @gatehouse/schemas, shared with the engine: known type, traffic-only fields and CEL filter
 * over filterable fields); `destination_ids` in must name existing destinations and come back as `destinations` Refs. PATCH replaces sources
 * or destinations whole. The delivery outbox reads `sources[].type` and `destination_ids` of
 * the stored object (migration 2), so those stored names are part of the delivery contract.
 */
import {
  EventSubscription,
  EventSubscriptionCreate,
  EventSubscriptionList,
  EventSubscriptionUpdate,
  checkEventSources,
  type EventSubscriptionSource,
  type EventSubscriptionSourceInput,
} from '@gatehouse/schemas';
import { ApiError, invalidReference } from '../errors.js';
import { merge, type ResourceDefinition } from './define.js';
import { withCommonFields, type CommonFields } from './common.js';
import { EVENT_DESTINATION } from './event-destinations.js';

export const EVENT_SUBSCRIPTION = 'event_subscription';

export interface StoredSubscription extends CommonFields {
  sources: EventSubscriptionSourceInput[];
  destination_ids: string[];
}

/** A source as returned, inline in its subscription and by the sources endpoints. */
export function renderSource(subscriptionUri: string, { type, fields, filter }: EventSubscriptionSourceInput): EventSubscriptionSource {
  return {
    type,
    uri: `${subscriptionUri}/sources/${type}`,
    ...(fields !== undefined ? { fields } : {}),
    ...(filter !== undefined ? { filter } : {}),
  };
}

/** Throws `invalid_event_source` naming the field when `sources` break a rule of the event catalogue. */
export function checkSources(sources: readonly EventSubscriptionSourceInput[]): void {
  const problem = checkEventSources(sources);
  if (problem) throw new ApiError('invalid_event_source', `${problem.field}: ${problem.message}.`, { field: problem.field });
}

export const eventSubscriptions: ResourceDefinition<StoredSubscription, EventSubscription> = {
  kind: EVENT_SUBSCRIPTION,
  label: 'event subscription',
  idPrefix: 'esb',
  path: '/event_subscriptions',
  listKey: 'event_subscriptions',
  audit: 'event_subscription',
  schemas: {
    create: EventSubscriptionCreate,
    update: EventSubscriptionUpdate,
    resource: EventSubscription,
    list: EventSubscriptionList,
  },
  write(input, current, { store }) {
    const given = input as EventSubscriptionUpdate;
    if (given.sources) checkSources(given.sources);
    given.destination_ids?.forEach((id, index) => {
      if (!store.get(id, EVENT_DESTINATION)) throw invalidReference(`destination_ids[${index}]`, id, 'Event destination');
    });
    return merge<StoredSubscription>(current, given);
  },
  render: (object, { urls }) => {
    const uri = urls.of(`/event_subscriptions/${object.id}`);
    return withCommonFields(object, uri, {
      sources: object.data.sources.map((source) => renderSource(uri, source)),
      destinations: urls.refs(object.data.destination_ids),
    });
  },
};
