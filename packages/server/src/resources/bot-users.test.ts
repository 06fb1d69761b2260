import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { errorOf, startHarness, TEST_BASE_URL, type Harness } from '../testing/harness.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(() => h.close());

const create = (body: unknown) => h.call('POST', '/bot_users', body);

describe('bot users', () => {
  it('creates with exactly the fields of api-spec 2.3, active true by default', async () => {
    const res = await create({ name: 'deployer' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^bot_[0-9A-Za-z]{26}$/),
      uri: `${TEST_BASE_URL}/bot_users/${res.body.id}`,
      name: 'deployer',
      active: true,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect((await create({ name: 'idle', active: false })).body.active).toBe(false);
    expect((await h.call('GET', `/bot_users/${res.body.id}`)).body).toEqual(res.body);
  });

  it('rejects an empty, blank, missing or mistyped name, and description/metadata', async () => {
    expect(errorOf(await create({ name: '' }))).toMatchObject({ code: 'invalid_value', field: 'name' });
    expect(errorOf(await create({ name: '   ' }))).toMatchObject({ code: 'invalid_value', field: 'name' });
    expect(errorOf(await create({ active: true }))).toMatchObject({ code: 'missing_field', field: 'name' });
    expect(errorOf(await create({ name: 7 }))).toMatchObject({ code: 'invalid_type', field: 'name' });
    expect(errorOf(await create({ name: 'x', active: 'no' }))).toMatchObject({ code: 'invalid_type', field: 'active' });
    expect(errorOf(await create({ name: 'x', description: 'd' }))).toMatchObject({ code: 'unknown_field', field: 'description' });
    expect(errorOf(await create({ name: 'x', metadata: 'm' }))).toMatchObject({ code: 'unknown_field', field: 'metadata' });
  });

  it('keeps names unique across create and rename, and frees a name on delete', async () => {
    const a = (await create({ name: 'a' })).body;
    const b = (await create({ name: 'b' })).body;
    expect(errorOf(await create({ name: 'a' }))).toMatchObject({ code: 'duplicate_name', field: 'name' });
    expect(errorOf(await h.call('PATCH', `/bot_users/${b.id}`, { name: 'a' }))).toMatchObject({ code: 'duplicate_name' });
    expect((await h.call('PATCH', `/bot_users/${a.id}`, { name: 'a' })).status).toBe(200);
    expect((await h.call('PATCH', `/bot_users/${a.id}`, { name: 'a2' })).body.name).toBe('a2');
    expect((await create({ name: 'a' })).status).toBe(201);
    await h.call('DELETE', `/bot_users/${b.id}`);
    expect((await create({ name: 'b' })).status).toBe(201);
  });

  it('updates name and active, leaving omitted fields, and rejects empty updates', async () => {
    const { body } = await create({ name: 'ci' });
    const off = await h.call('PATCH', `/bot_users/${body.id}`, { active: false });
    expect(off.body).toEqual({ ...body, active: false });
    expect((await h.call('PATCH', `/bot_users/${body.id}`, { name: 'ci-2' })).body).toEqual({ ...body, active: false, name: 'ci-2' });
    expect((await h.call('PATCH', `/bot_users/${body.id}`, {})).body).toEqual({ ...body, active: false, name: 'ci-2' });
    expect(errorOf(await h.call('PATCH', `/bot_users/${body.id}`, { name: '' })).field).toBe('name');
    expect(errorOf(await h.call('PATCH', '/bot_users/bot_missing', { active: true })).code).toBe('not_found');
  });

  it('deletes with 204, then 404; records no audit events', async () => {
    const { body } = await create({ name: 'temp' });
    await h.call('PATCH', `/bot_users/${body.id}`, { active: false });
    const res = await h.call('DELETE', `/bot_users/${body.id}`);
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();
    expect(errorOf(await h.call('GET', `/bot_users/${body.id}`)).code).toBe('not_found');
    expect(h.app.audit.read()).toEqual([]);
  });

  it('pages newest first with limit and before_id (api-spec 4.3)', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await create({ name: `bot-${i}` })).body.id);
    const newest = [...ids].reverse();
    const first = await h.call('GET', '/bot_users?limit=2');
    expect(first.body.bot_users.map((b: { id: string }) => b.id)).toEqual(newest.slice(0, 2));
    expect(first.body.uri).toBe(`${TEST_BASE_URL}/bot_users`);
    expect(first.body.next_page_uri).toBe(`${TEST_BASE_URL}/bot_users?before_id=${newest[1]}&limit=2`);
    const next = new URL(first.body.next_page_uri);
    const second = await h.call('GET', `${next.pathname}${next.search}`);
    expect(second.body.bot_users.map((b: { id: string }) => b.id)).toEqual(newest.slice(2, 4));
    const last = await h.call('GET', `/bot_users?before_id=${newest[3]}&limit=2`);
    expect(last.body.bot_users.map((b: { id: string }) => b.id)).toEqual([newest[4]]);
    expect(last.body.next_page_uri).toBeNull();
    expect((await h.call('GET', '/bot_users')).body.bot_users).toHaveLength(5);
    expect(errorOf(await h.call('GET', '/bot_users?limit=0')).code).toBe('invalid_query_parameter');
    expect(errorOf(await h.call('GET', '/bot_users?before_id=bot_nope')).code).toBe('invalid_query_parameter');
  });
});
