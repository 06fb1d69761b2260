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

/**
 * The serial number's DER content octets from random bytes: a positive INTEGER (RFC 5280 4.1.2.2)
 * in minimal form. The first octet is forced into 0x40-0x7f: clearing only the sign bit would
 * leave a leading 0x00 before an octet below 0x80 in about one certificate of 256, a padded
 * INTEGER that OpenSSL rejects ("illegal padding") and that the asn1 encoder does not trim.
 */
export function certificateSerial(random: Uint8Array): Uint8Array<ArrayBuffer> {
  const serial = new Uint8Array(random);
  serial[0] = 0x40 | (serial[0]! & 0x3f);
  return serial;
}

/**
 * PEM of a new self-signed certificate whose subject common name is `commonName`. `random` is the
 * serial's 16 random bytes, a parameter so that tests can give the unlucky ones.
 */
export function issueSigningCertificate(commonName: string, now = new Date(), random: Uint8Array = randomBytes(16)): string {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const name = new Name([
    new RelativeDistinguishedName([new AttributeTypeAndValue({ type: COMMON_NAME_OID, value: new AttributeValue({ utf8String: commonName }) })]),
  ]);
  const algorithm = new AlgorithmIdentifier({ algorithm: ECDSA_WITH_SHA256_OID });
  const serial = certificateSerial(random);
  const notAfter = new Date(now);
  notAfter.setUTCFullYear(now.getUTCFullYear() + VALIDITY_YEARS);
  const tbs = new TBSCertificate({
    version: Version.v3,
    serialNumber: serial.buffer,
    signature: algorithm,
    issuer: name,
    subject: name,
    validity: new Validity({ notBefore: now, notAfter }),
    subjectPublicKeyInfo: AsnConvert.parse(publicKey.export({ type: 'spki', format: 'der' }), SubjectPublicKeyInfo),
  });
  const signature = sign('sha256', Buffer.from(AsnConvert.serialize(tbs)), { key: privateKey, dsaEncoding: 'der' });
  const der = Buffer.from(
    AsnConvert.serialize(new Certificate({ tbsCertificate: tbs, signatureAlgorithm: algorithm, signatureValue: new Uint8Array(signature).buffer })),
  );
  const lines = der.toString('base64').match(/.{1,64}/g)!;
  return `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`;
}
