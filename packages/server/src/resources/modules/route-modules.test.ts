import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { errorOf, startHarness, type Harness } from '../../testing/harness.js';

let h: Harness;
let base: string;
let routePath: string;
beforeEach(async () => {
  h = await startHarness();
  const edge = (await h.call('POST', '/edges/https', {})).body.id;
  const route = (await h.call('POST', `/edges/https/${edge}/routes`, { match_type: 'path_prefix', match: '/' })).body.id;
  routePath = `/edges/https/${edge}/routes/${route}`;
  base = routePath;
});
afterEach(() => h.close());

const put = (module: string, body: unknown) => h.call('PUT', `${base}/${module}`, body);

/** A valid body for each of the thirteen route modules, built against live objects. */
async function validBodies(): Promise<Record<string, object>> {
  const policy = (await h.call('POST', '/ip_policies', {})).body.id;
  const backend = (await h.call('POST', '/backends/tunnel_group', { labels: { app: 'web' } })).body.id;
  return {
    backend: { backend_id: backend },
    ip_restriction: { ip_policy_ids: [policy] },
    circuit_breaker: { error_threshold_percentage: 0.5 },
    compression: {},
    request_headers: { add: { 'X-Req': '1' } },
    response_headers: { remove: ['server'] },
    webhook_verification: { provider: 'github', secret: 'whsec' },
    oauth: { provider: { github: { organizations: ['acme'], email_domains: ['example.com'] } } },
    saml: { idp_metadata: '<EntityDescriptor/>' },
    oidc: { issuer: 'https://issuer.example.com', client_id: 'c', client_secret: 's' },
    websocket_tcp_converter: {},
    user_agent_filter: { deny: ['curl/.*'] },
    traffic_policy: { value: 'on_http_request: []' },
  };
}

describe('route modules: PUT/GET/DELETE of each module', () => {
  it('replaces, reads and deletes every one of the thirteen modules, shown inline in the route', async () => {
    const bodies = await validBodies();
    expect(Object.keys(bodies)).toHaveLength(13);
    for (const [name, body] of Object.entries(bodies)) {
      expect(errorOf(await h.call('GET', `${base}/${name}`)).code, name).toBe('not_found');
      const replaced = await put(name, body);
      expect(replaced.status, name).toBe(200);
      expect(replaced.body.enabled, `${name} enabled defaults to true`).toBe(true);
      expect((await h.call('GET', `${base}/${name}`)).body, name).toEqual(replaced.body);
      expect((await h.call('GET', routePath)).body[name], name).toEqual(replaced.body);

      const off = await put(name, { ...body, enabled: false });
      expect(off.body.enabled, name).toBe(false);

      const deleted = await h.call('DELETE', `${base}/${name}`);
      expect(deleted.status, name).toBe(204);
      expect(errorOf(await h.call('GET', `${base}/${name}`)).code, name).toBe('not_found');
      expect((await h.call('GET', routePath)).body[name], name).toBeNull();
    }
  });

  it('rejects unknown fields and a missing body, and answers 404 for an unknown route', async () => {
    expect(errorOf(await put('compression', { enabled: true, level: 9 }))).toMatchObject({ code: 'unknown_field', field: 'level' });
    expect(errorOf(await put('compression', 'null')).code).toBe('missing_body');
    base = routePath.replace(/edghtsrt_\w+$/, 'edghtsrt_missing');
    expect(errorOf(await put('compression', {})).code).toBe('not_found');
  });
});

describe('circuit breaker', () => {
  it('fills omitted numbers with 0 and echoes the given ones', async () => {
    expect((await put('circuit_breaker', {})).body).toEqual({
      enabled: true,
      tripped_duration: 0,
      rolling_window: 0,
      num_buckets: 0,
      volume_threshold: 0,
      error_threshold_percentage: 0,
    });
    const full = {
      enabled: false,
      tripped_duration: 30,
      rolling_window: 4_294_967_295,
      num_buckets: 128,
      volume_threshold: 20,
      error_threshold_percentage: 1,
    };
    expect((await put('circuit_breaker', full)).body).toEqual(full);
  });

  it('enforces num_buckets 0..128 (0, what an unset one reads back as), error_threshold_percentage 0..1 and uint32 ranges', async () => {
    expect((await put('circuit_breaker', { num_buckets: 0 })).body.num_buckets).toBe(0);
    const cases: [object, string, string][] = [
      [{ num_buckets: -1 }, 'invalid_value', 'num_buckets'],
      [{ num_buckets: 129 }, 'invalid_value', 'num_buckets'],
      [{ error_threshold_percentage: 1.5 }, 'invalid_value', 'error_threshold_percentage'],
      [{ error_threshold_percentage: 50 }, 'invalid_value', 'error_threshold_percentage'],
      [{ error_threshold_percentage: -0.1 }, 'invalid_value', 'error_threshold_percentage'],
      [{ tripped_duration: -1 }, 'invalid_value', 'tripped_duration'],
      [{ rolling_window: 4_294_967_296 }, 'invalid_value', 'rolling_window'],
      [{ volume_threshold: 1.5 }, 'invalid_type', 'volume_threshold'],
      [{ tripped_duration: '30' }, 'invalid_type', 'tripped_duration'],
    ];
    for (const [body, code, field] of cases) {
      expect(errorOf(await put('circuit_breaker', body)), JSON.stringify(body)).toMatchObject({ code, field });
    }
  });
});

describe('request and response headers', () => {
  it('lowercases header names in add and returns remove [] when not given', async () => {
    for (const name of ['request_headers', 'response_headers']) {
      expect((await put(name, { add: { 'X-Frame-Options': 'DENY', 'content-type': 'text/plain' } })).body).toEqual({
        enabled: true,
        add: { 'x-frame-options': 'DENY', 'content-type': 'text/plain' },
        remove: [],
      });
      expect((await put(name, {})).body).toEqual({ enabled: true, add: {}, remove: [] });
      expect((await put(name, { remove: ['Server'] })).body.remove).toEqual(['Server']);
    }
  });

  it('rejects names given twice in different case and names that are not header tokens', async () => {
    expect(errorOf(await put('response_headers', { add: { 'X-A': '1', 'x-a': '2' } }))).toMatchObject({
      code: 'invalid_module',
      field: 'response_headers.add',
    });
    expect(errorOf(await put('request_headers', { add: { 'bad header': '1' } })).code).toBe('invalid_value');
    expect(errorOf(await put('request_headers', { remove: ['bad:header'] })).code).toBe('invalid_value');
    expect(errorOf(await put('request_headers', { add: { 'x-a': 1 } })).code).toBe('invalid_type');
  });
});

describe('webhook verification', () => {
  it('matches the provider case-insensitively and returns its lowercase id with the secret', async () => {
    expect((await put('webhook_verification', { provider: 'GitHub', secret: 'whsec_1' })).body).toEqual({
      enabled: true,
      provider: 'github',
      secret: 'whsec_1',
    });
    expect((await put('webhook_verification', { provider: 'SNS' })).body).toEqual({ enabled: true, provider: 'sns', secret: '' });
  });

  it("accepts the documentation's provider ids and refuses ids it does not list", async () => {
    for (const provider of [
      'aftership',
      'autodesk',
      'brex',
      'go1',
      'graphcms',
      'heroku',
      'hostedhooks',
      'instagram',
      'microsoft_teams',
      'signal_sciences',
      'terraform',
      'worldline',
      'alchemy',
      'jira',
      'sonatype_nexus',
    ]) {
      expect((await put('webhook_verification', { provider, secret: 's' })).status, provider).toBe(200);
    }
    for (const provider of ['autodesk_forge', 'hosted_hooks', 'terraform_cloud', 'instagram_graph_api', 'linear', 'workos']) {
      expect(errorOf(await put('webhook_verification', { provider, secret: 's' })).code, provider).toBe('invalid_value');
    }
  });

  it('rejects unknown providers, a missing secret, and a secret for sns (without echoing it)', async () => {
    expect(errorOf(await put('webhook_verification', { provider: 'myspace', secret: 'x' }))).toMatchObject({
      code: 'invalid_value',
      field: 'webhook_verification.provider',
    });
    expect(errorOf(await put('webhook_verification', { secret: 'x' }))).toMatchObject({ code: 'missing_field', field: 'provider' });
    for (const body of [{ provider: 'stripe' }, { provider: 'stripe', secret: '' }]) {
      expect(errorOf(await put('webhook_verification', body))).toMatchObject({
        code: 'invalid_module',
        field: 'webhook_verification.secret',
      });
    }
    const sns = await put('webhook_verification', { provider: 'sns', secret: 'do-not-echo-me' });
    expect(errorOf(sns)).toMatchObject({ code: 'invalid_module', field: 'webhook_verification.secret' });
    expect(JSON.stringify(sns.body)).not.toContain('do-not-echo-me');
  });
});

describe('user agent filter, compression and websocket converter', () => {
  it('fills allow and deny with [] and echoes the given lists', async () => {
    expect((await put('user_agent_filter', {})).body).toEqual({ enabled: true, allow: [], deny: [] });
    expect((await put('user_agent_filter', { enabled: false, allow: ['Mozilla/.*'], deny: ['curl'] })).body).toEqual({
      enabled: false,
      allow: ['Mozilla/.*'],
      deny: ['curl'],
    });
    expect(errorOf(await put('user_agent_filter', { allow: 'curl' }))).toMatchObject({ code: 'invalid_type', field: 'allow' });
  });

  it('carries only enabled', async () => {
    for (const name of ['compression', 'websocket_tcp_converter']) {
      expect((await put(name, {})).body).toEqual({ enabled: true });
      expect((await put(name, { enabled: false })).body).toEqual({ enabled: false });
      expect(errorOf(await put(name, { enabled: 'yes' }))).toMatchObject({ code: 'invalid_type', field: 'enabled' });
    }
  });
});
