import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { errorOf, startHarness, TEST_BASE_URL, type Harness } from '../testing/harness.js';

let h: Harness;
let p1: string;
let p2: string;
beforeEach(async () => {
  h = await startHarness();
  p1 = (await h.call('POST', '/ip_policies', {})).body.id;
  p2 = (await h.call('POST', '/ip_policies', {})).body.id;
});
afterEach(() => h.close());

const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
const ref = (id: string) => ({ id, uri: `${TEST_BASE_URL}/ip_policies/${id}` });
const create = (body: Record<string, unknown>) => h.call('POST', '/ip_restrictions', body);

describe('IP restrictions', () => {
  it('creates with the shape of api-spec 2.1: enforced false by default, ip_policies as Refs', async () => {
    const res = await create({ type: 'dashboard', ip_policy_ids: [p1, p2] });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^ipx_[0-9A-Za-z]{26}$/),
      uri: `${TEST_BASE_URL}/ip_restrictions/${res.body.id}`,
      created_at: expect.stringMatching(TIMESTAMP),
      enforced: false,
      type: 'dashboard',
      ip_policies: [ref(p1), ref(p2)],
    });
    const full = await create({ type: 'api', ip_policy_ids: [p1], enforced: true, description: 'd', metadata: 'm' });
    expect(full.body).toMatchObject({ enforced: true, description: 'd', metadata: 'm', type: 'api' });
    expect((await h.call('GET', `/ip_restrictions/${full.body.id}`)).body).toEqual(full.body);
  });

  it('validates type, the policy list and its references', async () => {
    expect(errorOf(await create({ type: 'ssh', ip_policy_ids: [p1] }))).toMatchObject({ code: 'invalid_value', field: 'type' });
    expect(errorOf(await create({ ip_policy_ids: [p1] }))).toMatchObject({ code: 'missing_field', field: 'type' });
    expect(errorOf(await create({ type: 'api' }))).toMatchObject({ code: 'missing_field', field: 'ip_policy_ids' });
    expect(errorOf(await create({ type: 'api', ip_policy_ids: [] }))).toMatchObject({
      code: 'invalid_value',
      field: 'ip_policy_ids',
    });
    expect(errorOf(await create({ type: 'api', ip_policy_ids: [p1, p1] }))).toMatchObject({
      code: 'invalid_value',
      field: 'ip_policy_ids',
    });
    const missing = await create({ type: 'api', ip_policy_ids: [p1, 'ipp_missing'] });
    expect(errorOf(missing)).toMatchObject({ code: 'invalid_reference', field: 'ip_policy_ids' });
    expect(errorOf(missing).msg).toContain('ipp_missing');
    expect(errorOf(await create({ type: 'api', ip_policy_ids: [p1], enforced: 'yes' }))).toMatchObject({
      code: 'invalid_type',
      field: 'enforced',
    });
    expect(errorOf(await create({ type: 'api', ip_policy_ids: [p1], description: 'é'.repeat(128) })).field).toBe('description');
    expect((await h.call('GET', '/ip_restrictions')).body.ip_restrictions).toEqual([]);
  });

  it('allows at most one restriction per type, and the type again after delete', async () => {
    const first = await create({ type: 'agent', ip_policy_ids: [p1] });
    expect(errorOf(await create({ type: 'agent', ip_policy_ids: [p2] }))).toMatchObject({ code: 'duplicate_type', field: 'type' });
    expect((await create({ type: 'endpoints', ip_policy_ids: [p2] })).status).toBe(201);
    expect((await h.call('DELETE', `/ip_restrictions/${first.body.id}`)).status).toBe(204);
    expect((await create({ type: 'agent', ip_policy_ids: [p2] })).status).toBe(201);
  });

  it('updates description, metadata, enforced; ip_policy_ids replaces the set; type is create-only', async () => {
    const { body } = await create({ type: 'api', ip_policy_ids: [p1], description: 'a' });
    const patched = await h.call('PATCH', `/ip_restrictions/${body.id}`, { ip_policy_ids: [p2], enforced: true });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({ ...body, enforced: true, ip_policies: [ref(p2)] });
    expect((await h.call('PATCH', `/ip_restrictions/${body.id}`, { metadata: 'm' })).body).toMatchObject({
      description: 'a',
      metadata: 'm',
      ip_policies: [ref(p2)],
    });
    expect(errorOf(await h.call('PATCH', `/ip_restrictions/${body.id}`, { type: 'agent' }))).toMatchObject({
      code: 'unknown_field',
      field: 'type',
    });
    expect(errorOf(await h.call('PATCH', `/ip_restrictions/${body.id}`, { ip_policy_ids: ['ipp_gone'] }))).toMatchObject({
      code: 'invalid_reference',
      field: 'ip_policy_ids',
    });
    expect(errorOf(await h.call('PATCH', `/ip_restrictions/${body.id}`, { ip_policy_ids: [] })).code).toBe('invalid_value');
    expect((await h.call('PATCH', `/ip_restrictions/${body.id}`, {})).status).toBe(200);
    expect(errorOf(await h.call('PATCH', '/ip_restrictions/ipx_missing', { enforced: true })).code).toBe('not_found');
    expect((await h.call('GET', `/ip_restrictions/${body.id}`)).body).toMatchObject({ enforced: true, ip_policies: [ref(p2)] });
  });

  it('keeps a deleted policy referenced, rendered as a Ref, and still allows other updates', async () => {
    const { body } = await create({ type: 'api', ip_policy_ids: [p1, p2] });
    expect((await h.call('DELETE', `/ip_policies/${p1}`)).status).toBe(204);
    expect((await h.call('GET', `/ip_restrictions/${body.id}`)).body.ip_policies).toEqual([ref(p1), ref(p2)]);
    const patched = await h.call('PATCH', `/ip_restrictions/${body.id}`, { description: 'still here' });
    expect(patched.status).toBe(200);
    expect(patched.body.ip_policies).toEqual([ref(p1), ref(p2)]);
  });

  it('deletes with 204 and then answers 404', async () => {
    const { body } = await create({ type: 'api', ip_policy_ids: [p1] });
    const res = await h.call('DELETE', `/ip_restrictions/${body.id}`);
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();
    expect(errorOf(await h.call('GET', `/ip_restrictions/${body.id}`)).code).toBe('not_found');
    expect(errorOf(await h.call('DELETE', `/ip_restrictions/${body.id}`)).code).toBe('not_found');
  });

  it('pages newest first with limit and before_id', async () => {
    const ids: string[] = [];
    for (const type of ['dashboard', 'api', 'agent', 'endpoints']) ids.push((await create({ type, ip_policy_ids: [p1] })).body.id);
    const newest = [...ids].reverse();
    const first = await h.call('GET', '/ip_restrictions?limit=3');
    expect(first.body.ip_restrictions.map((r: { id: string }) => r.id)).toEqual(newest.slice(0, 3));
    expect(first.body.uri).toBe(`${TEST_BASE_URL}/ip_restrictions`);
    expect(first.body.next_page_uri).toBe(`${TEST_BASE_URL}/ip_restrictions?before_id=${newest[2]}&limit=3`);
    const second = await h.call('GET', `/ip_restrictions?before_id=${newest[2]}&limit=3`);
    expect(second.body.ip_restrictions.map((r: { id: string }) => r.id)).toEqual([newest[3]]);
    expect(second.body.next_page_uri).toBeNull();
    expect(errorOf(await h.call('GET', '/ip_restrictions?limit=101')).code).toBe('invalid_query_parameter');
  });

  it('records created/updated/deleted audit events, none for a rejected change', async () => {
    const { body } = await create({ type: 'api', ip_policy_ids: [p1] });
    await create({ type: 'api', ip_policy_ids: [p1] });
    await h.call('PATCH', `/ip_restrictions/${body.id}`, { enforced: true });
    await h.call('PATCH', `/ip_restrictions/${body.id}`, { ip_policy_ids: ['ipp_missing'] });
    await h.call('DELETE', `/ip_restrictions/${body.id}`);
    const events = h.app.audit.read().filter((e) => e.event_type.startsWith('ip_restriction'));
    expect(events.map((e) => e.event_type)).toEqual(['ip_restriction_created.v0', 'ip_restriction_updated.v0', 'ip_restriction_deleted.v0']);
    expect(events[0]!.object).toEqual(body);
    expect(events[1]).toMatchObject({
      principal: { source: 'API', credential: { id: expect.stringMatching(/^ak_/) } },
      object: { id: body.id, enforced: true, type: 'api', ip_policies: [ref(p1)] },
    });
  });
});
