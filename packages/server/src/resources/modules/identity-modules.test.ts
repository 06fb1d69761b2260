import { X509Certificate } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { errorOf, startHarness, TEST_BASE_URL, type Harness } from '../../testing/harness.js';

let h: Harness;
let edge: string;
let base: string;
let logs: string[];
beforeEach(async () => {
  logs = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      logs.push(String(chunk));
      done();
    },
  });
  h = await startHarness({ logger: { level: 'trace', stream } });
  edge = (await h.call('POST', '/edges/https', {})).body.id;
  const route = (await h.call('POST', `/edges/https/${edge}/routes`, { match_type: 'path_prefix', match: '/' })).body.id;
  base = `/edges/https/${edge}/routes/${route}`;
});
afterEach(() => h.close());

const put = (module: string, body: unknown) => h.call('PUT', `${base}/${module}`, body);
const ZERO_SESSION = { enabled: true, options_passthrough: false, cookie_prefix: '', inactivity_timeout: 0, maximum_duration: 0 };
const OIDC = { issuer: 'https://accounts.example.com', client_id: 'client-1', client_secret: 'oidc-secret-value' };

describe('OIDC (api-spec 2.4, 4.4)', () => {
  it('returns the zero values for omitted session settings, scopes [] and the client secret', async () => {
    const res = await put('oidc', OIDC);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...ZERO_SESSION, ...OIDC, scopes: [] });
  });

  it('echoes every given field', async () => {
    const full = {
      enabled: false,
      options_passthrough: true,
      cookie_prefix: 'GH.',
      inactivity_timeout: 3600,
      maximum_duration: 4_294_967_295,
      ...OIDC,
      scopes: ['openid', 'email'],
    };
    expect((await put('oidc', full)).body).toEqual(full);
  });

  it('requires issuer, client_id and client_secret, an http(s) issuer and uint32 durations', async () => {
    for (const field of ['issuer', 'client_id', 'client_secret'] as const) {
      const { [field]: _omitted, ...rest } = OIDC;
      expect(errorOf(await put('oidc', rest)), field).toMatchObject({ code: 'missing_field', field });
    }
    expect(errorOf(await put('oidc', { ...OIDC, issuer: 'accounts.example.com' }))).toMatchObject({
      code: 'invalid_value',
      field: 'oidc.issuer',
    });
    expect(errorOf(await put('oidc', { ...OIDC, inactivity_timeout: -1 }))).toMatchObject({
      code: 'invalid_value',
      field: 'inactivity_timeout',
    });
    expect(errorOf(await put('oidc', { ...OIDC, maximum_duration: 4_294_967_296 })).code).toBe('invalid_value');
  });
});

describe('OAuth', () => {
  it('uses a service-managed application when no credentials are given, with zero values', async () => {
    const managed = await put('oauth', { provider: { google: { email_domains: ['example.com'] } } });
    expect(managed.body).toEqual({
      ...ZERO_SESSION,
      provider: { google: { client_id: null, client_secret: null, scopes: [], email_addresses: [], email_domains: ['example.com'] } },
      auth_check_interval: 0,
    });
    // What it returns is accepted as input: null ids and scopes [] (the engine's normal form).
    const { provider, ...rest } = managed.body;
    expect((await put('oauth', { ...rest, provider })).body).toEqual(managed.body);
  });

  it('refuses the managed application with neither email_domains nor email_addresses', async () => {
    for (const google of [{}, { scopes: [] }, { client_id: null, client_secret: null, email_domains: [], email_addresses: [] }]) {
      const res = await put('oauth', { provider: { google } });
      expect(errorOf(res), JSON.stringify(google)).toMatchObject({ code: 'invalid_module', field: 'oauth.provider.google.email_domains' });
      expect(res.body.msg).toContain('needs email_domains or email_addresses');
    }
    const byAddress = await put('oauth', { provider: { amazon: { email_addresses: ['oncall@example.com'] } } });
    expect(byAddress.status).toBe(200);
  });

  it('echoes a provider with its own application, github teams and organizations', async () => {
    const github = {
      client_id: 'gh-id',
      client_secret: 'gh-secret',
      scopes: ['read:org'],
      email_addresses: ['a@example.com'],
      email_domains: ['example.com'],
      teams: ['acme/ops'],
      organizations: ['acme'],
    };
    const body = { enabled: false, cookie_prefix: 'x.', auth_check_interval: 300, provider: { github } };
    expect((await put('oauth', body)).body).toEqual({ ...ZERO_SESSION, ...body, provider: { github } });
    expect((await put('oauth', { provider: { github: { email_domains: ['example.com'] } } })).body.provider.github).toMatchObject({
      teams: [],
      organizations: [],
    });
    expect(errorOf(await put('oauth', { provider: { google: { teams: ['a/b'] } } })).code).toBe('unknown_field');
  });

  it('applies the provider credential rules', async () => {
    const cases: [object, string][] = [
      [{ client_id: 'id' }, 'oauth.provider.microsoft.client_secret'],
      [{ client_secret: 'oauth-secret-value' }, 'oauth.provider.microsoft.client_id'],
      [{ scopes: ['email'] }, 'oauth.provider.microsoft.scopes'],
    ];
    for (const [provider, field] of cases) {
      const res = await put('oauth', { provider: { microsoft: provider } });
      expect(errorOf(res), field).toMatchObject({ code: 'invalid_module', field });
      expect(res.body.msg).not.toContain('oauth-secret-value');
    }
    const ok = await put('oauth', { provider: { microsoft: { client_id: 'id', client_secret: 's', scopes: ['email'] } } });
    expect(ok.body.provider.microsoft).toMatchObject({ client_id: 'id', client_secret: 's', scopes: ['email'] });
  });

  it('takes exactly one known provider', async () => {
    expect(errorOf(await put('oauth', { provider: {} }))).toMatchObject({ code: 'invalid_module', field: 'oauth.provider' });
    expect(errorOf(await put('oauth', { provider: { google: { email_domains: ['a.com'] }, github: { email_domains: ['a.com'] } } })).code).toBe(
      'invalid_module',
    );
    expect(errorOf(await put('oauth', { provider: { okta: {} } }))).toMatchObject({ code: 'unknown_field', field: 'provider.okta' });
    expect(errorOf(await put('oauth', {}))).toMatchObject({ code: 'missing_field', field: 'provider' });
    expect(errorOf(await put('oauth', { provider: { google: {} }, auth_check_interval: -5 })).code).toBe('invalid_value');
  });
});

describe('SAML', () => {
  it('defaults nameid_format, authorized_groups and the booleans, and derives the SP URLs from the edge', async () => {
    const res = await put('saml', { idp_metadata: '<EntityDescriptor/>' });
    const sp = `${TEST_BASE_URL}${base}/saml`;
    expect(res.body).toEqual({
      ...ZERO_SESSION,
      idp_metadata: '<EntityDescriptor/>',
      force_authn: false,
      allow_idp_initiated: false,
      authorized_groups: [],
      entity_id: `${sp}/metadata`,
      assertion_consumer_service_url: `${sp}/acs`,
      single_logout_url: `${sp}/slo`,
      request_signing_certificate_pem: expect.stringMatching(/^-----BEGIN CERTIFICATE-----\n[\s\S]+-----END CERTIFICATE-----\n$/),
      metadata_url: `${sp}/metadata`,
      nameid_format: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
    });
    expect(res.body.entity_id).toContain(edge);
    const certificate = new X509Certificate(res.body.request_signing_certificate_pem);
    expect(certificate.subject).toBe('CN=gatehouse SAML service provider');
    expect(certificate.verify(certificate.publicKey)).toBe(true);
    expect(new Date(certificate.validTo).getTime()).toBeGreaterThan(Date.now());
    expect((await h.call('GET', `${base}/saml`)).body).toEqual(res.body);
    expect((await h.call('GET', `/edges/https/${edge}`)).body.routes[0].saml).toEqual(res.body);
  });

  it('echoes the given fields, idp_metadata_url included', async () => {
    const body = {
      idp_metadata_url: 'https://idp.example.com/metadata',
      force_authn: true,
      allow_idp_initiated: true,
      authorized_groups: ['admins'],
      nameid_format: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
      inactivity_timeout: 60,
    };
    expect((await put('saml', body)).body).toMatchObject({ ...body, idp_metadata: '' });
  });

  it('takes exactly one of idp_metadata and idp_metadata_url, and a known nameid_format', async () => {
    expect(errorOf(await put('saml', {}))).toMatchObject({ code: 'invalid_module', field: 'saml' });
    expect(errorOf(await put('saml', { idp_metadata: '<x/>', idp_metadata_url: 'https://idp.example.com/m' })).code).toBe('invalid_module');
    expect(errorOf(await put('saml', { idp_metadata_url: 'not a url' }))).toMatchObject({
      code: 'invalid_module',
      field: 'saml.idp_metadata_url',
    });
    expect(errorOf(await put('saml', { idp_metadata: '<x/>', nameid_format: 'email' }))).toMatchObject({
      code: 'invalid_value',
      field: 'nameid_format',
    });
    expect(errorOf(await put('saml', { idp_metadata: '<x/>', entity_id: 'https://sp' }))).toMatchObject({
      code: 'unknown_field',
      field: 'entity_id',
    });
  });
});

describe('secrets', () => {
  it('never appear in the log, whether the write succeeds or fails', async () => {
    await put('oidc', { ...OIDC, client_secret: 'oidc-secret-in-log?' });
    await put('oidc', { ...OIDC, client_secret: 'oidc-secret-in-log?', issuer: 'nope' });
    await h.call('DELETE', `${base}/oidc`);
    await put('oauth', { provider: { github: { client_id: 'i', client_secret: 'oauth-secret-in-log?' } } });
    await put('webhook_verification', { provider: 'slack', secret: 'webhook-secret-in-log?' });
    await put('webhook_verification', { provider: 'sns', secret: 'webhook-secret-in-log?' });
    expect(logs.length).toBeGreaterThan(0);
    expect(logs.join('')).not.toMatch(/secret-in-log/);
  });
});
