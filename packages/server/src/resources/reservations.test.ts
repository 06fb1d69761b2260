import { afterEach, describe, expect, it } from 'vitest';
import { errorOf, startHarness, TEST_BASE_URL, type Harness } from '../testing/harness.js';

let h: Harness;
afterEach(() => h.close());

describe('reserved domains (/reserved_domains)', () => {
  it('creates with the server-filled fields, keeps the domain unique, and records domain_* audit events', async () => {
    h = await startHarness();
    const res = await h.call('POST', '/reserved_domains', { domain: 'API.example.com', description: 'public' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^rd_/),
      uri: `${TEST_BASE_URL}/reserved_domains/${res.body.id}`,
      created_at: expect.any(String),
      description: 'public',
      domain: 'api.example.com',
      region: null,
      cname_target: expect.stringMatching(/\.cname\./),
      acme_challenge_cname_target: null,
      certificate_management_policy: { authority: 'letsencrypt', private_key_type: 'rsa' },
    });
    const wildcard = await h.call('POST', '/reserved_domains', { domain: '*.example.com', certificate_management_policy: { private_key_type: 'ecdsa' } });
    expect(wildcard.body.acme_challenge_cname_target).toEqual(expect.any(String));
    expect(wildcard.body.certificate_management_policy.private_key_type).toBe('ecdsa');
    expect(errorOf(await h.call('POST', '/reserved_domains', { domain: 'api.example.com' })).code).toBe('duplicate_name');
    expect(errorOf(await h.call('POST', '/reserved_domains', { domain: 'not a domain' })).code).toBe('invalid_value');
    expect(errorOf(await h.call('PATCH', `/reserved_domains/${res.body.id}`, { domain: 'other.example.com' })).code).toBe('unknown_field');
    const patched = await h.call('PATCH', `/reserved_domains/${res.body.id}`, { description: 'd' });
    expect(patched.body).toEqual({ ...res.body, description: 'd' });
    expect((await h.call('GET', '/reserved_domains')).body.reserved_domains).toHaveLength(2);
    expect(h.app.audit.read().map((e) => e.event_type)).toEqual(['domain_created.v0', 'domain_created.v0', 'domain_updated.v0']);
  });

  it("takes the deprecated region on create and echoes it, never changes it, and gives the service's own subdomains no CNAME targets", async () => {
    h = await startHarness();
    const own = await h.call('POST', '/reserved_domains', { domain: 'gslb-demo.ngrok.app', region: 'eu' });
    expect(own.body).toMatchObject({ domain: 'gslb-demo.ngrok.app', region: 'eu', cname_target: null, acme_challenge_cname_target: null });
    const ownWildcard = await h.call('POST', '/reserved_domains', { domain: '*.team.ngrok.dev' });
    expect(ownWildcard.body).toMatchObject({ region: null, cname_target: null, acme_challenge_cname_target: null });
    // A custom domain that merely ends like one still needs its record.
    expect((await h.call('POST', '/reserved_domains', { domain: 'notngrok.app' })).body.cname_target).toEqual(expect.any(String));
    expect(errorOf(await h.call('PATCH', `/reserved_domains/${own.body.id}`, { region: 'us' })).code).toBe('unknown_field');
    expect(errorOf(await h.call('POST', '/reserved_domains', { domain: 'x.example.com', region: 'mars' })).code).toBe('invalid_value');
  });
});

describe('reserved TCP addresses (/reserved_addrs)', () => {
  it('assigns the address (read-only, as the service does), in region us unless given, with tcp_address_* events', async () => {
    h = await startHarness();
    const assigned = await h.call('POST', '/reserved_addrs', {});
    expect(assigned.status).toBe(201);
    expect(assigned.body).toMatchObject({ id: expect.stringMatching(/^ra_/), region: 'us', addr: expect.stringMatching(/^[0-9]\.tcp\.us\.[a-z.]+:[0-9]+$/) });
    const named = await h.call('POST', '/reserved_addrs', { region: 'eu' });
    expect(named.body).toMatchObject({ addr: expect.stringMatching(/\.tcp\.eu\./), region: 'eu' });
    expect(errorOf(await h.call('POST', '/reserved_addrs', { addr: '1.tcp.example.com:20022' }))).toMatchObject({ code: 'unknown_field', field: 'addr' });
    expect(errorOf(await h.call('PATCH', `/reserved_addrs/${named.body.id}`, { addr: '2.tcp.example.com:1' })).code).toBe('unknown_field');
    expect(h.app.audit.read().map((e) => e.event_type)).toEqual(['tcp_address_created.v0', 'tcp_address_created.v0']);
  });
});

describe('the reservation check (as the service; off with reservationCheck: false)', () => {
  it('refuses edge hostports that no reservation covers, saying to reserve them', async () => {
    h = await startHarness({ reservationCheck: true });
    const refused = await h.call('POST', '/edges/https', { hostports: ['app.example.com:443'] });
    expect(errorOf(refused)).toMatchObject({ code: 'invalid_hostport', field: 'hostports[0]' });
    expect(refused.body.msg).toContain("'app.example.com' is not a reserved domain; reserve it first");
    expect(errorOf(await h.call('POST', '/edges/tls', { hostports: ['db.example.com:443'] })).code).toBe('invalid_hostport');
    const tcp = await h.call('POST', '/edges/tcp', { hostports: ['1.tcp.example.com:20022'] });
    expect(tcp.body.msg).toContain('is not a reserved TCP address; reserve it first');

    await h.call('POST', '/reserved_domains', { domain: '*.example.com' });
    await h.call('POST', '/reserved_domains', { domain: 'example.org' });
    const { addr } = (await h.call('POST', '/reserved_addrs', {})).body;
    expect((await h.call('POST', '/edges/https', { hostports: ['App.example.com:443', 'example.org:443'] })).status).toBe(201);
    expect((await h.call('POST', '/edges/tls', { hostports: ['db.example.com:443'] })).status).toBe(201);
    expect((await h.call('POST', '/edges/tcp', { hostports: [addr] })).status).toBe(201);
    // a wildcard covers one label only
    expect(errorOf(await h.call('POST', '/edges/https', { hostports: ['a.b.example.com:443'] })).code).toBe('invalid_hostport');
    expect(errorOf(await h.call('POST', '/edges/tcp', { hostports: ['1.tcp.example.com:20023'] })).code).toBe('invalid_hostport');
  });

  it('is off with reservationCheck: false (serve --no-reservation-check), the test harness default', async () => {
    h = await startHarness();
    expect((await h.call('POST', '/edges/https', { hostports: ['app.example.com:443'] })).status).toBe(201);
    expect((await h.call('POST', '/edges/tcp', { hostports: ['1.tcp.example.com:20022'] })).status).toBe(201);
  });
});
