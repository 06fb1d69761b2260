/**
 * The EventSubscription manifest: which event types go to which destinations (api-spec 6).
 * `sources` are the API's source inputs (type; for traffic events, `fields` and a CEL
 * `filter`), checked at validate time by the same code as the server (`event-sources.ts`).
 * `destinations` name EventDestination manifests (or `{id}`), as the response's field does.
 * Description and metadata are limited in characters here, not bytes (api-spec part 8).
 */
import { Type } from '@sinclair/typebox';
import { Strict } from '../common.js';
import { EventSubscriptionSourceInput, SUBSCRIPTION_DESCRIPTION_MAX_CHARS, SUBSCRIPTION_METADATA_MAX_CHARS } from '../api/event-subscriptions.js';
import { ManifestDocument, Reference } from './common.js';

export const EventSubscriptionSpec = Strict({
  description: Type.Optional(Type.String({ maxLength: SUBSCRIPTION_DESCRIPTION_MAX_CHARS, description: 'at most 255 characters' })),
  metadata: Type.Optional(Type.String({ maxLength: SUBSCRIPTION_METADATA_MAX_CHARS, description: 'at most 4096 characters' })),
  sources: Type.Array(EventSubscriptionSourceInput, {
    minItems: 1,
    description: 'event types to capture; each type once, e.g. {type: ip_policy_updated.v0}',
  }),
  destinations: Type.Array(Reference, {
    uniqueItems: true,
    description: 'event destinations that receive the events: EventDestination names or {id}',
  }),
});
export const EventSubscriptionManifest = ManifestDocument(
  'EventSubscription',
  EventSubscriptionSpec,
  'an event subscription: sources (event types) delivered to destinations',
);
