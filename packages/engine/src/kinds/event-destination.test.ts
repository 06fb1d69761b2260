/**
 * The EventDestination descriptor and its write-only secret: never compared, never shown,
 * written on create and on every update.
 */
import { describe, expect, test } from 'vitest';
import { SENSITIVE } from '../identity/mask.js';
import { canonicalJson } from '../identity/canonical-json.js';
import { fieldChanges } from '../plan/diff.js';
import { mask } from '../identity/mask.js';
import { descriptor } from './index.js';

const d = descriptor('EventDestination');
const SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const STREAM = 'arn:aws:kinesis:us-east-1:123456789012:stream/audit';
const manifest = {
  description: 'audit stream',
  target: { kinesis: { stream_arn: STREAM, auth: { creds: { aws_access_key_id: 'AKIAEXAMPLE', aws_secret_access_key: SECRET } } } },
};
const live = {
  id: 'ed_1',
  uri: 'x',
  created_at: '2026-11-23T00:00:00Z',
  description: 'audit stream',
  metadata: '',
  format: 'json',
  target: { kinesis: { stream_arn: STREAM, auth: { creds: { aws_access_key_id: 'AKIAEXAMPLE', aws_secret_access_key: null } } } },
};
const ctx = { resolve: (t: string) => t, metadata: 'MARK' };

describe('EventDestination', () => {
  test('the live object (secret null) and the manifest (secret set) have equal content: no change, no drift', () => {
    const desired = d.fromManifest(manifest, 'audit-stream');
    expect(canonicalJson(d.fromLive(live, undefined))).toBe(canonicalJson(desired));
    // format defaults to json, as the server fills it in.
    expect(desired.format).toBe('json');
  });

  test('the secret never appears in a JSON form, and masking shows it as sensitive', () => {
    const desired = d.fromManifest(manifest, 'audit-stream');
    expect(JSON.stringify(desired)).not.toContain(SECRET);
    expect(String((desired.target as { kinesis: { auth: { creds: Record<string, unknown> } } }).kinesis.auth.creds.aws_secret_access_key)).not.toContain(
      SECRET,
    );
    const [, masked] = mask(d.sensitive, null, desired);
    expect(masked).toMatchObject({ target: { kinesis: { auth: { creds: { aws_secret_access_key: SENSITIVE } } } } });
  });

  test('beside a real change, the secret is shown as unchanged (sensitive), not as changed', () => {
    const before = d.fromLive(live, undefined);
    const after = d.fromManifest({ ...manifest, description: 'audit' }, 'audit-stream');
    const [b, a] = mask(d.sensitive, before, after);
    expect(fieldChanges(b!, a!, d.sensitive).fields).toEqual([{ path: 'description', before: 'audit stream', after: 'audit', sensitive: false }]);
  });

  test('create sends the secret; every update sends the whole target with it', () => {
    const normal = d.fromManifest(manifest, 'audit-stream');
    const [create] = d.calls.create(normal, ctx);
    expect(create).toEqual({
      method: 'POST',
      path: '/event_destinations',
      body: { description: 'audit stream', metadata: 'MARK', format: 'json', target: manifest.target },
    });
    const after = d.fromManifest({ ...manifest, description: 'audit' }, 'audit-stream');
    expect(d.calls.update(normal, after, ['description'], { ...ctx, id: 'ed_1' })).toEqual([
      { method: 'PATCH', path: '/event_destinations/ed_1', body: { description: 'audit', metadata: 'MARK', target: manifest.target } },
    ]);
  });

  test('a role target has no secret; the live side cannot be written back', () => {
    const role = {
      firehose: {
        delivery_stream_arn: 'arn:aws:firehose:us-east-1:123456789012:deliverystream/x',
        auth: { role: { role_arn: 'arn:aws:iam::123456789012:role/events' } },
      },
    };
    const normal = d.fromManifest({ target: role }, 'r');
    expect(d.calls.create(normal, ctx)[0]!.body).toMatchObject({ target: role });
    expect(canonicalJson(d.fromLive({ format: 'json', target: role }, undefined))).toBe(canonicalJson(normal));
    // A live creds target knows no secret: building a request from it fails loudly.
    expect(() => d.calls.create(d.fromLive(live, undefined), ctx)).toThrow(/write-only/);
  });

  test('switching the target type is a change of target', () => {
    const other = d.fromManifest(
      { target: { cloudwatch_logs: { log_group_arn: 'arn:aws:logs:us-east-1:123456789012:log-group:x', auth: manifest.target.kinesis.auth } } },
      'a',
    );
    expect(canonicalJson(other.target)).not.toBe(canonicalJson(d.fromLive(live, undefined).target));
  });
});

describe('EventDestination: datadog and azure_logs_ingestion', () => {
  const datadog = { target: { datadog: { api_key: 'dd-key-123', ddtags: 'env:prod' } } };
  const azure = {
    target: {
      azure_logs_ingestion: {
        tenant_id: '72f988bf-86f1-41af-91ab-2d7cd011db47',
        client_id: '00000000-0000-0000-0000-000000000001',
        client_secret: 'azure-secret-456',
        logs_ingestion_uri: 'https://dce-1.westeurope-1.ingest.monitor.azure.com',
        data_collection_rule_id: 'dcr-0123456789abcdef0123456789abcdef',
        data_collection_stream_name: 'Custom-Events_CL',
      },
    },
  };
  const liveOf = (target: Record<string, Record<string, unknown>>, secret: string) => {
    const [[type, fields]] = Object.entries(target) as [[string, Record<string, unknown>]];
    return { ...live, description: undefined, target: { [type]: { ...fields, [secret]: null } } };
  };

  test('the live object (secret null) equals the manifest; the secret is written, masked, never serialized', () => {
    for (const [manifestSpec, secret, value] of [
      [datadog, 'api_key', 'dd-key-123'],
      [azure, 'client_secret', 'azure-secret-456'],
    ] as const) {
      const desired = d.fromManifest(manifestSpec, 'dest');
      expect(canonicalJson(d.fromLive(liveOf(manifestSpec.target, secret), undefined))).toBe(canonicalJson(desired));
      expect(JSON.stringify(desired)).not.toContain(value);
      const [, masked] = mask(d.sensitive, null, desired);
      expect(JSON.stringify(masked)).toContain(SENSITIVE);
      const [create] = d.calls.create(desired, ctx);
      expect(JSON.stringify(create!.body)).toContain(value);
      const [update] = d.calls.update(desired, desired, ['description'], { ...ctx, id: 'ed_1' });
      expect(JSON.stringify(update!.body)).toContain(value);
    }
  });

  test('a changed visible field is a change; the optional datadog fields left out match their absence', () => {
    const before = d.fromLive(liveOf({ datadog: { ddtags: 'env:prod' } }, 'api_key'), undefined);
    const after = d.fromManifest({ target: { datadog: { api_key: 'k', ddtags: 'env:dev' } } }, 'dest');
    const [b, a] = mask(d.sensitive, before, after);
    expect(fieldChanges(b!, a!, d.sensitive).fields.map((f) => f.path)).toEqual(['target.datadog.ddtags']);
  });
});
