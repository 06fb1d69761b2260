/**
 * Certificate authorities for tests. `generateTestCa` makes a fresh self-signed CA with
 * `openssl req -x509` (node:crypto cannot self-sign) with the common name, key usages and
 * extended key usages asked for; where openssl is not installed it returns `FIXTURE_CA`, a CA
 * generated once with openssl and committed here, whose fields `FIXTURE_CA_FIELDS` states.
 * The private key never leaves the temporary directory, which is removed.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * `openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -days 36500
 *  -subj "/CN=Gatehouse Fixture CA" -addext basicConstraints=critical,CA:TRUE
 *  -addext keyUsage=critical,keyCertSign,cRLSign -addext extendedKeyUsage=clientAuth`
 */
export const FIXTURE_CA = `-----BEGIN CERTIFICATE-----
MIIBujCCAWCgAwIBAgIUPilObHA7SBO50NBjmyaWlFxPFAswCgYIKoZIzj0EAwIw
HzEdMBsGA1UEAwwUR2F0ZWhvdXNlIEZpeHR1cmUgQ0EwIBcNMjYxMTIzMDIyNDQ3
WhgPMjEyNjEwMzAwMjI0NDdaMB8xHTAbBgNVBAMMFEdhdGVob3VzZSBGaXh0dXJl
IENBMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEyThs4eaM5/yt5Zc5c9VtBr7R
2ZMrLugwpAOSy4YnYwY5VvYxIhdiLJrzg7JHekhT8c0LAXhM20yvqTOyTmojZqN4
MHYwHQYDVR0OBBYEFAMIPi/+6ZI+pWTnQUVOJt+PTW4gMB8GA1UdIwQYMBaAFAMI
Pi/+6ZI+pWTnQUVOJt+PTW4gMA8GA1UdEwEB/wQFMAMBAf8wDgYDVR0PAQH/BAQD
AgEGMBMGA1UdJQQMMAoGCCsGAQUFBwMCMAoGCCqGSM49BAMCA0gAMEUCIQDGmO5e
MjbaIuqTDCoxFvqAcwV1yuXK+qHr/xv4vpCJbQIgfgrgZtMMhFJD88ynySlBsZSo
3RFqVa1lcnBFykcgd4U=
-----END CERTIFICATE-----
`;

export const FIXTURE_CA_FIELDS = {
  subject_common_name: 'Gatehouse Fixture CA',
  not_before: '2026-11-23T02:24:47.000Z',
  not_after: '2126-10-30T02:24:47.000Z',
  key_usages: ['cert_sign', 'crl_sign'],
  extended_key_usages: ['client_auth'],
};

export interface TestCaRequest {
  commonName?: string;
  /** openssl names, e.g. ['keyCertSign', 'cRLSign', 'digitalSignature']. */
  keyUsage?: string[];
  /** openssl names, e.g. ['clientAuth', 'serverAuth']. */
  extendedKeyUsage?: string[];
  days?: number;
}

export interface TestCa {
  pem: string;
  /** False when openssl was missing and the fixture was returned instead. */
  generated: boolean;
}

export function hasOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export function generateTestCa(request: TestCaRequest = {}): TestCa {
  if (!hasOpenssl()) return { pem: FIXTURE_CA, generated: false };
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-ca-'));
  try {
    const out = join(dir, 'ca.pem');
    const args = [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      out,
      '-days',
      String(request.days ?? 30),
      '-subj',
      `/CN=${request.commonName ?? 'Gatehouse Test CA'}`,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
    ];
    if (request.keyUsage) args.push('-addext', `keyUsage=critical,${request.keyUsage.join(',')}`);
    if (request.extendedKeyUsage) args.push('-addext', `extendedKeyUsage=${request.extendedKeyUsage.join(',')}`);
    execFileSync('openssl', args, { stdio: 'ignore' });
    return { pem: readFileSync(out, 'utf8'), generated: true };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
