/**
 * Event subscriptions (api-spec 6 and the event_subscription_* payload of 6.3): which event
 * types go to which destinations. Unlike other resources, description and metadata are limited
 * in characters (255 and 4096), not bytes (api-spec part 8).
 *
 * A source names an event type (`ip_policy_updated.v0`); traffic event sources may also select
 * `fields` and a CEL `filter`. Which types and fields exist is in `events.ts`; the server and
 * the engine check sources against it beyond what these schemas can say.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Ref, Strict, Timestamp, listEnvelope, UpdateBody } from '../common.js';

export const SUBSCRIPTION_DESCRIPTION_MAX_CHARS = 255;
export const SUBSCRIPTION_METADATA_MAX_CHARS = 4096;

const SubscriptionDescription = Type.String({
  maxLength: SUBSCRIPTION_DESCRIPTION_MAX_CHARS,
  description: 'human-readable description, at most 255 characters',
});
const SubscriptionMetadata = Type.String({
  maxLength: SUBSCRIPTION_METADATA_MAX_CHARS,
  description: 'machine-readable data, at most 4096 characters',
});

const sourceDetails = {
  fields: Type.Optional(
    Type.Array(Type.String({ minLength: 1 }), {
      uniqueItems: true,
      description: 'traffic events only: the fields to capture, e.g. conn.client_ip',
    }),
  ),
  filter: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 4096,
      description: 'traffic events only: CEL expression over filterable fields, e.g. conn.server_port == 443',
    }),
  ),
};

export const EventSubscriptionSourceInput = Strict({
  type: Type.String({ minLength: 1, description: 'event type with its version suffix, e.g. ip_policy_updated.v0' }),
  ...sourceDetails,
});
export const EventSubscriptionSource = Type.Object({ type: Type.String(), uri: Type.String(), ...sourceDetails }, { additionalProperties: false });

/**
 * `POST /event_subscriptions/{id}/sources`: one more event type for the subscription.
 * @alias the body is a source as a subscription's create lists it
 */
export const EventSubscriptionSourceCreate = EventSubscriptionSourceInput;
/** `PATCH /event_subscriptions/{id}/sources/{type}`: the source's fields and filter. */
export const EventSubscriptionSourceUpdate = UpdateBody(sourceDetails);
/** `GET /event_subscriptions/{id}/sources`: the subscription's sources. */
export const EventSubscriptionSourceList = Type.Object({ sources: Type.Array(EventSubscriptionSource), uri: Type.String() }, { additionalProperties: false });
/** Path parameters of one source: the subscription's id and the source's event type. */
export const EventSubscriptionSourceParams = Type.Object({ id: Type.String(), type: Type.String() });

const Sources = Type.Array(EventSubscriptionSourceInput, { minItems: 1 });
const DestinationIds = Type.Array(Type.String({ minLength: 1 }), {
  uniqueItems: true,
  description: 'ids of the event destinations (ed_...) that receive the events',
});

export const EventSubscriptionCreate = Strict({
  description: Type.Optional(SubscriptionDescription),
  metadata: Type.Optional(SubscriptionMetadata),
  sources: Sources,
  destination_ids: DestinationIds,
});
export const EventSubscriptionUpdate = UpdateBody({
  description: SubscriptionDescription,
  metadata: SubscriptionMetadata,
  sources: Sources,
  destination_ids: DestinationIds,
});
export const EventSubscription = Type.Object({
  id: Type.String(),
  uri: Type.String(),
  created_at: Timestamp,
  description: Type.Optional(Type.String()),
  metadata: Type.Optional(Type.String()),
  sources: Type.Array(EventSubscriptionSource),
  destinations: Type.Array(Ref),
});
export const EventSubscriptionList = listEnvelope('event_subscriptions', EventSubscription);

export type EventSubscriptionSourceInput = Static<typeof EventSubscriptionSourceInput>;
export type EventSubscriptionSource = Static<typeof EventSubscriptionSource>;
export type EventSubscriptionSourceUpdate = Static<typeof EventSubscriptionSourceUpdate>;
export type EventSubscriptionCreate = Static<typeof EventSubscriptionCreate>;
export type EventSubscriptionUpdate = Static<typeof EventSubscriptionUpdate>;
export type EventSubscription = Static<typeof EventSubscription>;
