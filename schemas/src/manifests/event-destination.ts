/**
 * The EventDestination manifest: where subscriptions' events go (api-spec 6). The spec is the
 * API's create body: `format` (json) and `target`, exactly one of firehose, kinesis or
 * cloudwatch_logs with `auth.role.role_arn` or `auth.creds`. `aws_secret_access_key` is a
 * secret: write it as `${env:NAME}`. The server never returns it, so gatehouse cannot see it
 * change: it is written on create and on every update of the destination (the engine's
 * EventDestination descriptor states the rule; examples/basic/README.md explains rotation).
 */
import { Type } from '@sinclair/typebox';
import { Description, Metadata, Strict } from '../common.js';
import { EventDestinationTargetInput, EventFormat } from '../api/event-destinations.js';
import { ManifestDocument } from './common.js';

export const EventDestinationSpec = Strict({
  description: Type.Optional(Description),
  metadata: Type.Optional(Metadata),
  format: Type.Optional(EventFormat),
  target: EventDestinationTargetInput,
});
export const EventDestinationManifest = ManifestDocument(
  'EventDestination',
  EventDestinationSpec,
  'an event destination: a firehose, kinesis or cloudwatch_logs target',
);
