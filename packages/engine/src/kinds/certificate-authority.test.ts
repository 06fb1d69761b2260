/** The CertificateAuthority descriptor: PEM compared by content, ca_pem immutable, calls. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { validateManifests } from '../engine.js';
import { canonicalJson } from '../identity/canonical-json.js';
import { descriptor } from './index.js';
import { canonicalPem } from './certificate-authority.js';

const PEM = readFileSync(new URL('../../test-fixtures/ca.pem', import.meta.url), 'utf8');
const d = descriptor('CertificateAuthority');

describe('CertificateAuthority', () => {
  test('the PEM compares by content: line endings, wrapping and surrounding blank lines do not matter', () => {
    const body = PEM.split('\n')
      .filter((l) => l && !l.startsWith('-----'))
      .join('');
    const rewrapped = `\n-----BEGIN CERTIFICATE-----\r\n${body.match(/.{1,76}/g)!.join('\r\n')}\r\n-----END CERTIFICATE-----\r\n\n`;
    expect(canonicalPem(rewrapped)).toBe(canonicalPem(PEM));
    expect(canonicalPem(PEM)).toBe(PEM);
    // A different certificate is a different value.
    expect(canonicalPem(PEM.replace('MIIBujCCAWCg', 'MIIBujCCAWCh'))).not.toBe(canonicalPem(PEM));
  });

  test('the live object, with the fields the server derives, has the normal form of its manifest', () => {
    const desired = d.fromManifest({ description: 'corp', ca_pem: PEM.trimEnd() }, 'corp-ca');
    const live = d.fromLive(
      {
        id: 'ca_1',
        uri: 'x',
        created_at: '2026-11-23T00:00:00Z',
        description: 'corp',
        metadata: '',
        ca_pem: PEM,
        subject_common_name: 'Gatehouse Fixture CA',
        not_before: '2026-11-23T02:24:47.000Z',
        not_after: '2126-10-30T02:24:47.000Z',
        key_usages: ['cert_sign'],
        extended_key_usages: [],
      },
      undefined,
    );
    expect(canonicalJson(live)).toBe(canonicalJson(desired));
    expect(d.immutable).toEqual(['ca_pem']);
    expect(d.sensitive).toEqual([]);
  });

  test('unnamed live authorities are labelled by their subject common name', () => {
    expect(d.label(d.fromLive({ ca_pem: PEM }, undefined))).toBe('Gatehouse Fixture CA');
    expect(d.label(d.fromLive({ ca_pem: PEM }, undefined), 'corp-ca')).toBe('corp-ca');
  });

  test('calls: POST with the PEM and the marker; PATCH description and metadata only; DELETE', () => {
    const normal = d.fromManifest({ ca_pem: PEM, description: 'corp' }, 'corp-ca');
    expect(d.calls.create(normal, { resolve: (t) => t, metadata: 'MARK' })).toEqual([
      { method: 'POST', path: '/certificate_authorities', body: { description: 'corp', metadata: 'MARK', ca_pem: PEM } },
    ]);
    const after = d.fromManifest({ ca_pem: PEM, description: 'corporate' }, 'corp-ca');
    expect(d.calls.update(normal, after, ['description'], { id: 'ca_1', resolve: (t) => t, metadata: 'MARK' })).toEqual([
      { method: 'PATCH', path: '/certificate_authorities/ca_1', body: { description: 'corporate', metadata: 'MARK' } },
    ]);
    expect(d.calls.delete(normal, { id: 'ca_1', resolve: (t) => t })).toEqual([{ method: 'DELETE', path: '/certificate_authorities/ca_1' }]);
  });
});

test('validate: a PEM that is not a certificate is reported at ca_pem, without echoing it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-ca-'));
  const key = '-----BEGIN PRIVATE KEY-----\n    c2VjcmV0LWtleQ==\n    -----END PRIVATE KEY-----';
  writeFileSync(
    join(dir, 'm.yaml'),
    `kind: CertificateAuthority\nname: bad\nspec:\n  ca_pem: |\n    ${key}\n---\nkind: CertificateAuthority\nname: good\nspec:\n  ca_pem: |\n${PEM.replace(/^/gm, '    ')}\n---\nkind: HTTPSEdge\nname: edge\nspec:\n  mutual_tls: {certificate_authorities: [good, {id: ca_unmanaged}, missing]}\n`,
  );
  const problems = await validateManifests({ paths: [dir] });
  expect(problems.map((p) => `${p.code}@${p.at!.line}:${p.at!.col}`)).toEqual(['ca_pem_invalid@4:11', 'reference_missing@30:68']);
  expect(problems[0]!.message).toContain('block 1 is a PRIVATE KEY, not a CERTIFICATE');
  expect(problems[0]!.message).not.toContain('c2VjcmV0');
});
