import { EVENT_TYPES } from '@gatehouse/schemas';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { errorOf, startHarness, TEST_BASE_URL, type Harness } from '../testing/harness.js';

let h: Harness;
let destinationId: string;
beforeEach(async () => {
  h = await startHarness();
  const destination = await h.call('POST', '/event_destinations', {
    target: {
      kinesis: { stream_arn: 'arn:aws:kinesis:us-east-1:123456789012:stream/audit', auth: { role: { role_arn: 'arn:aws:iam::123456789012:role/events' } } },
    },
  });
  destinationId = destination.body.id;
});
afterEach(() => h.close());

/**
 * api-spec 6.1 to 6.3 and the vault and secret triples the service documents beside them,
 * typed out here so that a name missing from the catalogue fails.
 */
const TRIPLES = [
  'api_key',
  'certificate_authority',
  'domain',
  'event_destination',
  'event_subscription',
  'ip_policy',
  'ip_policy_rule',
  'ip_restriction',
  'secret',
  'ssh_certificate_authority',
  'ssh_host_certificate',
  'ssh_public_key',
  'ssh_user_certificate',
  'tcp_address',
  'tls_certificate',
  'tunnel_credential',
  'vault',
];
const SPEC_EVENT_NAMES = [
  'agent_session_start.v0',
  'agent_session_stop.v0',
  ...TRIPLES.flatMap((r) => [`${r}_created.v0`, `${r}_deleted.v0`, `${r}_updated.v0`]),
  'http_request_complete.v0',
  'tcp_connection_closed.v0',
];

const subscribe = (sources: unknown[], extra: Record<string, unknown> = {}) =>
  h.call('POST', '/event_subscriptions', { sources, destination_ids: [destinationId], ...extra });

describe('event subscriptions', () => {
  it('knows exactly the event names of api-spec part 6 and the documented vault and secret events', () => {
    expect(SPEC_EVENT_NAMES).toHaveLength(55);
    expect([...EVENT_TYPES].sort()).toEqual([...SPEC_EVENT_NAMES].sort());
  });

  it('accepts every part 6 event name, one source each', async () => {
    const res = await subscribe(SPEC_EVENT_NAMES.map((type) => ({ type })));
    expect(res.status).toBe(201);
    expect(res.body.sources.map((s: { type: string }) => s.type)).toEqual(SPEC_EVENT_NAMES);
    for (const type of SPEC_EVENT_NAMES) {
      expect((await subscribe([{ type }])).status, type).toBe(201);
    }
  });

  it('creates with the shape of api-spec 6: sources with uris, destinations as Refs', async () => {
    const res = await subscribe(
      [
        { type: 'ip_policy_updated.v0' },
        { type: 'http_request_complete.v0', fields: ['conn.client_ip', 'http.response.status_code'], filter: 'conn.server_port == 443' },
      ],
      { description: 'audit', metadata: '{"a":1}' },
    );
    expect(res.status).toBe(201);
    const uri = `${TEST_BASE_URL}/event_subscriptions/${res.body.id}`;
    expect(res.body.id).toMatch(/^esb_[0-9A-Za-z]{26}$/);
    expect(res.body).toEqual({
      id: res.body.id,
      uri,
      created_at: res.body.created_at,
      description: 'audit',
      metadata: '{"a":1}',
      sources: [
        { type: 'ip_policy_updated.v0', uri: `${uri}/sources/ip_policy_updated.v0` },
        {
          type: 'http_request_complete.v0',
          uri: `${uri}/sources/http_request_complete.v0`,
          fields: ['conn.client_ip', 'http.response.status_code'],
          filter: 'conn.server_port == 443',
        },
      ],
      destinations: [{ id: destinationId, uri: `${TEST_BASE_URL}/event_destinations/${destinationId}` }],
    });
    expect((await h.call('GET', `/event_subscriptions/${res.body.id}`)).body).toEqual(res.body);
    expect((await h.call('GET', '/event_subscriptions')).body.event_subscriptions).toEqual([res.body]);
  });

  it('rejects unknown event types, with a hint for a missing version suffix', async () => {
    expect(errorOf(await subscribe([{ type: 'ip_policy_created' }]))).toEqual({
      code: 'invalid_event_source',
      field: 'sources[0].type',
      msg: "sources[0].type: 'ip_policy_created' is not a known event type (did you mean 'ip_policy_created.v0'?).",
    });
    for (const type of ['bot_user_created.v0', 'http_request_complete.v1', 'IP_POLICY_CREATED.V0']) {
      expect(errorOf(await subscribe([{ type: 'ip_policy_deleted.v0' }, { type }]))).toMatchObject({
        code: 'invalid_event_source',
        field: 'sources[1].type',
        msg: `sources[1].type: '${type}' is not a known event type.`,
      });
    }
    expect(errorOf(await subscribe([{ type: 'ip_policy_deleted.v0' }, { type: 'ip_policy_deleted.v0' }])).msg).toBe(
      "sources[1].type: event type 'ip_policy_deleted.v0' appears in more than one source.",
    );
  });

  it('rejects fields that the event type does not have, and fields or filters on audit events', async () => {
    expect(errorOf(await subscribe([{ type: 'http_request_complete.v0', fields: ['conn.client_ip', 'conn.bytes_in'] }]))).toEqual({
      code: 'invalid_event_source',
      field: 'sources[0].fields[1]',
      msg: "sources[0].fields[1]: 'conn.bytes_in' is not a field of http_request_complete.v0.",
    });
    expect((await subscribe([{ type: 'tcp_connection_closed.v0', fields: ['conn.bytes_in', 'conn.end_ts'] }])).status).toBe(201);
    expect(errorOf(await subscribe([{ type: 'ip_policy_created.v0', fields: ['id'] }]))).toMatchObject({
      field: 'sources[0].fields',
      msg: "sources[0].fields: fields are only accepted for traffic events, not for 'ip_policy_created.v0'.",
    });
    expect(errorOf(await subscribe([{ type: 'ip_policy_created.v0', filter: 'true' }]))).toMatchObject({
      field: 'sources[0].filter',
    });
  });

  it('accepts CEL filters over filterable fields, macros and methods included', async () => {
    for (const filter of [
      'conn.server_port == 443 && conn.server_name.endsWith(".example.com")',
      '["10.0.0.1", "10.0.0.2"].exists(ip, ip == conn.client_ip)',
      'has(conn.server_ip) || !(conn.client_ip in ["1.2.3.4"])',
    ]) {
      expect((await subscribe([{ type: 'tcp_connection_closed.v0', filter }])).status, filter).toBe(201);
    }
  });

  it('rejects filters on non-filterable or unknown fields, naming the field and its column', async () => {
    const filterError = async (type: string, filter: string) => errorOf(await subscribe([{ type, filter }]));
    expect(await filterError('http_request_complete.v0', 'conn.server_port == 443 && http.request.user_agent == "x"')).toMatchObject({
      code: 'invalid_event_source',
      field: 'sources[0].filter',
      msg: expect.stringMatching(
        /^sources\[0\]\.filter: field 'http\.request\.user_agent' \(column 28\) is not filterable; filterable fields: ev\.conn\.client_ip, ev\.conn\.server_ip, ev\.conn\.server_name, ev\.conn\.server_port, ev\.http\.request\.method\.$/,
      ),
    });
    expect((await filterError('http_request_complete.v0', 'http.request.headers["Host"] == ["a"]')).msg).toContain(
      "field 'http.request.headers' (column 1) is not filterable",
    );
    expect((await filterError('tcp_connection_closed.v0', 'conn.bytes_in > 100')).msg).toContain("field 'conn.bytes_in' (column 1) is not filterable");
    expect((await filterError('tcp_connection_closed.v0', 'request.path == "/"')).msg).toContain("'request.path' (column 1) is not a field of this event type");
    expect((await filterError('tcp_connection_closed.v0', 'conn == 1')).msg).toContain("'conn' (column 1) is not a field");
    expect((await filterError('tcp_connection_closed.v0', 'conn.client_ip')).msg).toBe(
      'sources[0].filter: must be a condition (a comparison, a logical combination, has(...) or a method such as endsWith), not a value.',
    );
    // A name bound by a macro is local, not a field.
    expect((await subscribe([{ type: 'tcp_connection_closed.v0', filter: '[1, 2].all(conn, conn > 0)' }])).status).toBe(201);
  });

  it('rejects filters that are not CEL, with the position', async () => {
    const res = errorOf(await subscribe([{ type: 'http_request_complete.v0', filter: 'conn.client_ip == "1.2.3.4" &&' }]));
    expect(res).toMatchObject({ code: 'invalid_event_source', field: 'sources[0].filter' });
    expect(res.msg).toMatch(/^sources\[0\]\.filter: not valid CEL at column \d+: .+/);
  });

  it('requires destinations that exist, and PATCH replaces sources and destinations whole', async () => {
    expect(errorOf(await h.call('POST', '/event_subscriptions', { sources: [{ type: 'ip_policy_created.v0' }], destination_ids: ['ed_missing'] }))).toEqual({
      code: 'invalid_reference',
      field: 'destination_ids[0]',
      msg: "destination_ids[0]: Event destination 'ed_missing' does not exist.",
    });
    const { body: sub } = await subscribe([{ type: 'ip_policy_created.v0' }, { type: 'ip_policy_deleted.v0' }]);
    const patched = await h.call('PATCH', `/event_subscriptions/${sub.id}`, { sources: [{ type: 'ip_restriction_created.v0' }], destination_ids: [] });
    expect(patched.body).toMatchObject({ sources: [{ type: 'ip_restriction_created.v0' }], destinations: [] });
    expect(errorOf(await h.call('PATCH', `/event_subscriptions/${sub.id}`, { sources: [{ type: 'nope.v0' }] })).code).toBe('invalid_event_source');
    const unchanged = await h.call('PATCH', `/event_subscriptions/${sub.id}`, {});
    expect([unchanged.status, unchanged.body]).toEqual([200, patched.body]);
    expect(errorOf(await h.call('PATCH', `/event_subscriptions/${sub.id}`, { sources: [] })).code).toBe('invalid_value');
  });

  it('limits description and metadata in characters, not bytes', async () => {
    const ok = await subscribe([{ type: 'ip_policy_created.v0' }], { description: 'é'.repeat(255), metadata: 'ü'.repeat(4096) });
    expect(ok.status).toBe(201);
    expect(errorOf(await subscribe([{ type: 'ip_policy_created.v0' }], { description: 'a'.repeat(256) }))).toMatchObject({
      code: 'invalid_value',
      field: 'description',
    });
  });

  it('records event_subscription_* audit events', async () => {
    const { body: sub } = await subscribe([{ type: 'ip_policy_created.v0' }]);
    await h.call('PATCH', `/event_subscriptions/${sub.id}`, { description: 'd' });
    await h.call('DELETE', `/event_subscriptions/${sub.id}`);
    const types = h.app.audit
      .read()
      .map((e) => e.event_type)
      .filter((t) => t.startsWith('event_subscription'));
    expect(types).toEqual(['event_subscription_created.v0', 'event_subscription_updated.v0', 'event_subscription_deleted.v0']);
  });
});

describe('event subscription sources (/event_subscriptions/{id}/sources)', () => {
  it('lists, adds, reads, updates and deletes sources, checked as the subscription checks them', async () => {
    const created = (await subscribe([{ type: 'ip_policy_created.v0' }])).body;
    const base = `/event_subscriptions/${created.id}/sources`;
    const uri = `${TEST_BASE_URL}/event_subscriptions/${created.id}`;

    const listed = await h.call('GET', base);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({ sources: created.sources, uri: `${uri}/sources` });

    const added = await h.call('POST', base, { type: 'http_request_complete.v0', filter: "ev.http.request.method == 'POST'" });
    expect(added.status).toBe(201);
    const source = { type: 'http_request_complete.v0', uri: `${uri}/sources/http_request_complete.v0`, filter: "ev.http.request.method == 'POST'" };
    expect(added.body).toEqual(source);
    expect((await h.call('GET', `${base}/http_request_complete.v0`)).body).toEqual(source);
    expect((await h.call('GET', `/event_subscriptions/${created.id}`)).body.sources).toEqual([...created.sources, source]);

    // the same checks as the subscription's own body
    expect(errorOf(await h.call('POST', base, { type: 'ip_policy_created.v0' })).code).toBe('invalid_event_source');
    expect(errorOf(await h.call('POST', base, { type: 'nope.v0' })).code).toBe('invalid_event_source');
    expect(errorOf(await h.call('PATCH', `${base}/http_request_complete.v0`, { filter: 'ev.tls.version == "1.3"' })).code).toBe('invalid_event_source');
    // The service's own documentation sends `{}` here: 200, the source as it is, no event.
    const events = h.app.audit.read().length;
    const same = await h.call('PATCH', `${base}/http_request_complete.v0`, {});
    expect([same.status, same.body]).toEqual([200, (await h.call('GET', `${base}/http_request_complete.v0`)).body]);
    expect(h.app.audit.read()).toHaveLength(events);
    expect(errorOf(await h.call('GET', `${base}/tcp_connection_closed.v0`)).code).toBe('not_found');

    const patched = await h.call('PATCH', `${base}/http_request_complete.v0`, { fields: ['conn.client_ip'] });
    expect(patched.body).toEqual({ ...source, fields: ['conn.client_ip'] });

    expect((await h.call('DELETE', `${base}/http_request_complete.v0`)).status).toBe(204);
    expect((await h.call('GET', base)).body.sources).toEqual(created.sources);
    const last = await h.call('DELETE', `${base}/ip_policy_created.v0`);
    expect(errorOf(last)).toMatchObject({ code: 'invalid_value', field: 'sources' });
    expect(errorOf(await h.call('GET', `/event_subscriptions/esb_missing/sources`)).code).toBe('not_found');
  });
});
