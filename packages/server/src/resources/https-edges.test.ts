import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { errorOf, startHarness, TEST_BASE_URL, type Harness } from '../testing/harness.js';
import { FIXTURE_CA } from '../testing/test-ca.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(() => h.close());

const ID = /^edghts_[0-9A-Za-z]{26}$/;
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
const create = (body: object) => h.call('POST', '/edges/https', body);
const newCa = async () => (await h.call('POST', '/certificate_authorities', { ca_pem: FIXTURE_CA })).body.id as string;
const caRef = (id: string) => ({ id, uri: `${TEST_BASE_URL}/certificate_authorities/${id}` });

describe('HTTPS edges: create, get, list', () => {
  it('creates with the shape of api-spec 2.7: hostports [], routes [], modules null', async () => {
    const res = await create({});
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(ID),
      uri: `${TEST_BASE_URL}/edges/https/${res.body.id}`,
      created_at: expect.stringMatching(TIMESTAMP),
      hostports: [],
      mutual_tls: null,
      tls_termination: null,
      routes: [],
    });
    expect((await h.call('GET', `/edges/https/${res.body.id}`)).body).toEqual(res.body);
  });

  it('echoes description, metadata, hostports (hostname lowercased) and both modules', async () => {
    const ca = await newCa();
    const res = await create({
      description: 'shop',
      metadata: '{"team":"web"}',
      hostports: ['Shop.Example.com:443'],
      mutual_tls: { certificate_authority_ids: [ca] },
      tls_termination: { min_version: '1.3' },
    });
    expect(res.body).toMatchObject({
      description: 'shop',
      metadata: '{"team":"web"}',
      hostports: ['shop.example.com:443'],
      mutual_tls: { enabled: true, certificate_authorities: [caRef(ca)] },
      tls_termination: { enabled: true, terminate_at: 'edge', min_version: '1.3' },
    });
  });

  it('fills terminate_at edge and min_version null, keeps enabled false, and accepts upstream', async () => {
    expect((await create({ tls_termination: {} })).body.tls_termination).toEqual({
      enabled: true,
      terminate_at: 'edge',
      min_version: null,
    });
    expect((await create({ tls_termination: { enabled: false, min_version: '1.0' } })).body.tls_termination).toEqual({
      enabled: false,
      terminate_at: 'edge',
      min_version: '1.0',
    });
    expect((await create({ tls_termination: { terminate_at: 'upstream' } })).body.tls_termination).toEqual({
      enabled: true,
      terminate_at: 'upstream',
      min_version: null,
    });
    expect((await create({ mutual_tls: { enabled: false, certificate_authority_ids: [] } })).body.mutual_tls).toEqual({
      enabled: false,
      certificate_authorities: [],
    });
  });

  it('lists newest first under https_edges, with pagination', async () => {
    const a = (await create({ description: 'a' })).body;
    const b = (await create({ description: 'b' })).body;
    const all = await h.call('GET', '/edges/https');
    expect(all.body).toEqual({ https_edges: [b, a], uri: `${TEST_BASE_URL}/edges/https`, next_page_uri: null });
    const first = await h.call('GET', '/edges/https?limit=1');
    expect(first.body.https_edges).toEqual([b]);
    expect(first.body.next_page_uri).toBe(`${TEST_BASE_URL}/edges/https?before_id=${b.id}&limit=1`);
    expect((await h.call('GET', `/edges/https?limit=1&before_id=${b.id}`)).body.https_edges).toEqual([a]);
  });

  it('shows its routes inline, in creation order', async () => {
    const edge = (await create({})).body;
    const r1 = (await h.call('POST', `/edges/https/${edge.id}/routes`, { match_type: 'path_prefix', match: '/b' })).body;
    const r2 = (await h.call('POST', `/edges/https/${edge.id}/routes`, { match_type: 'exact_path', match: '/a' })).body;
    expect((await h.call('GET', `/edges/https/${edge.id}`)).body.routes).toEqual([r1, r2]);
    expect((await h.call('GET', '/edges/https')).body.https_edges[0].routes).toEqual([r1, r2]);
  });

  it('records no audit events (none are listed for edges)', async () => {
    const edge = (await create({})).body;
    await h.call('PATCH', `/edges/https/${edge.id}`, { description: 'x' });
    await h.call('DELETE', `/edges/https/${edge.id}`);
    expect(h.app.audit.read()).toEqual([]);
  });
});

describe('HTTPS edges: update and delete', () => {
  it('PATCH leaves omitted fields and replaces given ones whole', async () => {
    const [ca1, ca2] = [await newCa(), await newCa()];
    const edge = (
      await create({
        description: 'a',
        hostports: ['a.example.com:443'],
        mutual_tls: { certificate_authority_ids: [ca1, ca2] },
        tls_termination: { min_version: '1.2' },
      })
    ).body;
    const described = await h.call('PATCH', `/edges/https/${edge.id}`, { description: 'b' });
    expect(described.status).toBe(200);
    expect(described.body).toEqual({ ...edge, description: 'b' });

    const replaced = await h.call('PATCH', `/edges/https/${edge.id}`, {
      metadata: 'm',
      hostports: ['b.example.com:443'],
      mutual_tls: { enabled: false, certificate_authority_ids: [ca2] },
      tls_termination: { terminate_at: 'upstream' },
    });
    expect(replaced.body).toEqual({
      ...edge,
      description: 'b',
      metadata: 'm',
      hostports: ['b.example.com:443'],
      mutual_tls: { enabled: false, certificate_authorities: [caRef(ca2)] },
      tls_termination: { enabled: true, terminate_at: 'upstream', min_version: null },
    });
    expect((await h.call('GET', `/edges/https/${edge.id}`)).body).toEqual(replaced.body);
  });

  it('answers an empty PATCH with the edge as it is, and rejects a PATCH that tries to remove a module', async () => {
    const edge = (await create({ tls_termination: {} })).body;
    expect(await h.call('PATCH', `/edges/https/${edge.id}`, {})).toMatchObject({ status: 200, body: edge });
    expect(errorOf(await h.call('PATCH', `/edges/https/${edge.id}`, { tls_termination: null }))).toMatchObject({
      code: 'invalid_type',
      field: 'tls_termination',
    });
    expect(errorOf(await h.call('PATCH', `/edges/https/${edge.id}`, { routes: [] }))).toMatchObject({
      code: 'unknown_field',
      field: 'routes',
    });
    expect(errorOf(await h.call('PATCH', '/edges/https/edghts_missing', { description: 'x' })).code).toBe('not_found');
  });

  it('deletes the edge with its routes and releases its hostports', async () => {
    const edge = (await create({ hostports: ['a.example.com:443'] })).body;
    const route = (await h.call('POST', `/edges/https/${edge.id}/routes`, { match_type: 'path_prefix', match: '/' })).body;
    const deleted = await h.call('DELETE', `/edges/https/${edge.id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBeUndefined();
    expect(errorOf(await h.call('GET', `/edges/https/${edge.id}`)).code).toBe('not_found');
    expect(errorOf(await h.call('GET', `/edges/https/${edge.id}/routes/${route.id}`)).code).toBe('not_found');
    expect(h.app.services.store.get(route.id)).toBeUndefined();
    expect(errorOf(await h.call('DELETE', `/edges/https/${edge.id}`)).code).toBe('not_found');
    expect((await create({ hostports: ['a.example.com:443'] })).status).toBe(201);
  });
});

describe('HTTPS edges: validation', () => {
  it('accepts hostname:443 only', async () => {
    for (const bad of ['example.com', 'example.com:80', 'example.com:0', 'bad_host.com:443', ':443', 'example.com:443x']) {
      expect(errorOf(await create({ hostports: [bad] })), bad).toMatchObject({ code: 'invalid_hostport', field: 'hostports[0]' });
    }
    expect(errorOf(await create({ hostports: ['a.example.com:443', 'A.example.com:443'] }))).toMatchObject({
      code: 'invalid_hostport',
      field: 'hostports[1]',
    });
    expect(errorOf(await create({ hostports: 'a.example.com:443' }))).toMatchObject({ code: 'invalid_type', field: 'hostports' });
  });

  it('gives a hostport to at most one edge, HTTPS or TCP', async () => {
    const edge = (await create({ hostports: ['a.example.com:443'] })).body;
    expect(errorOf(await create({ hostports: ['A.example.com:443'] }))).toMatchObject({ code: 'hostport_in_use', field: 'hostports' });
    expect(errorOf(await h.call('POST', '/edges/tcp', { hostports: ['a.example.com:443'] })).code).toBe('hostport_in_use');
    expect((await h.call('POST', '/edges/tcp', { hostports: ['b.example.com:443'] })).status).toBe(201);
    expect(errorOf(await create({ hostports: ['b.example.com:443'] })).code).toBe('hostport_in_use');
    // an edge keeps its own hostports through a PATCH
    expect((await h.call('PATCH', `/edges/https/${edge.id}`, { hostports: ['a.example.com:443', 'c.example.com:443'] })).status).toBe(200);
    expect(errorOf(await h.call('PATCH', `/edges/https/${edge.id}`, { hostports: ['b.example.com:443'] })).code).toBe('hostport_in_use');
  });

  it('applies the TLS termination rules', async () => {
    expect(errorOf(await create({ tls_termination: { min_version: '1.4' } }))).toMatchObject({
      code: 'invalid_value',
      field: 'tls_termination.min_version',
    });
    expect(errorOf(await create({ tls_termination: { terminate_at: 'upstream', min_version: '1.2' } }))).toMatchObject({
      code: 'invalid_module',
      field: 'tls_termination.min_version',
    });
    expect(errorOf(await create({ tls_termination: { terminate_at: 'middle' } }))).toMatchObject({
      code: 'invalid_value',
      field: 'tls_termination.terminate_at',
    });
    expect((await create({ tls_termination: { terminate_at: 'upstream', min_version: null } })).status).toBe(201);
  });

  it('requires mutual TLS certificate authorities that exist', async () => {
    const policy = (await h.call('POST', '/ip_policies', {})).body.id;
    const ca = await newCa();
    expect(errorOf(await create({ mutual_tls: { certificate_authority_ids: [ca, 'ca_missing'] } }))).toMatchObject({
      code: 'invalid_reference',
      field: 'mutual_tls.certificate_authority_ids[1]',
    });
    expect(errorOf(await create({ mutual_tls: { certificate_authority_ids: [policy] } })).code).toBe('invalid_reference');
    expect(errorOf(await create({ mutual_tls: { enabled: true } }))).toMatchObject({
      code: 'missing_field',
      field: 'mutual_tls.certificate_authority_ids',
    });
    expect(errorOf(await create({ mutual_tls: { certificate_authority_ids: [ca], certificate_authorities: [] } })).code).toBe('unknown_field');
  });
});

describe('HTTPS edge modules: PUT/GET/DELETE', () => {
  it('replaces, reads and deletes mutual_tls and tls_termination on their own', async () => {
    const ca = await newCa();
    const edge = (await create({})).body;
    const base = `/edges/https/${edge.id}`;
    expect(errorOf(await h.call('GET', `${base}/mutual_tls`)).code).toBe('not_found');

    const mtls = await h.call('PUT', `${base}/mutual_tls`, { certificate_authority_ids: [ca] });
    expect(mtls.status).toBe(200);
    expect(mtls.body).toEqual({ enabled: true, certificate_authorities: [caRef(ca)] });
    expect((await h.call('GET', `${base}/mutual_tls`)).body).toEqual(mtls.body);

    const tls = await h.call('PUT', `${base}/tls_termination`, { min_version: '1.2' });
    expect(tls.body).toEqual({ enabled: true, terminate_at: 'edge', min_version: '1.2' });
    expect((await h.call('GET', base)).body).toMatchObject({ mutual_tls: mtls.body, tls_termination: tls.body });

    expect(errorOf(await h.call('PUT', `${base}/tls_termination`, { terminate_at: 'upstream', min_version: '1.2' })).code).toBe('invalid_module');
    expect((await h.call('GET', `${base}/tls_termination`)).body).toEqual(tls.body);

    expect((await h.call('DELETE', `${base}/mutual_tls`)).status).toBe(204);
    expect((await h.call('GET', base)).body).toMatchObject({ mutual_tls: null, tls_termination: tls.body });
    expect(errorOf(await h.call('GET', `${base}/mutual_tls`)).code).toBe('not_found');
    expect(errorOf(await h.call('PUT', '/edges/https/edghts_missing/tls_termination', {})).code).toBe('not_found');
  });
});
