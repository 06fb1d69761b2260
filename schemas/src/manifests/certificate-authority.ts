/**
 * The CertificateAuthority manifest: a CA that HTTPS edges' mutual TLS names
 * (`mutual_tls.certificate_authorities: [corp-ca]`). `ca_pem` is the API's own field (one or
 * more PEM certificates, usually a YAML block scalar `|`); it cannot be updated, so a changed
 * PEM replaces the authority. The fields the server reads from the certificate are not written.
 */
import { Type } from '@sinclair/typebox';
import { Description, Metadata, Strict } from '../common.js';
import { CaPem } from '../api/certificate-authorities.js';
import { ManifestDocument } from './common.js';

export const CertificateAuthoritySpec = Strict({
  description: Type.Optional(Description),
  metadata: Type.Optional(Metadata),
  ca_pem: CaPem,
});
export const CertificateAuthorityManifest = ManifestDocument(
  'CertificateAuthority',
  CertificateAuthoritySpec,
  'a certificate authority (PEM) for mutual TLS; a changed ca_pem replaces it',
);
