/**
 * Reads what a certificate authority's response shows from its PEM (api-spec 6.3
 * certificate_authority_* payload): subject common name, validity and key usages.
 *
 * node:crypto's X509Certificate parses and validates each certificate (OpenSSL's checks) and
 * gives the extended key usages; it does not expose the key usage bits (its `keyUsage` property
 * is the *extended* key usage list), so the KeyUsage extension and the subject name are read
 * with @peculiar/asn1-x509, the RFC 5280 ASN.1 schema that @peculiar/x509 is built on (used
 * directly to avoid that package's reflect-metadata global polyfill). Names follow the
 * service's snake_case convention (`cert_sign`, `client_auth`); an extended key usage without
 * a well-known name is given as its dotted OID. The PEM structure (CERTIFICATE blocks only)
 * is checked by `splitPemCertificates` of @gatehouse/schemas, which the engine shares.
 */
import { X509Certificate } from 'node:crypto';
import { AsnConvert } from '@peculiar/asn1-schema';
import { Certificate, KeyUsage, id_ce_keyUsage } from '@peculiar/asn1-x509';
import { splitPemCertificates } from '@gatehouse/schemas';

export interface CertificateInfo {
  subject_common_name: string;
  not_before: string;
  not_after: string;
  key_usages: string[];
  extended_key_usages: string[];
}

export type PemResult = { ok: true; info: CertificateInfo; count: number } | { ok: false; reason: string };

/** KeyUsage bits (RFC 5280 4.2.1.3) in the order of the standard, by their flag value. */
const KEY_USAGE_NAMES: readonly [number, string][] = [
  [1, 'digital_signature'],
  [2, 'content_commitment'],
  [4, 'key_encipherment'],
  [8, 'data_encipherment'],
  [16, 'key_agreement'],
  [32, 'cert_sign'],
  [64, 'crl_sign'],
  [128, 'encipher_only'],
  [256, 'decipher_only'],
];

const EXTENDED_KEY_USAGE_NAMES: Readonly<Record<string, string>> = {
  '2.5.29.37.0': 'any',
  '1.3.6.1.5.5.7.3.1': 'server_auth',
  '1.3.6.1.5.5.7.3.2': 'client_auth',
  '1.3.6.1.5.5.7.3.3': 'code_signing',
  '1.3.6.1.5.5.7.3.4': 'email_protection',
  '1.3.6.1.5.5.7.3.5': 'ipsec_end_system',
  '1.3.6.1.5.5.7.3.6': 'ipsec_tunnel',
  '1.3.6.1.5.5.7.3.7': 'ipsec_user',
  '1.3.6.1.5.5.7.3.8': 'time_stamping',
  '1.3.6.1.5.5.7.3.9': 'ocsp_signing',
};

const COMMON_NAME_OID = '2.5.4.3';

/**
 * Parses a PEM bundle of one or more certificates. The response describes the first one (the
 * authority itself; further certificates are its chain). A reason is returned for text that
 * is not PEM, for blocks other than CERTIFICATE (a private key is refused without being
 * echoed), and for certificates that do not parse.
 */
export function parseCaPem(pem: string): PemResult {
  const split = splitPemCertificates(pem);
  if (!split.ok) return split;
  const infos: CertificateInfo[] = [];
  for (const [index, der] of split.certificates.entries()) {
    const parsed = describe(der);
    if (typeof parsed === 'string') return { ok: false, reason: `block ${index + 1} is not a valid X.509 certificate (${parsed})` };
    infos.push(parsed);
  }
  return { ok: true, info: infos[0]!, count: infos.length };
}

/** The fields of one DER certificate, or why it does not parse. */
function describe(der: Buffer): CertificateInfo | string {
  let cert: X509Certificate;
  let asn: Certificate;
  try {
    cert = new X509Certificate(der);
    asn = AsnConvert.parse(der, Certificate);
  } catch (error) {
    return (error as Error).message.replace(/^error:[0-9A-F]+:/, '');
  }
  return {
    subject_common_name: commonName(asn),
    not_before: asn.tbsCertificate.validity.notBefore.getTime().toISOString(),
    not_after: asn.tbsCertificate.validity.notAfter.getTime().toISOString(),
    key_usages: keyUsages(asn),
    // node names the extended key usage OIDs `keyUsage`; undefined when the extension is absent.
    extended_key_usages: (cert.keyUsage ?? []).map((oid) => EXTENDED_KEY_USAGE_NAMES[oid] ?? oid),
  };
}

function commonName(cert: Certificate): string {
  for (const rdn of cert.tbsCertificate.subject) {
    for (const attribute of rdn) {
      if (attribute.type === COMMON_NAME_OID) return attribute.value.toString();
    }
  }
  return '';
}

function keyUsages(cert: Certificate): string[] {
  const extension = cert.tbsCertificate.extensions?.find((e) => e.extnID === id_ce_keyUsage);
  if (!extension) return [];
  const flags = AsnConvert.parse(extension.extnValue, KeyUsage).toNumber();
  return KEY_USAGE_NAMES.filter(([bit]) => (flags & bit) !== 0).map(([, name]) => name);
}
