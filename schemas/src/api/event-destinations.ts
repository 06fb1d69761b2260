/**
 * Event destinations (api-spec 6 and the event_destination_* payload of 6.3): where a
 * subscription's events go. `format` is `json`, the only accepted value; `target` is exactly
 * one of firehose, kinesis or cloudwatch_logs, each authenticated by exactly one of an IAM
 * role to assume or a static access key, or one of the two targets the service's API also
 * documents: datadog (`api_key`, optional `ddtags`, `service`, `ddsite`) and
 * azure_logs_ingestion (`tenant_id`, `client_id`, `client_secret`, `logs_ingestion_uri`,
 * `data_collection_rule_id`, `data_collection_stream_name`).
 *
 * The secrets (`aws_secret_access_key`, datadog's `api_key`, azure's `client_secret`) are
 * write-only: requests send them, responses and audit events carry `null` in their place, so
 * they never appear in output, logs or exported manifests. `WRITE_ONLY_TARGET_FIELDS` names
 * them, for the server (which nulls them) and the engine (which never compares them).
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Description, Metadata, Strict, StringEnum, listEnvelope, resourceBase, UpdateBody } from '../common.js';

export const EventFormat = StringEnum(['json'], { description: 'event encoding; json is the only accepted value' });

const arn = (pattern: string, example: string) => Type.String({ minLength: 1, maxLength: 2048, pattern, description: `AWS ARN, e.g. ${example}` });

export const RoleArn = arn('^arn:[a-z-]+:iam::[0-9]{12}:role/.+$', 'arn:aws:iam::123456789012:role/events');
export const DeliveryStreamArn = arn(
  '^arn:[a-z-]+:firehose:[a-z0-9-]+:[0-9]{12}:deliverystream/.+$',
  'arn:aws:firehose:us-east-1:123456789012:deliverystream/events',
);
export const StreamArn = arn('^arn:[a-z-]+:kinesis:[a-z0-9-]+:[0-9]{12}:stream/.+$', 'arn:aws:kinesis:us-east-1:123456789012:stream/events');
export const LogGroupArn = arn('^arn:[a-z-]+:logs:[a-z0-9-]+:[0-9]{12}:log-group:.+$', 'arn:aws:logs:us-east-1:123456789012:log-group:events');

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
const authOut = Type.Object({ role: Type.Optional(AwsRole), creds: Type.Optional(AwsCredsOut) }, { additionalProperties: false });

/** A write-only secret: a non-empty string in requests, `null` in responses. */
const secretIn = (description: string) => Type.String({ minLength: 1, maxLength: 1024, description: `${description}; write-only, never returned` });
const SecretOut = Type.Null();

const text = (description: string, maxLength = 1024) => Type.String({ minLength: 1, maxLength, description });
const Uuid = (description: string) => Type.String({ pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$', description });

/** The datadog target's optional fields, as given (and returned). */
const datadogFields = {
  ddtags: Type.Optional(Type.String({ maxLength: 1024, description: 'tags sent with each event, e.g. env:prod,team:edge' })),
  service: Type.Optional(Type.String({ maxLength: 255, description: 'service name sent with each event' })),
  ddsite: Type.Optional(Type.String({ maxLength: 255, description: 'Datadog site to send events to, e.g. datadoghq.com or datadoghq.eu' })),
};
const azureFields = {
  tenant_id: Uuid('Microsoft Entra (Azure AD) tenant id'),
  client_id: Uuid('application (client) id'),
  logs_ingestion_uri: Type.String({
    minLength: 1,
    maxLength: 2048,
    pattern: '^https://[^\\s/]+',
    description: "the data collection endpoint's logs ingestion URI, e.g. https://dce-1.westeurope-1.ingest.monitor.azure.com",
  }),
  data_collection_rule_id: Type.String({ pattern: '^dcr-[0-9a-fA-F]{32}$', description: 'immutable id of the data collection rule, dcr-<32 hex>' }),
  data_collection_stream_name: text('stream of the data collection rule to send to, e.g. Custom-NgrokEvents_CL', 255),
};

function targets<A extends TSchema, S extends TSchema>(auth: A, secret: (description: string) => S) {
  return {
    firehose: Strict({ auth, delivery_stream_arn: DeliveryStreamArn }),
    kinesis: Strict({ auth, stream_arn: StreamArn }),
    cloudwatch_logs: Strict({ auth, log_group_arn: LogGroupArn }),
    datadog: Strict({ api_key: secret('Datadog API key'), ...datadogFields }),
    azure_logs_ingestion: Strict({ ...azureFields, client_secret: secret("the application's client secret") }),
  };
}

const targetsIn = targets(authIn, secretIn);
const targetsOut = targets(authOut, () => SecretOut);

/** The target types, in the order the service documents them. */
export const EVENT_TARGET_TYPES = ['firehose', 'kinesis', 'cloudwatch_logs', 'datadog', 'azure_logs_ingestion'] as const;
export type EventTargetType = (typeof EVENT_TARGET_TYPES)[number];

/**
 * The write-only field of each target type (path below the target type): sent, never returned.
 * For the AWS targets it is inside `auth.creds`, present only with a static access key.
 */
export const WRITE_ONLY_TARGET_FIELDS: Readonly<Record<EventTargetType, readonly string[]>> = {
  firehose: ['auth', 'creds', 'aws_secret_access_key'],
  kinesis: ['auth', 'creds', 'aws_secret_access_key'],
  cloudwatch_logs: ['auth', 'creds', 'aws_secret_access_key'],
  datadog: ['api_key'],
  azure_logs_ingestion: ['client_secret'],
};

export const EventDestinationTargetInput = exactlyOne(
  {
    firehose: Type.Optional(targetsIn.firehose),
    kinesis: Type.Optional(targetsIn.kinesis),
    cloudwatch_logs: Type.Optional(targetsIn.cloudwatch_logs),
    datadog: Type.Optional(targetsIn.datadog),
    azure_logs_ingestion: Type.Optional(targetsIn.azure_logs_ingestion),
  },
  'exactly one of firehose, kinesis, cloudwatch_logs, datadog or azure_logs_ingestion',
);
export const EventDestinationTarget = Type.Object(
  {
    firehose: Type.Optional(targetsOut.firehose),
    kinesis: Type.Optional(targetsOut.kinesis),
    cloudwatch_logs: Type.Optional(targetsOut.cloudwatch_logs),
    datadog: Type.Optional(targetsOut.datadog),
    azure_logs_ingestion: Type.Optional(targetsOut.azure_logs_ingestion),
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
