import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { errorOf, startHarness, TEST_BASE_URL, type Harness } from '../testing/harness.js';
import { FIXTURE_CA } from '../testing/test-ca.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(() => h.close());

describe('TLS edges (/edges/tls)', () => {
  it('creates with every module null, renders given modules inline, and lists them', async () => {
    const empty = await h.call('POST', '/edges/tls', {});
    expect(empty.status).toBe(201);
    expect(empty.body).toEqual({
      id: expect.stringMatching(/^edgtls_/),
      uri: `${TEST_BASE_URL}/edges/tls/${empty.body.id}`,
      created_at: expect.any(String),
      hostports: [],
      backend: null,
      ip_restriction: null,
      mutual_tls: null,
      tls_termination: null,
      traffic_policy: null,
    });
    const backend = (await h.call('POST', '/backends/static', { address: '10.0.0.5:5432', tls: { enabled: true } })).body;
    expect(backend).toMatchObject({ id: expect.stringMatching(/^bkdsc_/), address: '10.0.0.5:5432', tls: { enabled: true } });
    const policy = (await h.call('POST', '/ip_policies', {})).body.id;
    const ca = (await h.call('POST', '/certificate_authorities', { ca_pem: FIXTURE_CA })).body.id;
    const full = await h.call('POST', '/edges/tls', {
      hostports: ['DB.example.com:443'],
      backend: { backend_id: backend.id },
      ip_restriction: { ip_policy_ids: [policy] },
      mutual_tls: { certificate_authority_ids: [ca] },
      tls_termination: { terminate_at: 'upstream' },
      traffic_policy: { value: '{}' },
    });
    expect(full.status).toBe(201);
    expect(full.body).toMatchObject({
      hostports: ['db.example.com:443'],
      backend: { enabled: true, backend: { id: backend.id, uri: `${TEST_BASE_URL}/backends/static/${backend.id}` } },
      ip_restriction: { enabled: true, ip_policies: [{ id: policy }] },
      mutual_tls: { enabled: true, certificate_authorities: [{ id: ca }] },
      tls_termination: { enabled: true, terminate_at: 'upstream', min_version: null },
      traffic_policy: { enabled: true, value: '{}' },
    });
    expect((await h.call('GET', '/edges/tls')).body.tls_edges.map((e: { id: string }) => e.id)).toEqual([full.body.id, empty.body.id]);
  });

  it('shares hostports with the other edges, replaces and deletes modules on their own, and deletes', async () => {
    await h.call('POST', '/edges/https', { hostports: ['api.example.com:443'] });
    expect(errorOf(await h.call('POST', '/edges/tls', { hostports: ['api.example.com:443'] })).code).toBe('hostport_in_use');
    const edge = (await h.call('POST', '/edges/tls', { hostports: ['db.example.com:443'] })).body;
    const put = await h.call('PUT', `/edges/tls/${edge.id}/tls_termination`, { min_version: '1.3' });
    expect(put.body).toEqual({ enabled: true, terminate_at: 'edge', min_version: '1.3' });
    expect(errorOf(await h.call('PUT', `/edges/tls/${edge.id}/tls_termination`, { terminate_at: 'upstream', min_version: '1.2' })).code).toBe('invalid_module');
    expect((await h.call('GET', `/edges/tls/${edge.id}`)).body.tls_termination).toEqual(put.body);
    expect((await h.call('DELETE', `/edges/tls/${edge.id}/tls_termination`)).status).toBe(204);
    expect((await h.call('PATCH', `/edges/tls/${edge.id}`, { description: 'db' })).body).toMatchObject({ description: 'db', tls_termination: null });
    expect((await h.call('DELETE', `/edges/tls/${edge.id}`)).status).toBe(204);
    expect(errorOf(await h.call('GET', `/edges/tls/${edge.id}`)).code).toBe('not_found');
  });
});

describe('static backends (/backends/static)', () => {
  it('defaults tls to disabled, checks the address, and can be patched', async () => {
    const res = await h.call('POST', '/backends/static', { address: 'app.internal:8080' });
    expect(res.body).toMatchObject({ address: 'app.internal:8080', tls: { enabled: false } });
    expect(errorOf(await h.call('POST', '/backends/static', { address: 'no-port' })).code).toBe('invalid_value');
    expect(errorOf(await h.call('POST', '/backends/static', { address: 'h:70000' })).code).toBe('invalid_value');
    expect(errorOf(await h.call('POST', '/backends/static', {})).code).toBe('missing_field');
    const patched = await h.call('PATCH', `/backends/static/${res.body.id}`, { tls: { enabled: true } });
    expect(patched.body).toMatchObject({ address: 'app.internal:8080', tls: { enabled: true } });
    // `tls: {}`, as the service's own examples send it: the default, disabled.
    expect((await h.call('PATCH', `/backends/static/${res.body.id}`, { tls: {} })).body.tls).toEqual({ enabled: false });
    const bare = await h.call('POST', '/backends/static', { address: 'db.internal:5432', tls: {} });
    expect(bare.body).toMatchObject({ id: expect.stringMatching(/^bkdsc_/), tls: { enabled: false } });
    expect((await h.call('GET', '/backends/static')).body.backends.map((b: { id: string }) => b.id)).toEqual([bare.body.id, res.body.id]);
    expect(errorOf(await h.call('GET', '/backends/static_address')).code).toBe('route_not_found');
  });
});
