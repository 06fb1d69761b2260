/**
 * The EventDestination manifest: where subscriptions' events go (api-spec 6). The spec is the
 * API's create body: `format` (json) and `target`, exactly one of firehose, kinesis or
 * cloudwatch_logs with `auth.role.role_arn` or `auth.creds`. `aws_secret_access_key` is a
 * secret: write it as `${env:NAME}`. The server never returns it: it is written on create and
 * on every update of the destination, and the ownership marker keeps a salted digest of it, so
 * a rotated value is a change that plan shows and apply sends. `secret_version` (gatehouse's,
 * not the API's) sends the secrets again when it changes, for when the digest could not be kept.
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
  secret_version: Type.Optional(
    Type.Integer({
      minimum: 0,
      description:
        "gatehouse's, not sent to the API: change it (1, 2, ...) to send the write-only secrets again, for when their digest cannot be kept in the metadata",
    }),
  ),
});
export const EventDestinationManifest = ManifestDocument(
  'EventDestination',
  EventDestinationSpec,
  'an event destination: a firehose, kinesis or cloudwatch_logs target',
);
