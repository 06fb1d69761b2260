import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { errorOf, startHarness, TEST_BASE_URL, type Harness } from '../testing/harness.js';

let h: Harness;
let edgeId: string;
beforeEach(async () => {
  h = await startHarness();
  edgeId = (await h.call('POST', '/edges/https', {})).body.id;
});
afterEach(() => h.close());

const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
const MODULES = [
  'backend',
  'ip_restriction',
  'circuit_breaker',
  'compression',
  'request_headers',
  'response_headers',
  'webhook_verification',
  'oauth',
  'saml',
  'oidc',
  'websocket_tcp_converter',
  'user_agent_filter',
  'traffic_policy',
];
const routes = () => `/edges/https/${edgeId}/routes`;
const createRoute = (body: object, edge = edgeId) => h.call('POST', `/edges/https/${edge}/routes`, body);
const OIDC = { issuer: 'https://accounts.example.com', client_id: 'id', client_secret: 'oidc-secret' };
const SAML = { idp_metadata_url: 'https://idp.example.com/metadata' };
const OAUTH = { provider: { google: { email_domains: ['example.com'] } } };

describe('routes: create and get', () => {
  it('creates with the shape of api-spec 2.7: edge_id, every module null', async () => {
    const res = await createRoute({ match_type: 'path_prefix', match: '/' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      edge_id: edgeId,
      id: expect.stringMatching(/^edghtsrt_[0-9A-Za-z]{26}$/),
      created_at: expect.stringMatching(TIMESTAMP),
      match_type: 'path_prefix',
      match: '/',
      uri: `${TEST_BASE_URL}/edges/https/${edgeId}/routes/${res.body.id}`,
      ...Object.fromEntries(MODULES.map((name) => [name, null])),
    });
    expect((await h.call('GET', `${routes()}/${res.body.id}`)).body).toEqual(res.body);
  });

  it('takes description, metadata and any module on create', async () => {
    const policy = (await h.call('POST', '/ip_policies', {})).body.id;
    const backend = (await h.call('POST', '/backends/http_response', { body: 'hi', status_code: 200 })).body.id;
    const res = await createRoute({
      match_type: 'exact_path',
      match: '/api',
      description: 'api',
      metadata: '{"a":1}',
      backend: { backend_id: backend },
      ip_restriction: { ip_policy_ids: [policy] },
      compression: {},
      oidc: OIDC,
      traffic_policy: { value: 'on_http_request: []' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      description: 'api',
      metadata: '{"a":1}',
      backend: { enabled: true, backend: { id: backend, uri: `${TEST_BASE_URL}/backends/http_response/${backend}` } },
      ip_restriction: { enabled: true, ip_policies: [{ id: policy, uri: `${TEST_BASE_URL}/ip_policies/${policy}` }] },
      compression: { enabled: true },
      oidc: { ...OIDC, enabled: true, scopes: [] },
      traffic_policy: { enabled: true, value: 'on_http_request: []' },
      saml: null,
    });
    expect(errorOf(await createRoute({ match_type: 'path_prefix', match: '/x', backend: { backend_id: 'bkdhr_missing' } }))).toMatchObject({
      code: 'invalid_reference',
      field: 'backend.backend_id',
    });
  });

  it('answers 404 for an unknown edge, an unknown route, or a route of another edge', async () => {
    const route = (await createRoute({ match_type: 'path_prefix', match: '/' })).body;
    const other = (await h.call('POST', '/edges/https', {})).body.id;
    expect(errorOf(await createRoute({ match_type: 'path_prefix', match: '/' }, 'edghts_missing')).code).toBe('not_found');
    expect(errorOf(await h.call('GET', `${routes()}/edghtsrt_missing`)).code).toBe('not_found');
    expect(errorOf(await h.call('GET', `/edges/https/${other}/routes/${route.id}`)).code).toBe('not_found');
    expect(errorOf(await h.call('PATCH', `/edges/https/${other}/routes/${route.id}`, { description: 'x' })).code).toBe('not_found');
    expect(errorOf(await h.call('DELETE', `/edges/https/${other}/routes/${route.id}`)).code).toBe('not_found');
    expect(errorOf(await h.call('GET', `/edges/https/${other}/routes/${route.id}/oidc`)).code).toBe('not_found');
  });

  it('has no list endpoint of its own', async () => {
    expect(errorOf(await h.call('GET', routes())).code).toBe('route_not_found');
  });
});

describe('routes: validation', () => {
  it('requires match_type and match, with their allowed values', async () => {
    expect(errorOf(await createRoute({ match: '/' }))).toMatchObject({ code: 'missing_field', field: 'match_type' });
    expect(errorOf(await createRoute({ match_type: 'path_prefix' }))).toMatchObject({ code: 'missing_field', field: 'match' });
    expect(errorOf(await createRoute({ match_type: 'regex', match: '/' }))).toMatchObject({ code: 'invalid_value', field: 'match_type' });
    expect(errorOf(await createRoute({ match_type: 'path_prefix', match: '' }))).toMatchObject({ code: 'invalid_value', field: 'match' });
  });

  it('takes a path beginning with /, a host, or a host plus path', async () => {
    for (const bad of ['api', 'api/v1', 'bad_host.example.com', '-x.example.com/a']) {
      expect(errorOf(await createRoute({ match_type: 'path_prefix', match: bad })), bad).toMatchObject({
        code: 'invalid_value',
        field: 'match',
      });
    }
    for (const good of ['/api', 'example.com', 'shop.example.com/cart']) {
      expect((await createRoute({ match_type: 'path_prefix', match: good })).status, good).toBe(201);
    }
  });

  it('keeps match unique per edge', async () => {
    const first = (await createRoute({ match_type: 'path_prefix', match: '/a' })).body;
    expect(errorOf(await createRoute({ match_type: 'path_prefix', match: '/a' }))).toMatchObject({ code: 'duplicate_route', field: 'match' });
    expect(errorOf(await createRoute({ match_type: 'exact_path', match: '/a' })).code).toBe('duplicate_route');
    const other = (await h.call('POST', '/edges/https', {})).body.id;
    expect((await createRoute({ match_type: 'path_prefix', match: '/a' }, other)).status).toBe(201);
    const second = (await createRoute({ match_type: 'path_prefix', match: '/b' })).body;
    expect(errorOf(await h.call('PATCH', `${routes()}/${second.id}`, { match: '/a' })).code).toBe('duplicate_route');
    await h.call('DELETE', `${routes()}/${first.id}`);
    expect((await h.call('PATCH', `${routes()}/${second.id}`, { match: '/a' })).status).toBe(200);
  });

  it('allows at most one of saml, oidc and oauth enabled, on create, PATCH and PUT', async () => {
    const both = await createRoute({ match_type: 'path_prefix', match: '/', oidc: OIDC, saml: SAML });
    expect(errorOf(both)).toMatchObject({ code: 'invalid_module', field: 'saml' });
    expect(errorOf(both).msg).toContain('saml and oidc');
    const disabled = await createRoute({ match_type: 'path_prefix', match: '/', oidc: OIDC, saml: { ...SAML, enabled: false } });
    expect(disabled.status).toBe(201);
    const id = disabled.body.id;
    expect(errorOf(await h.call('PATCH', `${routes()}/${id}`, { saml: SAML }))).toMatchObject({ code: 'invalid_module', field: 'saml' });
    expect(errorOf(await h.call('PUT', `${routes()}/${id}/oauth`, OAUTH))).toMatchObject({ code: 'invalid_module', field: 'oauth' });
    expect((await h.call('PUT', `${routes()}/${id}/oauth`, { ...OAUTH, enabled: false })).status).toBe(200);
    // once oidc is gone, another identity module may be enabled
    expect((await h.call('DELETE', `${routes()}/${id}/oidc`)).status).toBe(204);
    expect((await h.call('PUT', `${routes()}/${id}/oauth`, OAUTH)).body.enabled).toBe(true);
    expect((await h.call('GET', `${routes()}/${id}`)).body).toMatchObject({ oidc: null, oauth: { enabled: true }, saml: { enabled: false } });
  });
});

describe('routes: OAuth only on the route / (the service error 7127)', () => {
  it('refuses OAuth elsewhere, with the module, on its own, or when the match moves away from /', async () => {
    const elsewhere = await createRoute({ match_type: 'path_prefix', match: '/oncall', oauth: OAUTH });
    expect(errorOf(elsewhere)).toMatchObject({ code: 'invalid_module', field: 'oauth' });
    expect(errorOf(elsewhere).msg).toContain("OAuth may be configured only on the route '/', not on '/oncall'");
    const other = (await createRoute({ match_type: 'path_prefix', match: '/oncall' })).body.id;
    expect(errorOf(await h.call('PUT', `${routes()}/${other}/oauth`, OAUTH))).toMatchObject({ code: 'invalid_module', field: 'oauth' });
    const root = await createRoute({ match_type: 'exact_path', match: '/', oauth: OAUTH });
    expect(root.status).toBe(201);
    expect(errorOf(await h.call('PATCH', `${routes()}/${root.body.id}`, { match: '/moved' }))).toMatchObject({ code: 'invalid_module', field: 'match' });
    expect((await h.call('GET', `${routes()}/${root.body.id}`)).body.match).toBe('/');
  });
});

describe('routes: update and delete', () => {
  it('PATCH leaves omitted fields and replaces a given module whole', async () => {
    const route = (
      await createRoute({
        match_type: 'path_prefix',
        match: '/',
        response_headers: { add: { 'X-A': '1' }, remove: ['server'] },
        compression: { enabled: false },
      })
    ).body;
    const described = await h.call('PATCH', `${routes()}/${route.id}`, { description: 'd', match_type: 'exact_path' });
    expect(described.status).toBe(200);
    expect(described.body).toEqual({ ...route, description: 'd', match_type: 'exact_path' });

    const replaced = await h.call('PATCH', `${routes()}/${route.id}`, { response_headers: { remove: ['x-powered-by'] } });
    expect(replaced.body.response_headers).toEqual({ enabled: true, add: {}, remove: ['x-powered-by'] });
    expect(replaced.body.compression).toEqual({ enabled: false });
    expect((await h.call('GET', `${routes()}/${route.id}`)).body).toEqual(replaced.body);
    expect((await h.call('GET', `/edges/https/${edgeId}`)).body.routes).toEqual([replaced.body]);
  });

  it('cannot remove a module by PATCH, and rejects an empty PATCH or read-only fields', async () => {
    const route = (await createRoute({ match_type: 'path_prefix', match: '/', compression: {} })).body;
    expect(errorOf(await h.call('PATCH', `${routes()}/${route.id}`, { compression: null }))).toMatchObject({
      code: 'invalid_type',
      field: 'compression',
    });
    expect((await h.call('PATCH', `${routes()}/${route.id}`, {})).status).toBe(200);
    expect(errorOf(await h.call('PATCH', `${routes()}/${route.id}`, { edge_id: edgeId })).code).toBe('unknown_field');
    expect((await h.call('GET', `${routes()}/${route.id}`)).body.compression).toEqual({ enabled: true });
  });

  it('deletes a route, which leaves its edge and frees its match', async () => {
    const route = (await createRoute({ match_type: 'path_prefix', match: '/' })).body;
    const deleted = await h.call('DELETE', `${routes()}/${route.id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBeUndefined();
    expect(errorOf(await h.call('GET', `${routes()}/${route.id}`)).code).toBe('not_found');
    expect((await h.call('GET', `/edges/https/${edgeId}`)).body.routes).toEqual([]);
    expect((await createRoute({ match_type: 'path_prefix', match: '/' })).status).toBe(201);
  });
});
