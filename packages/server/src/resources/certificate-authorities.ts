/**
 * Certificate authorities (`/certificate_authorities`, ca_ ids): PEM bundles that HTTPS edges'
 * mutual TLS validates client certificates against (api-spec 2.7). The response fields beyond
 * ca_pem are read from the first certificate when it is created (`domain/x509.ts`) and stored
 * with it; ca_pem cannot change afterwards, only description and metadata. Deleting an
 * authority that edges reference succeeds and leaves the references, as for IP policies.
 */
import { CertificateAuthority, CertificateAuthorityCreate, CertificateAuthorityList, CertificateAuthorityUpdate } from '@gatehouse/schemas';
import { ApiError } from '../errors.js';
import { parseCaPem, type CertificateInfo } from '../domain/x509.js';
import { merge, type ResourceDefinition } from './define.js';
import { withCommonFields, type CommonFields } from './common.js';

/** Storage kind; edges' `mutual_tls.certificate_authority_ids` must name objects of this kind. */
export const CERTIFICATE_AUTHORITY = 'certificate_authority';

interface StoredCa extends CommonFields, CertificateInfo {
  ca_pem: string;
}

export const certificateAuthorities: ResourceDefinition<StoredCa, CertificateAuthority> = {
  kind: CERTIFICATE_AUTHORITY,
  label: 'certificate authority',
  idPrefix: 'ca',
  path: '/certificate_authorities',
  listKey: 'certificate_authorities',
  audit: 'certificate_authority',
  schemas: {
    create: CertificateAuthorityCreate,
    update: CertificateAuthorityUpdate,
    resource: CertificateAuthority,
    list: CertificateAuthorityList,
  },
  write(input, current) {
    if (current) return merge(current, input as CertificateAuthorityUpdate);
    const { ca_pem, ...common } = input as CertificateAuthorityCreate;
    const parsed = parseCaPem(ca_pem);
    if (!parsed.ok) {
      throw new ApiError('invalid_certificate', `ca_pem: ${parsed.reason}.`, { field: 'ca_pem' });
    }
    return { ...common, ca_pem, ...parsed.info };
  },
  render: (object, { urls }) => {
    const { ca_pem, subject_common_name, not_before, not_after, key_usages, extended_key_usages } = object.data;
    return withCommonFields(object, urls.of(`/certificate_authorities/${object.id}`), {
      ca_pem,
      subject_common_name,
      not_before,
      not_after,
      key_usages,
      extended_key_usages,
    });
  },
};
