/**
 * Certificate authorities (api-spec 2.7 mutual TLS, 6.3 certificate_authority_* payload).
 * Created from `ca_pem` (one or more PEM certificates); the server reads the other response
 * fields from the certificate itself. Only description and metadata can change afterwards.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Description, Metadata, Strict, Timestamp, listEnvelope, resourceBase, UpdateBody } from '../common.js';

/** Largest PEM bundle accepted: room for a long chain, far below the body limit. */
export const CA_PEM_MAX_BYTES = 65_536;

export const CaPem = Type.String({
  minLength: 1,
  maxLength: CA_PEM_MAX_BYTES,
  maxBytes: CA_PEM_MAX_BYTES,
  description: 'one or more PEM-encoded X.509 certificates (-----BEGIN CERTIFICATE----- blocks)',
});

export const CertificateAuthorityCreate = Strict({
  description: Type.Optional(Description),
  metadata: Type.Optional(Metadata),
  ca_pem: CaPem,
});
export const CertificateAuthorityUpdate = UpdateBody({ description: Description, metadata: Metadata });
export const CertificateAuthority = Type.Object({
  ...resourceBase,
  ca_pem: Type.String(),
  subject_common_name: Type.String({ description: 'subject CN of the first certificate' }),
  not_before: Timestamp,
  not_after: Timestamp,
  key_usages: Type.Array(Type.String(), { description: 'e.g. digital_signature, cert_sign, crl_sign' }),
  extended_key_usages: Type.Array(Type.String(), { description: 'e.g. server_auth, client_auth, or a dotted OID' }),
});
export const CertificateAuthorityList = listEnvelope('certificate_authorities', CertificateAuthority);

export type CertificateAuthorityCreate = Static<typeof CertificateAuthorityCreate>;
export type CertificateAuthorityUpdate = Static<typeof CertificateAuthorityUpdate>;
export type CertificateAuthority = Static<typeof CertificateAuthority>;
