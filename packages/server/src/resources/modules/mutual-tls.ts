/**
 * The mutual TLS module of an HTTPS edge (EndpointMutualTLS, api-spec 2.7, 4.7):
 * `certificate_authority_ids` in, each naming an existing certificate authority,
 * `certificate_authorities` Refs out; `enabled` true when unspecified.
 */
import { EndpointMutualTls, EndpointMutualTlsInput } from '@gatehouse/schemas';
import { invalidReference } from '../../errors.js';
import { CERTIFICATE_AUTHORITY } from '../certificate-authorities.js';
import type { ModuleDefinition } from '../modules.js';

interface StoredMutualTls {
  enabled: boolean;
  certificate_authority_ids: string[];
}

export const mutualTlsModule: ModuleDefinition<StoredMutualTls> = {
  name: 'mutual_tls',
  input: EndpointMutualTlsInput,
  output: EndpointMutualTls,
  write(input, { store }, field) {
    const given = input as EndpointMutualTlsInput;
    given.certificate_authority_ids.forEach((id, index) => {
      if (!store.get(id, CERTIFICATE_AUTHORITY)) {
        throw invalidReference(`${field}.certificate_authority_ids[${index}]`, id, 'Certificate authority');
      }
    });
    return { enabled: given.enabled ?? true, certificate_authority_ids: [...given.certificate_authority_ids] };
  },
  render: (stored, { urls }): EndpointMutualTls => ({
    enabled: stored.enabled,
    certificate_authorities: urls.refs(stored.certificate_authority_ids),
  }),
};
