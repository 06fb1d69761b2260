import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { errorOf, startHarness, TEST_BASE_URL, type Harness } from '../testing/harness.js';

let h: Harness;
let backendId: string;
let policyId: string;
beforeEach(async () => {
  h = await startHarness();
  backendId = (await h.call('POST', '/backends/tunnel_group', { labels: { app: 'db' } })).body.id;
  policyId = (await h.call('POST', '/ip_policies', {})).body.id;
});
afterEach(() => h.close());

const create = (body: unknown) => h.call('POST', '/edges/tcp', body);
const backendRef = (id: string) => ({ id, uri: `${TEST_BASE_URL}/backends/tunnel_group/${id}` });
const policyRef = (id: string) => ({ id, uri: `${TEST_BASE_URL}/ip_policies/${id}` });

describe('TCP edges', () => {
  it('creates with hostports [] and every module null when none is given', async () => {
    const res = await create({});
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^edgtcp_[0-9A-Za-z]{26}$/),
      uri: `${TEST_BASE_URL}/edges/tcp/${res.body.id}`,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      hostports: [],
      backend: null,
      ip_restriction: null,
      traffic_policy: null,
    });
  });

  it('takes modules inline (ids in, Refs out, enabled true by default) and renders them inline', async () => {
    const res = await create({
      description: 'postgres',
      metadata: 'm',
      hostports: ['1.tcp.example.com:12345'],
      backend: { backend_id: backendId },
      ip_restriction: { enabled: false, ip_policy_ids: [policyId] },
      traffic_policy: { value: '{"on_tcp_connect":[]}' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      description: 'postgres',
      metadata: 'm',
      hostports: ['1.tcp.example.com:12345'],
      backend: { enabled: true, backend: backendRef(backendId) },
      ip_restriction: { enabled: false, ip_policies: [policyRef(policyId)] },
      traffic_policy: { enabled: true, value: '{"on_tcp_connect":[]}' },
    });
    expect((await h.call('GET', `/edges/tcp/${res.body.id}`)).body).toEqual(res.body);
  });

  it('PATCH replaces given fields and modules whole and leaves the rest', async () => {
    const { body } = await create({
      hostports: ['a.example.com:1000'],
      backend: { backend_id: backendId, enabled: false },
      traffic_policy: { value: 'v1' },
    });
    const other = (await h.call('POST', '/backends/http_response', {})).body.id;
    const patched = await h.call('PATCH', `/edges/tcp/${body.id}`, { backend: { backend_id: other }, description: 'd' });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({
      ...body,
      description: 'd',
      backend: { enabled: true, backend: { id: other, uri: `${TEST_BASE_URL}/backends/http_response/${other}` } },
    });
    const moved = await h.call('PATCH', `/edges/tcp/${body.id}`, { hostports: ['b.example.com:2000'] });
    expect(moved.body).toMatchObject({ hostports: ['b.example.com:2000'], traffic_policy: { enabled: true, value: 'v1' } });
    expect((await h.call('PATCH', `/edges/tcp/${body.id}`, {})).body).toEqual(moved.body);
    expect(errorOf(await h.call('PATCH', `/edges/tcp/${body.id}`, { backend: null }))).toMatchObject({ field: 'backend' });
  });

  it('validates hostports', async () => {
    for (const bad of ['example.com', 'example.com:0', 'example.com:65536', 'example.com:080', 'exa mple.com:80', ':80', 'a..b:80']) {
      expect(errorOf(await create({ hostports: [bad] })), bad).toMatchObject({ code: 'invalid_hostport', field: 'hostports[0]' });
    }
    expect(errorOf(await create({ hostports: ['a.example.com:1', 'a.example.com:1'] }))).toMatchObject({
      code: 'invalid_hostport',
      field: 'hostports[1]',
    });
    expect((await create({ hostports: ['Mixed.Example.com:65535'] })).body.hostports).toEqual(['mixed.example.com:65535']);
    expect(errorOf(await create({ hostports: 'a.example.com:1' }))).toMatchObject({ code: 'invalid_type', field: 'hostports' });
  });

  it('gives a hostport to at most one edge, checked on create and PATCH, freed by delete and by moving', async () => {
    const a = (await create({ hostports: ['db.example.com:5432'] })).body;
    expect(errorOf(await create({ hostports: ['DB.example.com:5432'] }))).toMatchObject({ code: 'hostport_in_use', field: 'hostports' });
    const b = (await create({ hostports: ['db.example.com:5433'] })).body;
    expect(errorOf(await h.call('PATCH', `/edges/tcp/${b.id}`, { hostports: ['db.example.com:5432'] })).code).toBe('hostport_in_use');
    expect((await h.call('PATCH', `/edges/tcp/${a.id}`, { hostports: ['db.example.com:5432', 'x.example.com:1'] })).status).toBe(200);
    expect((await h.call('PATCH', `/edges/tcp/${a.id}`, { hostports: ['x.example.com:1'] })).status).toBe(200);
    expect((await h.call('PATCH', `/edges/tcp/${b.id}`, { hostports: ['db.example.com:5432'] })).status).toBe(200);
    await h.call('DELETE', `/edges/tcp/${a.id}`);
    expect((await create({ hostports: ['x.example.com:1'] })).status).toBe(201);
  });

  it('shares the hostport:<hostport> key space with edges of other kinds (HTTPS edges claim the same keys)', async () => {
    h.app.services.store.setKeys('edghts_other', ['hostport:shared.example.com:443']);
    expect(errorOf(await create({ hostports: ['shared.example.com:443'] }))).toMatchObject({ code: 'hostport_in_use' });
    expect((await create({ hostports: ['shared.example.com:444'] })).status).toBe(201);
  });

  it('rejects modules naming ids that do not exist, and bad module bodies', async () => {
    expect(errorOf(await create({ backend: { backend_id: 'bkdtg_missing' } }))).toMatchObject({
      code: 'invalid_reference',
      field: 'backend.backend_id',
    });
    expect(errorOf(await create({ backend: { backend_id: policyId } })).code).toBe('invalid_reference');
    expect(errorOf(await create({ ip_restriction: { ip_policy_ids: ['ipp_missing'] } }))).toMatchObject({
      code: 'invalid_reference',
      field: 'ip_restriction.ip_policy_ids',
    });
    expect(errorOf(await create({ ip_restriction: { ip_policy_ids: [] } }))).toMatchObject({
      code: 'invalid_value',
      field: 'ip_restriction.ip_policy_ids',
    });
    expect(errorOf(await create({ backend: {} }))).toMatchObject({ code: 'missing_field', field: 'backend.backend_id' });
    expect(errorOf(await create({ traffic_policy: { value: 'x', extra: 1 } }))).toMatchObject({
      code: 'unknown_field',
      field: 'traffic_policy.extra',
    });
    expect(errorOf(await create({ routes: [] }))).toMatchObject({ code: 'unknown_field', field: 'routes' });
    expect((await h.call('GET', '/edges/tcp')).body.tcp_edges).toEqual([]);
  });

  it('deletes with 204 then 404, and records no audit events', async () => {
    const { body } = await create({ hostports: ['a.example.com:1'] });
    const res = await h.call('DELETE', `/edges/tcp/${body.id}`);
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();
    expect(errorOf(await h.call('GET', `/edges/tcp/${body.id}`)).code).toBe('not_found');
    expect(errorOf(await h.call('GET', `/edges/tcp/${body.id}/backend`)).code).toBe('not_found');
    expect(h.app.audit.read().filter((e) => e.event_type.startsWith('tcp'))).toEqual([]);
  });

  it('pages newest first under tcp_edges', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await create({})).body.id);
    const newest = [...ids].reverse();
    const first = await h.call('GET', '/edges/tcp?limit=2');
    expect(first.body.tcp_edges.map((e: { id: string }) => e.id)).toEqual(newest.slice(0, 2));
    expect(first.body.uri).toBe(`${TEST_BASE_URL}/edges/tcp`);
    expect(first.body.next_page_uri).toBe(`${TEST_BASE_URL}/edges/tcp?before_id=${newest[1]}&limit=2`);
    const second = await h.call('GET', `/edges/tcp?before_id=${newest[1]}&limit=2`);
    expect(second.body.tcp_edges.map((e: { id: string }) => e.id)).toEqual([newest[2]]);
    expect(second.body.next_page_uri).toBeNull();
    expect(errorOf(await h.call('GET', '/edges/tcp?page=2')).code).toBe('unknown_query_parameter');
  });
});

describe('TCP edge module endpoints (api-spec 4.5)', () => {
  let edgeId: string;
  beforeEach(async () => {
    edgeId = (await create({})).body.id;
  });

  it('PUT/GET/DELETE /edges/tcp/{id}/backend', async () => {
    expect(errorOf(await h.call('GET', `/edges/tcp/${edgeId}/backend`)).code).toBe('not_found');
    const put = await h.call('PUT', `/edges/tcp/${edgeId}/backend`, { backend_id: backendId });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ enabled: true, backend: backendRef(backendId) });
    expect((await h.call('GET', `/edges/tcp/${edgeId}/backend`)).body).toEqual(put.body);
    expect((await h.call('GET', `/edges/tcp/${edgeId}`)).body.backend).toEqual(put.body);
    const off = await h.call('PUT', `/edges/tcp/${edgeId}/backend`, { backend_id: backendId, enabled: false });
    expect(off.body.enabled).toBe(false);
    const del = await h.call('DELETE', `/edges/tcp/${edgeId}/backend`);
    expect(del.status).toBe(204);
    expect(del.body).toBeUndefined();
    expect((await h.call('GET', `/edges/tcp/${edgeId}`)).body.backend).toBeNull();
    expect(errorOf(await h.call('GET', `/edges/tcp/${edgeId}/backend`)).code).toBe('not_found');
  });

  it('validates the backend module body and the edge id', async () => {
    expect(errorOf(await h.call('PUT', `/edges/tcp/${edgeId}/backend`, { backend_id: 'bkdwd_missing' }))).toMatchObject({
      code: 'invalid_reference',
    });
    expect(errorOf(await h.call('PUT', `/edges/tcp/${edgeId}/backend`, { enabled: true }))).toMatchObject({
      code: 'missing_field',
      field: 'backend_id',
    });
    expect(errorOf(await h.call('PUT', `/edges/tcp/${edgeId}/backend`, { backend_id: backendId, weight: 1 })).code).toBe('unknown_field');
    expect(errorOf(await h.call('PUT', '/edges/tcp/edgtcp_missing/backend', { backend_id: backendId })).code).toBe('not_found');
    expect((await h.call('GET', `/edges/tcp/${edgeId}`)).body.backend).toBeNull();
  });

  it('PUT/GET/DELETE /edges/tcp/{id}/ip_restriction, keeping a policy deleted later', async () => {
    const put = await h.call('PUT', `/edges/tcp/${edgeId}/ip_restriction`, { ip_policy_ids: [policyId] });
    expect(put.body).toEqual({ enabled: true, ip_policies: [policyRef(policyId)] });
    await h.call('DELETE', `/ip_policies/${policyId}`);
    expect((await h.call('GET', `/edges/tcp/${edgeId}/ip_restriction`)).body).toEqual(put.body);
    expect(errorOf(await h.call('PUT', `/edges/tcp/${edgeId}/ip_restriction`, { ip_policy_ids: [policyId] })).code).toBe('invalid_reference');
    expect((await h.call('DELETE', `/edges/tcp/${edgeId}/ip_restriction`)).status).toBe(204);
    expect((await h.call('GET', `/edges/tcp/${edgeId}`)).body.ip_restriction).toBeNull();
  });

  it('PUT/GET/DELETE /edges/tcp/{id}/traffic_policy, the way to remove an inline module', async () => {
    await h.call('PATCH', `/edges/tcp/${edgeId}`, { traffic_policy: { value: 'v', enabled: false } });
    expect((await h.call('GET', `/edges/tcp/${edgeId}/traffic_policy`)).body).toEqual({ enabled: false, value: 'v' });
    expect(errorOf(await h.call('PUT', `/edges/tcp/${edgeId}/traffic_policy`, { value: '' })).field).toBe('value');
    expect((await h.call('DELETE', `/edges/tcp/${edgeId}/traffic_policy`)).status).toBe(204);
    expect((await h.call('GET', `/edges/tcp/${edgeId}`)).body.traffic_policy).toBeNull();
  });
});
