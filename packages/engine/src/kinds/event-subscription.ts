/**
 * Event subscriptions (`/event_subscriptions`; api-spec 6): which event types go to which
 * destinations. A source's type is unique within a subscription, so sources compare as a set
 * (sorted by type), as do a source's `fields` and the destinations; the server's `uri` of a
 * source is derived and dropped. Sources are checked at validate time by the server's own code
 * (`eventSourceProblems` of @gatehouse/schemas): known event types, fields of that traffic event
 * type, and a CEL filter over filterable fields, each problem at the line of the offending value.
 */
import { eventSourceProblems, type EventSourceInput } from '@gatehouse/schemas/runtime';
import { problem } from '../problems.js';
import { collectionCalls, commonBody, commonFields, refToken, sorted } from './shared.js';
import type { KindDescriptor, Spec } from './types.js';

/** Sources in normal form: sorted by type, fields sorted, only what the manifest can say. */
function sourcesNormal(sources: unknown): Spec[] {
  return ((sources as Spec[] | undefined) ?? [])
    .map((s) => ({
      type: String(s.type),
      ...(s.fields !== undefined && s.fields !== null ? { fields: sorted(s.fields) } : {}),
      ...(typeof s.filter === 'string' ? { filter: s.filter } : {}),
    }))
    .sort((a, b) => a.type.localeCompare(b.type));
}

const destinations = (list: unknown): string[] => ((list as unknown[] | undefined) ?? []).map(refToken);

export const eventSubscription: KindDescriptor = {
  kind: 'EventSubscription',
  policyName: 'subscription',
  title: 'event subscription',
  manifestKind: 'EventSubscription',
  observe: { lists: [{ path: '/event_subscriptions', listKey: 'event_subscriptions' }] },
  metadata: true,
  fromManifest: (spec) => ({ ...commonFields(spec), sources: sourcesNormal(spec.sources), destinations: destinations(spec.destinations) }),
  fromLive: (live) => ({ ...commonFields(live), sources: sourcesNormal(live.sources), destinations: destinations(live.destinations) }),
  refs: [{ pattern: ['destinations', '*'], kind: 'EventDestination', set: true }],
  sensitive: [],
  immutable: [],
  label: (normal, name) => name ?? String(normal.description ?? (normal.sources as Spec[]).map((s) => s.type).join(', ')),
  check: (normal, ctx) => {
    // Positions come from the sources as written; the normal form is sorted.
    const written = (ctx.manifest?.sources ?? normal.sources) as EventSourceInput[];
    return eventSourceProblems(written).map((p) =>
      problem('event_source_invalid', `${p.field}: ${p.message}; see api-spec part 6 for the event types and their fields`, ctx.at(p.path)),
    );
  },
  calls: collectionCalls(
    '/event_subscriptions',
    (normal, ctx) => ({ ...commonBody(normal, ctx), sources: normal.sources, destination_ids: (normal.destinations as string[]).map(ctx.resolve) }),
    (after, changed, ctx) => ({
      ...commonBody(after, ctx, changed),
      ...(changed.includes('sources') ? { sources: after.sources } : {}),
      ...(changed.includes('destinations') ? { destination_ids: (after.destinations as string[]).map(ctx.resolve) } : {}),
    }),
  ),
};
