import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { errorOf, startHarness, TEST_BASE_URL, type Harness } from '../testing/harness.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(() => h.close());

const SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const ROLE = { role: { role_arn: 'arn:aws:iam::123456789012:role/events' } };
const FIREHOSE = { firehose: { delivery_stream_arn: 'arn:aws:firehose:us-east-1:123456789012:deliverystream/audit', auth: ROLE } };
const KINESIS_CREDS = {
  kinesis: {
    stream_arn: 'arn:aws:kinesis:eu-west-1:123456789012:stream/audit',
    auth: { creds: { aws_access_key_id: 'AKIAIOSFODNN7EXAMPLE', aws_secret_access_key: SECRET } },
  },
};

describe('event destinations', () => {
  it('creates with format json (the default) and the target given', async () => {
    const res = await h.call('POST', '/event_destinations', { target: FIREHOSE, description: 'audit stream' });
    expect(res.status).toBe(201);
    expect(res.body.id).toMatch(/^ed_[0-9A-Za-z]{26}$/);
    expect(res.body).toEqual({
      id: res.body.id,
      uri: `${TEST_BASE_URL}/event_destinations/${res.body.id}`,
      created_at: res.body.created_at,
      description: 'audit stream',
      format: 'json',
      target: FIREHOSE,
    });
    const logs = { cloudwatch_logs: { log_group_arn: 'arn:aws:logs:us-east-1:123456789012:log-group:events', auth: ROLE } };
    expect((await h.call('POST', '/event_destinations', { format: 'json', target: logs })).body.target).toEqual(logs);
  });

  it('never shows the AWS secret access key: responses and audit events carry null', async () => {
    const res = await h.call('POST', '/event_destinations', { target: KINESIS_CREDS });
    expect(res.body.target).toEqual({
      kinesis: {
        stream_arn: KINESIS_CREDS.kinesis.stream_arn,
        auth: { creds: { aws_access_key_id: 'AKIAIOSFODNN7EXAMPLE', aws_secret_access_key: null } },
      },
    });
    await h.call('PATCH', `/event_destinations/${res.body.id}`, { description: 'rotated' });
    const seen = [await h.call('GET', `/event_destinations/${res.body.id}`), await h.call('GET', '/event_destinations')].map((r) => JSON.stringify(r.body));
    seen.push(JSON.stringify(h.app.audit.read()));
    for (const text of seen) expect(text).not.toContain(SECRET);
    expect(h.app.audit.read().map((e) => e.event_type)).toEqual(['event_destination_created.v0', 'event_destination_updated.v0']);
  });

  it('requires exactly one target and exactly one auth', async () => {
    const bad = async (body: unknown) => errorOf(await h.call('POST', '/event_destinations', body));
    expect(await bad({ target: { ...FIREHOSE, ...KINESIS_CREDS } })).toMatchObject({ code: 'invalid_value', field: 'target' });
    expect(await bad({ target: {} })).toMatchObject({ code: 'invalid_value', field: 'target' });
    expect(await bad({})).toMatchObject({ code: 'missing_field', field: 'target' });
    const bothAuth = { firehose: { ...FIREHOSE.firehose, auth: { ...ROLE, ...KINESIS_CREDS.kinesis.auth } } };
    expect(await bad({ target: bothAuth })).toMatchObject({ code: 'invalid_value', field: 'target.firehose.auth' });
    expect(await bad({ target: { firehose: { delivery_stream_arn: FIREHOSE.firehose.delivery_stream_arn } } })).toMatchObject({
      code: 'missing_field',
      field: 'target.firehose.auth',
    });
    expect(await bad({ target: { kinesis: { stream_arn: 'not-an-arn', auth: ROLE } } })).toMatchObject({
      code: 'invalid_value',
      field: 'target.kinesis.stream_arn',
    });
    expect(await bad({ format: 'xml', target: FIREHOSE })).toMatchObject({ code: 'invalid_value', field: 'format' });
  });

  it('PATCH replaces the target whole; DELETE removes', async () => {
    const { body: created } = await h.call('POST', '/event_destinations', { target: FIREHOSE });
    const patched = await h.call('PATCH', `/event_destinations/${created.id}`, { target: KINESIS_CREDS });
    expect(Object.keys(patched.body.target)).toEqual(['kinesis']);
    expect((await h.call('DELETE', `/event_destinations/${created.id}`)).status).toBe(204);
    expect(errorOf(await h.call('GET', `/event_destinations/${created.id}`)).code).toBe('not_found');
  });
});

describe('datadog and azure_logs_ingestion targets', () => {
  const DATADOG = { datadog: { api_key: 'dd-api-key-0123456789abcdef', ddtags: 'env:prod,team:edge', service: 'gatehouse', ddsite: 'datadoghq.eu' } };
  const AZURE = {
    azure_logs_ingestion: {
      tenant_id: '72f988bf-86f1-41af-91ab-2d7cd011db47',
      client_id: '00000000-0000-0000-0000-000000000001',
      client_secret: 'azure-client-secret-value',
      logs_ingestion_uri: 'https://dce-1.westeurope-1.ingest.monitor.azure.com',
      data_collection_rule_id: 'dcr-0123456789abcdef0123456789abcdef',
      data_collection_stream_name: 'Custom-NgrokEvents_CL',
    },
  };

  it('creates, shows every field but the secret (null), and records the audit event without it', async () => {
    const dd = await h.call('POST', '/event_destinations', { target: DATADOG });
    expect(dd.status).toBe(201);
    expect(dd.body.target).toEqual({ datadog: { ...DATADOG.datadog, api_key: null } });
    const minimal = await h.call('POST', '/event_destinations', { target: { datadog: { api_key: 'k' } } });
    expect(minimal.body.target).toEqual({ datadog: { api_key: null } });

    const az = await h.call('POST', '/event_destinations', { target: AZURE });
    expect(az.status).toBe(201);
    expect(az.body.target).toEqual({ azure_logs_ingestion: { ...AZURE.azure_logs_ingestion, client_secret: null } });
    expect((await h.call('GET', `/event_destinations/${az.body.id}`)).body).toEqual(az.body);
    const everything = JSON.stringify([(await h.call('GET', '/event_destinations')).body, h.app.audit.read()]);
    expect(everything).not.toContain('dd-api-key');
    expect(everything).not.toContain('azure-client-secret-value');
  });

  it('refuses a missing secret or a malformed azure field, naming it', async () => {
    expect(errorOf(await h.call('POST', '/event_destinations', { target: { datadog: { ddtags: 'x' } } }))).toMatchObject({
      code: 'missing_field',
      field: 'target.datadog.api_key',
    });
    const badRule = { azure_logs_ingestion: { ...AZURE.azure_logs_ingestion, data_collection_rule_id: 'rule-1' } };
    expect(errorOf(await h.call('POST', '/event_destinations', { target: badRule }))).toMatchObject({
      code: 'invalid_value',
      field: 'target.azure_logs_ingestion.data_collection_rule_id',
    });
    const both = { ...DATADOG, ...AZURE };
    expect((await h.call('POST', '/event_destinations', { target: both })).status).toBe(400);
  });

  it('PATCH replaces the target whole, from one type to another', async () => {
    const created = (await h.call('POST', '/event_destinations', { target: DATADOG })).body;
    const patched = await h.call('PATCH', `/event_destinations/${created.id}`, { target: AZURE });
    expect(patched.body.target).toEqual({ azure_logs_ingestion: { ...AZURE.azure_logs_ingestion, client_secret: null } });
  });
});
