import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { certificateSerial, issueSigningCertificate } from './saml-certificate.js';

describe('the SAML request-signing certificate', () => {
  it.each([
    ['all zero', new Uint8Array(16)],
    ['a zero then a small octet', Uint8Array.from([0x00, 0x05, ...new Uint8Array(14).fill(0xaa)])],
    ['a sign bit set', new Uint8Array(16).fill(0xff)],
  ])("parses with OpenSSL whatever the serial's random bytes (%s)", (_, random) => {
    const pem = issueSigningCertificate('gatehouse test', new Date('2026-01-01T00:00:00Z'), random);
    const certificate = new X509Certificate(pem);
    expect(certificate.subject).toBe('CN=gatehouse test');
    expect(certificate.verify(certificate.publicKey)).toBe(true);
    expect(certificate.serialNumber).toHaveLength(32);
    expect(Number.parseInt(certificate.serialNumber.slice(0, 2), 16)).toBeGreaterThanOrEqual(0x40);
  });

  it("keeps the serial positive and minimal, and leaves the caller's bytes alone", () => {
    const random = Uint8Array.from([0x80, 0x00, 0x01]);
    expect([...certificateSerial(random)]).toEqual([0x40, 0x00, 0x01]);
    expect([...certificateSerial(Uint8Array.from([0x00]))]).toEqual([0x40]);
    expect([...certificateSerial(Uint8Array.from([0xff]))]).toEqual([0x7f]);
    expect(random[0]).toBe(0x80);
  });
});
