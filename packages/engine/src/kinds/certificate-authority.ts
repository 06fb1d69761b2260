/**
 * Certificate authorities (`/certificate_authorities`; api-spec 2.7 mutual TLS, 6.3): the CAs
 * that HTTPS edges' mutual TLS names. Only description and metadata can be updated, so a
 * changed `ca_pem` replaces the authority. The PEM is compared by content: each certificate's
 * DER re-encoded in the standard 64-column form, so line endings, wrapping and surrounding
 * whitespace (a YAML `|` versus `|-`) never show as a change. The fields the server reads from
 * the certificate (subject_common_name, validity, key usages) are derived, not compared.
 * Validate checks the PEM with the same code as the server (`caPemProblem` of @gatehouse/schemas:
 * CERTIFICATE blocks only, each parsed by node's X509Certificate).
 */
import { X509Certificate } from 'node:crypto';
import { caPemProblem, splitPemCertificates } from '@gatehouse/schemas/runtime';
import { problem } from '../problems.js';
import { collectionCalls, commonBody, commonFields } from './shared.js';
import type { KindDescriptor } from './types.js';

/** The canonical text of a PEM bundle; text that is not a bundle is only trimmed (validate reports it). */
export function canonicalPem(pem: unknown): string {
  const text = String(pem ?? '');
  const split = splitPemCertificates(text);
  if (!split.ok) return text.trim();
  // Base64 of 64 characters a line: a line break after every 64 that more follow.
  return split.certificates
    .map((der) => `-----BEGIN CERTIFICATE-----\n${der.toString('base64').replace(/.{64}(?=.)/g, '$&\n')}\n-----END CERTIFICATE-----\n`)
    .join('');
}

/** The subject common name of the first certificate, for labels of objects without a name. */
function commonName(pem: string): string | undefined {
  const split = splitPemCertificates(pem);
  if (!split.ok || split.certificates.length === 0) return undefined;
  try {
    const subject = new X509Certificate(split.certificates[0]!).subject;
    return /^CN=(.*)$/m.exec(subject)?.[1];
  } catch {
    return undefined;
  }
}

export const certificateAuthority: KindDescriptor = {
  kind: 'CertificateAuthority',
  policyName: 'ca',
  title: 'certificate authority',
  manifestKind: 'CertificateAuthority',
  observe: { lists: [{ path: '/certificate_authorities', listKey: 'certificate_authorities' }] },
  metadata: true,
  fromManifest: (spec) => ({ ...commonFields(spec), ca_pem: canonicalPem(spec.ca_pem) }),
  fromLive: (live) => ({ ...commonFields(live), ca_pem: canonicalPem(live.ca_pem) }),
  refs: [],
  sensitive: [],
  immutable: ['ca_pem'],
  label: (normal, name) => name ?? commonName(String(normal.ca_pem)) ?? String(normal.description ?? 'certificate authority'),
  check: (normal, ctx) => {
    const reason = caPemProblem(String(ctx.manifest?.ca_pem ?? normal.ca_pem));
    return reason ? [problem('ca_pem_invalid', `ca_pem: ${reason}; give the authority's certificate(s) in PEM form`, ctx.at(['ca_pem']))] : [];
  },
  calls: collectionCalls(
    '/certificate_authorities',
    (normal, ctx) => ({ ...commonBody(normal, ctx), ca_pem: normal.ca_pem }),
    (after, changed, ctx) => commonBody(after, ctx, changed),
  ),
};
