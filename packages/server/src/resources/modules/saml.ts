/**
 * The SAML module of a route (EndpointSAML, api-spec 2.7).
 *
 * Exactly one of `idp_metadata` (the IdP's EntityDescriptor XML) and `idp_metadata_url` is
 * given. `nameid_format` defaults to the persistent format, `authorized_groups` to `[]`, the
 * booleans and session settings to their zero values. The service-provider URLs are not
 * stored: they are derived from the route and its edge each time the module is rendered, so
 * that they follow the server's base URL (`entity_id` is the metadata URL, as the spec says).
 * Each write issues a new request-signing certificate (`saml-certificate.ts`).
 */
import { DEFAULT_SAML_NAMEID_FORMAT, EndpointSaml, EndpointSamlInput } from '@gatehouse/schemas';
import { invalidModule } from '../../errors.js';
import type { ModuleDefinition, ModuleOwnerRef } from '../modules.js';
import type { Services } from '../context.js';
import { isHttpUrl } from './oidc.js';
import { issueSigningCertificate } from './saml-certificate.js';
import { sessionOf, type Session } from './session.js';

/** Subject common name of the service provider's request-signing certificates. */
const SP_COMMON_NAME = 'gatehouse SAML service provider';

interface StoredSaml extends Session {
  idp_metadata: string;
  idp_metadata_url?: string;
  force_authn: boolean;
  allow_idp_initiated: boolean;
  authorized_groups: string[];
  nameid_format: string;
  request_signing_certificate_pem: string;
}

/** The service-provider URLs of the SAML module of route `owner.id` on edge `owner.parentId`. */
function samlServiceProviderUrls(owner: ModuleOwnerRef, { urls }: Services) {
  const base = urls.of(`/edges/https/${owner.parentId}/routes/${owner.id}/saml`);
  return {
    entity_id: `${base}/metadata`,
    assertion_consumer_service_url: `${base}/acs`,
    single_logout_url: `${base}/slo`,
    metadata_url: `${base}/metadata`,
  };
}

export const samlModule: ModuleDefinition<StoredSaml> = {
  name: 'saml',
  input: EndpointSamlInput,
  output: EndpointSaml,
  write(input, _ctx, field) {
    const given = input as EndpointSamlInput;
    // "" is what a module configured by URL returns for idp_metadata: the same as absent.
    if ((given.idp_metadata === undefined || given.idp_metadata === '') === (given.idp_metadata_url === undefined)) {
      throw invalidModule(field, 'give exactly one of idp_metadata and idp_metadata_url.');
    }
    if (given.idp_metadata_url !== undefined && !isHttpUrl(given.idp_metadata_url)) {
      throw invalidModule(`${field}.idp_metadata_url`, 'must be an http(s) URL.');
    }
    return {
      ...sessionOf(given),
      idp_metadata: given.idp_metadata ?? '',
      ...(given.idp_metadata_url !== undefined ? { idp_metadata_url: given.idp_metadata_url } : {}),
      force_authn: given.force_authn ?? false,
      allow_idp_initiated: given.allow_idp_initiated ?? false,
      authorized_groups: [...(given.authorized_groups ?? [])],
      nameid_format: given.nameid_format ?? DEFAULT_SAML_NAMEID_FORMAT,
      request_signing_certificate_pem: issueSigningCertificate(SP_COMMON_NAME),
    };
  },
  render(stored, ctx, owner): EndpointSaml {
    if (!owner) throw new Error('the saml module is rendered only with the route it belongs to');
    const sp = samlServiceProviderUrls(owner, ctx);
    return {
      enabled: stored.enabled,
      options_passthrough: stored.options_passthrough,
      cookie_prefix: stored.cookie_prefix,
      inactivity_timeout: stored.inactivity_timeout,
      maximum_duration: stored.maximum_duration,
      idp_metadata: stored.idp_metadata,
      ...(stored.idp_metadata_url !== undefined ? { idp_metadata_url: stored.idp_metadata_url } : {}),
      force_authn: stored.force_authn,
      allow_idp_initiated: stored.allow_idp_initiated,
      authorized_groups: [...stored.authorized_groups],
      entity_id: sp.entity_id,
      assertion_consumer_service_url: sp.assertion_consumer_service_url,
      single_logout_url: sp.single_logout_url,
      request_signing_certificate_pem: stored.request_signing_certificate_pem,
      metadata_url: sp.metadata_url,
      nameid_format: stored.nameid_format,
    };
  },
};
