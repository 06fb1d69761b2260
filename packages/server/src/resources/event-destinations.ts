/**
 * Event destinations (`/event_destinations`, ed_ ids; api-spec 6): a JSON-format target that
 * is exactly one of firehose, kinesis, cloudwatch_logs, datadog or azure_logs_ingestion (the
 * schema enforces "exactly one" for the target and for an AWS target's auth). The server keeps
 * each target's secret (AWS secret access key, datadog api_key, azure client_secret) to
 * deliver with, and never shows it: responses and audit events carry `null` in its place.
 * PATCH replaces a given target whole. Deleting a destination that subscriptions reference
 * succeeds; their deliveries to it are then recorded as dropped (`domain/delivery.ts`).
 */
import {
  EventDestination,
  EventDestinationCreate,
  EventDestinationList,
  EventDestinationUpdate,
  EVENT_TARGET_TYPES,
  WRITE_ONLY_TARGET_FIELDS,
  type EventDestinationTarget,
  type EventDestinationTargetInput,
} from '@gatehouse/schemas';
import { merge, type ResourceDefinition } from './define.js';
import { withCommonFields, type CommonFields } from './common.js';

export const EVENT_DESTINATION = 'event_destination';

export interface StoredDestination extends CommonFields {
  format: 'json';
  target: EventDestinationTargetInput;
}

/**
 * The target as shown: as given, with its write-only secret (`WRITE_ONLY_TARGET_FIELDS`: the
 * AWS secret access key, datadog's api_key, azure's client_secret) replaced by `null`.
 */
function showTarget(target: EventDestinationTargetInput): EventDestinationTarget {
  const shown = structuredClone(target) as Record<string, Record<string, unknown>>;
  for (const type of EVENT_TARGET_TYPES) {
    const value = shown[type];
    if (!value) continue;
    const path = WRITE_ONLY_TARGET_FIELDS[type];
    let holder: Record<string, unknown> | undefined = value;
    for (const key of path.slice(0, -1)) holder = holder?.[key] as Record<string, unknown> | undefined;
    if (holder && path.at(-1)! in holder) holder[path.at(-1)!] = null;
  }
  return shown as EventDestinationTarget;
}

export const eventDestinations: ResourceDefinition<StoredDestination, EventDestination> = {
  kind: EVENT_DESTINATION,
  label: 'event destination',
  idPrefix: 'ed',
  path: '/event_destinations',
  listKey: 'event_destinations',
  audit: 'event_destination',
  schemas: {
    create: EventDestinationCreate,
    update: EventDestinationUpdate,
    resource: EventDestination,
    list: EventDestinationList,
  },
  write(input, current) {
    const data = merge<StoredDestination>(current, input as EventDestinationUpdate);
    return { ...data, format: data.format ?? 'json' };
  },
  render: (object, { urls }) =>
    withCommonFields(object, urls.of(`/event_destinations/${object.id}`), {
      format: object.data.format,
      target: showTarget(object.data.target),
    }),
};
