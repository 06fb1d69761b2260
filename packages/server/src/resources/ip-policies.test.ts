import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { errorOf, startHarness, TEST_BASE_URL, type Harness } from '../testing/harness.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(() => h.close());

const ID = /^ipp_[0-9A-Za-z]{26}$/;
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

describe('IP policies', () => {
  it('creates with the shape of api-spec 2.2, omitting description and metadata never set', async () => {
    const res = await h.call('POST', '/ip_policies', {});
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['created_at', 'id', 'uri']);
    expect(res.body.id).toMatch(ID);
    expect(res.body.uri).toBe(`${TEST_BASE_URL}/ip_policies/${res.body.id}`);
    expect(res.body.created_at).toMatch(TIMESTAMP);

    const full = await h.call('POST', '/ip_policies', { description: 'office', metadata: '{"team":"net"}' });
    expect(full.body).toMatchObject({ description: 'office', metadata: '{"team":"net"}' });
  });

  it('gets, updates (PATCH leaves omitted fields) and deletes', async () => {
    const { body: created } = await h.call('POST', '/ip_policies', { description: 'a', metadata: 'm' });
    expect((await h.call('GET', `/ip_policies/${created.id}`)).body).toEqual(created);

    const patched = await h.call('PATCH', `/ip_policies/${created.id}`, { description: 'b' });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({ ...created, description: 'b' });

    const deleted = await h.call('DELETE', `/ip_policies/${created.id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBeUndefined();
    expect(errorOf(await h.call('GET', `/ip_policies/${created.id}`)).code).toBe('not_found');
    expect(errorOf(await h.call('DELETE', `/ip_policies/${created.id}`)).code).toBe('not_found');
  });

  it('pages newest first with before_id and an absolute next_page_uri', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await h.call('POST', '/ip_policies', { description: `p${i}` })).body.id);
    const newestFirst = [...ids].reverse();

    const first = await h.call('GET', '/ip_policies?limit=2');
    expect(first.body.uri).toBe(`${TEST_BASE_URL}/ip_policies`);
    expect(first.body.ip_policies.map((p: { id: string }) => p.id)).toEqual(newestFirst.slice(0, 2));
    expect(first.body.next_page_uri).toBe(`${TEST_BASE_URL}/ip_policies?before_id=${newestFirst[1]}&limit=2`);

    const next = new URL(first.body.next_page_uri);
    const second = await h.call('GET', `${next.pathname}${next.search}`);
    expect(second.body.ip_policies.map((p: { id: string }) => p.id)).toEqual(newestFirst.slice(2, 4));

    const last = await h.call('GET', `/ip_policies?before_id=${newestFirst[3]}&limit=2`);
    expect(last.body.ip_policies.map((p: { id: string }) => p.id)).toEqual(newestFirst.slice(4));
    expect(last.body.next_page_uri).toBeNull();

    const all = await h.call('GET', '/ip_policies');
    expect(all.body.ip_policies).toHaveLength(5);
    expect(all.body.next_page_uri).toBeNull();
  });

  it('keeps a before_id cursor valid after its object is deleted', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await h.call('POST', '/ip_policies', {})).body.id);
    await h.call('DELETE', `/ip_policies/${ids[1]}`);
    const page = await h.call('GET', `/ip_policies?before_id=${ids[1]}`);
    expect(page.status).toBe(200);
    expect(page.body.ip_policies.map((p: { id: string }) => p.id)).toEqual([ids[0]]);
  });

  it('rejects bad list parameters', async () => {
    expect(errorOf(await h.call('GET', '/ip_policies?limit=0')).code).toBe('invalid_query_parameter');
    expect(errorOf(await h.call('GET', '/ip_policies?limit=101')).code).toBe('invalid_query_parameter');
    expect(errorOf(await h.call('GET', '/ip_policies?limit=ten')).code).toBe('invalid_query_parameter');
    expect(errorOf(await h.call('GET', '/ip_policies?before_id=ipp_nope')).code).toBe('invalid_query_parameter');
    expect(errorOf(await h.call('GET', '/ip_policies?sort=asc'))).toMatchObject({
      code: 'unknown_query_parameter',
      field: 'sort',
    });
  });

  it('rejects unknown fields, wrong types, empty updates and oversize text (bytes, not characters)', async () => {
    expect(errorOf(await h.call('POST', '/ip_policies', { name: 'x' }))).toMatchObject({ code: 'unknown_field', field: 'name' });
    expect(errorOf(await h.call('POST', '/ip_policies', { description: 1 }))).toMatchObject({
      code: 'invalid_type',
      field: 'description',
    });
    expect(errorOf(await h.call('POST', '/ip_policies', { description: 'é'.repeat(128) }))).toMatchObject({
      code: 'invalid_value',
      field: 'description',
    });
    expect((await h.call('POST', '/ip_policies', { description: 'é'.repeat(127) })).status).toBe(201);
    expect((await h.call('POST', '/ip_policies', { metadata: 'x'.repeat(4096) })).status).toBe(201);
    expect(errorOf(await h.call('POST', '/ip_policies', { metadata: 'x'.repeat(4097) })).code).toBe('invalid_value');

    const { body } = await h.call('POST', '/ip_policies', {});
    const events = h.app.audit.read().length;
    // An empty PATCH changes nothing: 200 with the policy, and no ip_policy_updated.v0.
    expect(await h.call('PATCH', `/ip_policies/${body.id}`, {})).toMatchObject({ status: 200, body });
    expect(h.app.audit.read()).toHaveLength(events);
    expect((await h.call('PATCH', '/ip_policies/ipp_missing', {})).status).toBe(404);
  });

  it('records audit events in order, with the object as it is now', async () => {
    const { body } = await h.call('POST', '/ip_policies', { description: 'a' });
    await h.call('PATCH', `/ip_policies/${body.id}`, { description: 'b' });
    await h.call('DELETE', `/ip_policies/${body.id}`);
    await h.call('PATCH', `/ip_policies/${body.id}`, { description: 'never' });

    const events = h.app.audit.read();
    expect(events.map((e) => e.event_type)).toEqual(['ip_policy_created.v0', 'ip_policy_updated.v0', 'ip_policy_deleted.v0']);
    expect(events[1]).toMatchObject({
      event_id: expect.stringMatching(/^ev_/),
      event_timestamp: expect.stringMatching(TIMESTAMP),
      principal: { source: 'API', credential: { id: expect.stringMatching(/^ak_/) } },
      object: { id: body.id, description: 'b' },
    });
  });
});

describe('IP policy rules', () => {
  let policyId: string;
  beforeEach(async () => {
    policyId = (await h.call('POST', '/ip_policies', {})).body.id;
  });
  const rule = (cidr: string, action = 'allow') => h.call('POST', '/ip_policy_rules', { ip_policy_id: policyId, cidr, action });

  it('creates with the fields of the audit payload (2.2) and an ip_policy Ref', async () => {
    const res = await rule('203.0.113.0/24');
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^ipr_/),
      uri: `${TEST_BASE_URL}/ip_policy_rules/${res.body.id}`,
      created_at: expect.stringMatching(TIMESTAMP),
      cidr: '203.0.113.0/24',
      ip_policy: { id: policyId, uri: `${TEST_BASE_URL}/ip_policies/${policyId}` },
      action: 'allow',
    });
  });

  it('validates CIDRs as the service does', async () => {
    expect((await rule('2001:DB8::/32', 'deny')).body.cidr).toBe('2001:db8::/32');
    expect(errorOf(await rule('10.0.0.1'))).toMatchObject({ code: 'invalid_cidr', field: 'cidr' });
    expect(errorOf(await rule('10.0.0.1/8')).msg).toContain('10.0.0.0/8');
    expect(errorOf(await rule('300.0.0.0/8')).code).toBe('invalid_cidr');
    expect(errorOf(await rule('10.0.0.0/33')).code).toBe('invalid_cidr');
    expect(errorOf(await rule('10.0.0.0/8', 'maybe'))).toMatchObject({ code: 'invalid_value', field: 'action' });
  });

  it('allows a CIDR once per policy, and again in another policy or after delete', async () => {
    const first = await rule('10.0.0.0/8');
    expect(errorOf(await rule('10.0.0.0/8')).code).toBe('duplicate_cidr');
    const other = (await h.call('POST', '/ip_policies', {})).body.id;
    expect((await h.call('POST', '/ip_policy_rules', { ip_policy_id: other, cidr: '10.0.0.0/8', action: 'deny' })).status).toBe(201);
    await h.call('DELETE', `/ip_policy_rules/${first.body.id}`);
    expect((await rule('10.0.0.0/8')).status).toBe(201);
  });

  it('updates description, metadata and cidr, re-checking uniqueness', async () => {
    const a = (await rule('10.0.0.0/8')).body;
    await rule('192.168.0.0/16');
    const moved = await h.call('PATCH', `/ip_policy_rules/${a.id}`, { cidr: '172.16.0.0/12', description: 'lab' });
    expect(moved.body).toMatchObject({ cidr: '172.16.0.0/12', description: 'lab', action: 'allow' });
    expect(errorOf(await h.call('PATCH', `/ip_policy_rules/${a.id}`, { cidr: '192.168.0.0/16' })).code).toBe('duplicate_cidr');
    expect(errorOf(await h.call('PATCH', `/ip_policy_rules/${a.id}`, { action: 'deny' })).code).toBe('unknown_field');
  });

  it('rejects a rule for a policy that does not exist', async () => {
    const res = await h.call('POST', '/ip_policy_rules', { ip_policy_id: 'ipp_missing', cidr: '10.0.0.0/8', action: 'allow' });
    expect(errorOf(res)).toMatchObject({ code: 'invalid_reference', field: 'ip_policy_id' });
  });

  it('deletes a policy with its rules, each with its audit event', async () => {
    const a = (await rule('10.0.0.0/8')).body;
    expect((await h.call('DELETE', `/ip_policies/${policyId}`)).status).toBe(204);
    expect(errorOf(await h.call('GET', `/ip_policy_rules/${a.id}`)).code).toBe('not_found');
    expect(h.app.audit.read().map((e) => e.event_type)).toEqual([
      'ip_policy_created.v0',
      'ip_policy_rule_created.v0',
      'ip_policy_rule_deleted.v0',
      'ip_policy_deleted.v0',
    ]);
  });
});

describe('the last rule of a policy a dashboard restriction uses (the service error 1419)', () => {
  it('cannot be deleted; another rule, another restriction type or the policy itself can', async () => {
    const policy = (await h.call('POST', '/ip_policies', {})).body.id;
    const rule = (cidr: string) => h.call('POST', '/ip_policy_rules', { ip_policy_id: policy, cidr, action: 'allow' });
    const first = (await rule('192.0.2.0/24')).body.id;
    const api = (await h.call('POST', '/ip_restrictions', { type: 'api', ip_policy_ids: [policy] })).body.id;
    const dashboard = (await h.call('POST', '/ip_restrictions', { type: 'dashboard', ip_policy_ids: [policy] })).body.id;

    const refused = await h.call('DELETE', `/ip_policy_rules/${first}`);
    expect(errorOf(refused)).toMatchObject({ code: 'resource_in_use' });
    expect(refused.body.msg).toContain('lock everyone out of the dashboard');
    expect(refused.body.details).toMatchObject({ ip_policy_id: policy, ip_restriction_id: dashboard });
    expect((await h.call('GET', `/ip_policy_rules/${first}`)).status).toBe(200);

    // with a second rule, either can go (make before break)
    const second = (await rule('198.51.100.0/24')).body.id;
    expect((await h.call('DELETE', `/ip_policy_rules/${first}`)).status).toBe(204);
    expect(errorOf(await h.call('DELETE', `/ip_policy_rules/${second}`)).code).toBe('resource_in_use');
    // an api restriction alone does not protect the last rule
    expect((await h.call('DELETE', `/ip_restrictions/${dashboard}`)).status).toBe(204);
    expect((await h.call('DELETE', `/ip_policy_rules/${second}`)).status).toBe(204);
    expect(api).toMatch(/^ipx_/);
    // deleting the policy itself still succeeds (api-spec part 1)
    const third = (await rule('203.0.113.0/24')).body.id;
    await h.call('POST', '/ip_restrictions', { type: 'dashboard', ip_policy_ids: [policy] });
    expect((await h.call('DELETE', `/ip_policies/${policy}`)).status).toBe(204);
    expect((await h.call('GET', `/ip_policy_rules/${third}`)).status).toBe(404);
  });
});
