/**
 * The request-signing certificate of a route's SAML service provider (api-spec 2.7,
 * `request_signing_certificate_pem`): a self-signed X.509 v3 certificate for a fresh ECDSA
 * P-256 key pair, issued when the module is written, as the service issues one per SAML
 * module. The reference server never signs SAML requests, so the private key is not kept.
 *
 * node:crypto makes keys and signatures but cannot build certificates; the certificate
 * structure is encoded with @peculiar/asn1-x509 (already used by `domain/x509.ts` to read
 * certificates), which keeps this free of a second X.509 library.
 */
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { AsnConvert } from '@peculiar/asn1-schema';
import {
  AlgorithmIdentifier,
  AttributeTypeAndValue,
  AttributeValue,
  Certificate,
  Name,
  RelativeDistinguishedName,
  SubjectPublicKeyInfo,
  TBSCertificate,
  Validity,
  Version,
} from '@peculiar/asn1-x509';

const COMMON_NAME_OID = '2.5.4.3';
const ECDSA_WITH_SHA256_OID = '1.2.840.10045.4.3.2';
const VALIDITY_YEARS = 10;

/** PEM of a new self-signed certificate whose subject common name is `commonName`. */
export function issueSigningCertificate(commonName: string, now = new Date()): string {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const name = new Name([
    new RelativeDistinguishedName([
      new AttributeTypeAndValue({ type: COMMON_NAME_OID, value: new AttributeValue({ utf8String: commonName }) }),
    ]),
  ]);
  const algorithm = new AlgorithmIdentifier({ algorithm: ECDSA_WITH_SHA256_OID });
  const serial = randomBytes(16);
  serial[0] = serial[0]! & 0x7f; // a positive INTEGER
  const notAfter = new Date(now);
  notAfter.setUTCFullYear(now.getUTCFullYear() + VALIDITY_YEARS);
  const tbs = new TBSCertificate({
    version: Version.v3,
    serialNumber: new Uint8Array(serial).buffer,
    signature: algorithm,
    issuer: name,
    subject: name,
    validity: new Validity({ notBefore: now, notAfter }),
    subjectPublicKeyInfo: AsnConvert.parse(publicKey.export({ type: 'spki', format: 'der' }), SubjectPublicKeyInfo),
  });
  const signature = sign('sha256', Buffer.from(AsnConvert.serialize(tbs)), { key: privateKey, dsaEncoding: 'der' });
  const der = Buffer.from(
    AsnConvert.serialize(
      new Certificate({ tbsCertificate: tbs, signatureAlgorithm: algorithm, signatureValue: new Uint8Array(signature).buffer }),
    ),
  );
  const lines = der.toString('base64').match(/.{1,64}/g)!;
  return `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`;
}
