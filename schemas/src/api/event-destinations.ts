/**
 * Event destinations (api-spec 6 and the event_destination_* payload of 6.3): where a
 * subscription's events go. `format` is `json`, the only accepted value; `target` is exactly
 * one of firehose, kinesis or cloudwatch_logs, each authenticated by exactly one of an IAM
 * role to assume or a static access key.
 *
 * `aws_secret_access_key` is write-only: requests send it, responses and audit events carry
 * `null` in its place, so it never appears in output, logs or exported manifests.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Description, Metadata, Strict, StringEnum, listEnvelope, resourceBase, UpdateBody } from '../common.js';

export const EventFormat = StringEnum(['json'], { description: 'event encoding; json is the only accepted value' });

const arn = (pattern: string, example: string) =>
  Type.String({ minLength: 1, maxLength: 2048, pattern, description: `AWS ARN, e.g. ${example}` });

export const RoleArn = arn('^arn:[a-z-]+:iam::[0-9]{12}:role/.+$', 'arn:aws:iam::123456789012:role/events');
export const DeliveryStreamArn = arn(
  '^arn:[a-z-]+:firehose:[a-z0-9-]+:[0-9]{12}:deliverystream/.+$',
  'arn:aws:firehose:us-east-1:123456789012:deliverystream/events',
);
export const StreamArn = arn(
  '^arn:[a-z-]+:kinesis:[a-z0-9-]+:[0-9]{12}:stream/.+$',
  'arn:aws:kinesis:us-east-1:123456789012:stream/events',
);
export const LogGroupArn = arn(
  '^arn:[a-z-]+:logs:[a-z0-9-]+:[0-9]{12}:log-group:.+$',
  'arn:aws:logs:us-east-1:123456789012:log-group:events',
);

const exactlyOne = <T extends Parameters<typeof Type.Object>[0]>(properties: T, description: string) =>
  Type.Object(properties, { additionalProperties: false, minProperties: 1, maxProperties: 1, description });

const AwsRole = Strict({ role_arn: RoleArn });
const AwsCredsIn = Strict({
  aws_access_key_id: Type.String({ minLength: 1, maxLength: 128 }),
  aws_secret_access_key: Type.String({ minLength: 1, maxLength: 1024, description: 'write-only; never returned' }),
});
const AwsCredsOut = Strict({ aws_access_key_id: Type.String(), aws_secret_access_key: Type.Null() });

const authIn = exactlyOne(
  { role: Type.Optional(AwsRole), creds: Type.Optional(AwsCredsIn) },
  'exactly one of role (an IAM role to assume) or creds (a static access key)',
);
const authOut = Type.Object(
  { role: Type.Optional(AwsRole), creds: Type.Optional(AwsCredsOut) },
  { additionalProperties: false },
);

function targets<A extends TSchema>(auth: A) {
  return {
    firehose: Strict({ auth, delivery_stream_arn: DeliveryStreamArn }),
    kinesis: Strict({ auth, stream_arn: StreamArn }),
    cloudwatch_logs: Strict({ auth, log_group_arn: LogGroupArn }),
  };
}

const targetsIn = targets(authIn);
const targetsOut = targets(authOut);

export const EventDestinationTargetInput = exactlyOne(
  {
    firehose: Type.Optional(targetsIn.firehose),
    kinesis: Type.Optional(targetsIn.kinesis),
    cloudwatch_logs: Type.Optional(targetsIn.cloudwatch_logs),
  },
  'exactly one of firehose, kinesis or cloudwatch_logs',
);
export const EventDestinationTarget = Type.Object(
  {
    firehose: Type.Optional(targetsOut.firehose),
    kinesis: Type.Optional(targetsOut.kinesis),
    cloudwatch_logs: Type.Optional(targetsOut.cloudwatch_logs),
  },
  { additionalProperties: false },
);

export const EventDestinationCreate = Strict({
  description: Type.Optional(Description),
  metadata: Type.Optional(Metadata),
  format: Type.Optional(EventFormat),
  target: EventDestinationTargetInput,
});
export const EventDestinationUpdate = UpdateBody({
  description: Description,
  metadata: Metadata,
  format: EventFormat,
  target: EventDestinationTargetInput,
});
export const EventDestination = Type.Object({
  ...resourceBase,
  format: EventFormat,
  target: EventDestinationTarget,
});
export const EventDestinationList = listEnvelope('event_destinations', EventDestination);

export type EventDestinationTargetInput = Static<typeof EventDestinationTargetInput>;
export type EventDestinationTarget = Static<typeof EventDestinationTarget>;
export type EventDestinationCreate = Static<typeof EventDestinationCreate>;
export type EventDestinationUpdate = Static<typeof EventDestinationUpdate>;
export type EventDestination = Static<typeof EventDestination>;
