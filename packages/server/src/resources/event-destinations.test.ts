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
    const seen = [
      await h.call('GET', `/event_destinations/${res.body.id}`),
      await h.call('GET', '/event_destinations'),
    ].map((r) => JSON.stringify(r.body));
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
