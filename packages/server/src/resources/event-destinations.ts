/**
 * Event destinations (`/event_destinations`, ed_ ids; api-spec 6): a JSON-format target that
 * is exactly one of firehose, kinesis or cloudwatch_logs (the schema enforces "exactly one"
 * for the target and for its auth). The server keeps the AWS secret access key to deliver
 * with, and never shows it: responses and audit events carry `aws_secret_access_key: null`.
 * PATCH replaces a given target whole. Deleting a destination that subscriptions reference
 * succeeds; their deliveries to it are then recorded as dropped (`domain/delivery.ts`).
 */
import {
  EventDestination,
  EventDestinationCreate,
  EventDestinationList,
  EventDestinationUpdate,
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

type AuthInput = NonNullable<EventDestinationTargetInput['firehose']>['auth'];
type AuthOutput = NonNullable<EventDestinationTarget['firehose']>['auth'];

/** The auth block as shown: the role as given, or the access key id with the secret nulled. */
function showAuth(auth: AuthInput): AuthOutput {
  return auth.creds
    ? { creds: { aws_access_key_id: auth.creds.aws_access_key_id, aws_secret_access_key: null } }
    : { ...(auth.role ? { role: { role_arn: auth.role.role_arn } } : {}) };
}

export function showTarget(target: EventDestinationTargetInput): EventDestinationTarget {
  const { firehose, kinesis, cloudwatch_logs } = target;
  if (firehose) return { firehose: { ...firehose, auth: showAuth(firehose.auth) } };
  if (kinesis) return { kinesis: { ...kinesis, auth: showAuth(kinesis.auth) } };
  if (cloudwatch_logs) return { cloudwatch_logs: { ...cloudwatch_logs, auth: showAuth(cloudwatch_logs.auth) } };
  return {};
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
