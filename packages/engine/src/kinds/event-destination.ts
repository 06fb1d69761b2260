/**
 * Event destinations (`/event_destinations`; api-spec 6): a JSON target, exactly one of
 * firehose, kinesis or cloudwatch_logs (authenticated by an IAM role or a static access key),
 * datadog (`api_key`) or azure_logs_ingestion (an application's `client_secret`).
 *
 * The write-only rule: `aws_secret_access_key`, `api_key` and `client_secret` are write-only
 * (the server returns null),
 * so its normal form is `WRITE_ONLY` on both sides with the manifest's value kept aside (see
 * write-only.ts): never compared, never drift, masked everywhere, exported as a placeholder. It is written on create and on every update of the destination (each
 * PATCH sends the whole target with the manifest's key), which is also how a rotated key
 * reaches the server: a rotation alone is invisible to plan, so rotate it together with a
 * visible change (the description, say) or re-create the destination.
 */
import type { ApiObject } from '../ports.js';
import { collectionCalls, commonBody, commonFields } from './shared.js';
import type { KindDescriptor, Spec } from './types.js';
import { keepSecret, secretOf } from './write-only.js';

/** The field holding each target type's ARN. */
const ARN_FIELDS: Readonly<Record<string, string>> = {
  firehose: 'delivery_stream_arn',
  kinesis: 'stream_arn',
  cloudwatch_logs: 'log_group_arn',
};

const SECRET = 'aws_secret_access_key';

/** The write-only secret of the targets that are not AWS ones, and their other fields. */
const KEYED_TARGETS: Readonly<Record<string, { secret: string; fields: readonly string[] }>> = {
  datadog: { secret: 'api_key', fields: ['ddtags', 'service', 'ddsite'] },
  azure_logs_ingestion: {
    secret: 'client_secret',
    fields: ['tenant_id', 'client_id', 'logs_ingestion_uri', 'data_collection_rule_id', 'data_collection_stream_name'],
  },
};

/** Manifest or live `target` -> normal form; the secret field is WRITE_ONLY on both sides. */
function targetNormal(target: unknown): Spec {
  const out: Spec = {};
  for (const [type, value] of Object.entries((target ?? {}) as Record<string, Spec>)) {
    const keyed = KEYED_TARGETS[type];
    if (keyed) {
      const fields = Object.fromEntries(keyed.fields.filter((f) => value[f] !== undefined && value[f] !== null).map((f) => [f, value[f]]));
      out[type] = keepSecret(fields, keyed.secret, value[keyed.secret]);
      continue;
    }
    const auth = (value.auth ?? {}) as { role?: Spec | null; creds?: Spec | null };
    const arn = ARN_FIELDS[type] ?? '';
    out[type] = {
      [arn]: value[arn],
      auth: auth.role
        ? { role: { role_arn: auth.role.role_arn } }
        : { creds: keepSecret({ aws_access_key_id: auth.creds?.aws_access_key_id }, SECRET, auth.creds?.[SECRET]) },
    };
  }
  return out;
}

/** The request form of a normal target: the secret revealed for the request body only. */
function targetBody(target: Spec): ApiObject {
  const body: ApiObject = {};
  for (const [type, value] of Object.entries(target as Record<string, Spec>)) {
    const keyed = KEYED_TARGETS[type];
    if (keyed) {
      const fields = Object.fromEntries(keyed.fields.filter((f) => value[f] !== undefined).map((f) => [f, value[f]]));
      body[type] = { ...fields, [keyed.secret]: secretOf(value, keyed.secret, `${type}.${keyed.secret}`) };
      continue;
    }
    const auth = value.auth as { role?: Spec; creds?: Spec };
    const arn = ARN_FIELDS[type] ?? '';
    body[type] = {
      [arn]: value[arn],
      auth: auth.role
        ? { role: { role_arn: auth.role.role_arn } }
        : { creds: { aws_access_key_id: auth.creds!.aws_access_key_id, [SECRET]: secretOf(auth.creds!, SECRET, `${type}.auth.creds.${SECRET}`) } },
    };
  }
  return body;
}

export const eventDestination: KindDescriptor = {
  kind: 'EventDestination',
  policyName: 'destination',
  title: 'event destination',
  manifestKind: 'EventDestination',
  observe: { lists: [{ path: '/event_destinations', listKey: 'event_destinations' }] },
  metadata: true,
  fromManifest: (spec) => ({ ...commonFields(spec), format: spec.format ?? 'json', target: targetNormal(spec.target) }),
  fromLive: (live) => ({ ...commonFields(live), format: live.format ?? 'json', target: targetNormal(live.target) }),
  refs: [],
  sensitive: [['target', '*', 'auth', 'creds', SECRET], ...Object.entries(KEYED_TARGETS).map(([type, t]) => ['target', type, t.secret])],
  immutable: [],
  label: (normal, name) => name ?? String(normal.description ?? Object.keys(normal.target as Spec)[0] ?? 'event destination'),
  calls: collectionCalls(
    '/event_destinations',
    (normal, ctx) => ({ ...commonBody(normal, ctx), format: normal.format, target: targetBody(normal.target as Spec) }),
    // The whole target on every update: the write-only key is written whenever the destination is.
    (after, changed, ctx) => ({
      ...commonBody(after, ctx, changed),
      ...(changed.includes('format') ? { format: after.format } : {}),
      target: targetBody(after.target as Spec),
    }),
  ),
};
