import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { errorOf, startHarness, TEST_BASE_URL, type Harness } from '../testing/harness.js';
import { FIXTURE_CA, FIXTURE_CA_FIELDS, generateTestCa, hasOpenssl } from '../testing/test-ca.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(() => h.close());

const ID = /^ca_[0-9A-Za-z]{26}$/;

describe('certificate authorities', () => {
  it('creates from PEM with the fields read from the certificate', async () => {
    const res = await h.call('POST', '/certificate_authorities', { ca_pem: FIXTURE_CA, description: 'corp' });
    expect(res.status).toBe(201);
    expect(res.body.id).toMatch(ID);
    expect(res.body).toEqual({
      id: res.body.id,
      uri: `${TEST_BASE_URL}/certificate_authorities/${res.body.id}`,
      created_at: res.body.created_at,
      description: 'corp',
      ca_pem: FIXTURE_CA,
      ...FIXTURE_CA_FIELDS,
    });
  });

  it.runIf(hasOpenssl())('describes a CA generated in the test', async () => {
    const { pem } = generateTestCa({
      commonName: 'Generated Client CA',
      keyUsage: ['keyCertSign', 'digitalSignature'],
      extendedKeyUsage: ['clientAuth'],
    });
    const res = await h.call('POST', '/certificate_authorities', { ca_pem: pem });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      subject_common_name: 'Generated Client CA',
      key_usages: ['digital_signature', 'cert_sign'],
      extended_key_usages: ['client_auth'],
    });
    expect(Date.parse(res.body.not_after)).toBeGreaterThan(Date.parse(res.body.not_before));
  });

  it('gets, lists, patches description and metadata only, and deletes', async () => {
    const { body: ca } = await h.call('POST', '/certificate_authorities', { ca_pem: FIXTURE_CA });
    expect((await h.call('GET', `/certificate_authorities/${ca.id}`)).body).toEqual(ca);
    const list = await h.call('GET', '/certificate_authorities');
    expect(list.body).toEqual({
      certificate_authorities: [ca],
      uri: `${TEST_BASE_URL}/certificate_authorities`,
      next_page_uri: null,
    });
    const patched = await h.call('PATCH', `/certificate_authorities/${ca.id}`, { metadata: '{"team":"sec"}' });
    expect(patched.body).toEqual({ ...ca, metadata: '{"team":"sec"}' });
    expect(errorOf(await h.call('PATCH', `/certificate_authorities/${ca.id}`, { ca_pem: FIXTURE_CA }))).toMatchObject({
      code: 'unknown_field',
      field: 'ca_pem',
    });
    expect((await h.call('DELETE', `/certificate_authorities/${ca.id}`)).status).toBe(204);
    expect(errorOf(await h.call('GET', `/certificate_authorities/${ca.id}`)).code).toBe('not_found');
  });

  it('answers 400 saying why the PEM is bad', async () => {
    const bad = async (ca_pem: string) => errorOf(await h.call('POST', '/certificate_authorities', { ca_pem }));
    expect(await bad('not a certificate')).toEqual({
      code: 'invalid_certificate',
      field: 'ca_pem',
      msg: 'ca_pem: no PEM block found; expected one or more -----BEGIN CERTIFICATE----- blocks.',
    });
    expect((await bad('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n')).msg).toMatch(
      /^ca_pem: block 1 is not a valid X\.509 certificate \(.+\)\.$/,
    );
    const key = '-----BEGIN PRIVATE KEY-----\nc2VjcmV0\n-----END PRIVATE KEY-----\n';
    const refused = await bad(key);
    expect(refused.msg).toBe('ca_pem: block 1 is a PRIVATE KEY, not a CERTIFICATE; send only certificates.');
    expect(JSON.stringify(refused)).not.toContain('c2VjcmV0');
    expect(errorOf(await h.call('POST', '/certificate_authorities', {}))).toMatchObject({ code: 'missing_field', field: 'ca_pem' });
    expect((await h.call('GET', '/certificate_authorities')).body.certificate_authorities).toEqual([]);
  });

  it('records certificate_authority_* audit events with the resource', async () => {
    const { body: ca } = await h.call('POST', '/certificate_authorities', { ca_pem: FIXTURE_CA });
    await h.call('PATCH', `/certificate_authorities/${ca.id}`, { description: 'x' });
    await h.call('DELETE', `/certificate_authorities/${ca.id}`);
    const events = h.app.audit.read();
    expect(events.map((e) => e.event_type)).toEqual([
      'certificate_authority_created.v0',
      'certificate_authority_updated.v0',
      'certificate_authority_deleted.v0',
    ]);
    expect(events[0]!.object).toEqual(ca);
  });
});
