/**
 * The identity modules of an HTTPS edge route (api-spec 2.4, 2.7): OAuth, SAML and OIDC.
 *
 * Omitted session settings come back as their zero values (`cookie_prefix` "",
 * `inactivity_timeout` 0, `maximum_duration` 0, `options_passthrough` false,
 * `auth_check_interval` 0), as service-behaviour.md observes. Secrets (`client_secret`) are
 * returned by the API as the spec says; they are never logged.
 */
import { Type, type Static, type TProperties } from '@sinclair/typebox';
import { Strict, StringEnum, Uint32 } from '../common.js';
import { ModuleEnabled } from './endpoint-modules.js';
import { DEFAULT_SAML_NAMEID_FORMAT, OAUTH_PROVIDERS, SAML_NAMEID_FORMATS } from '../constants.js';

const StringList = Type.Array(Type.String());

/** Session settings shared by OAuth, SAML and OIDC, as input (optional) and output. */
const sessionInput = {
  enabled: Type.Optional(ModuleEnabled),
  options_passthrough: Type.Optional(Type.Boolean({ description: 'when true, HTTP OPTIONS requests are not authenticated (CORS)' })),
  cookie_prefix: Type.Optional(Type.String({ description: 'prefix of the session cookie' })),
  inactivity_timeout: Type.Optional(Uint32),
  maximum_duration: Type.Optional(Uint32),
};
const sessionOutput = {
  enabled: Type.Boolean(),
  options_passthrough: Type.Boolean(),
  cookie_prefix: Type.String(),
  inactivity_timeout: Type.Integer(),
  maximum_duration: Type.Integer(),
};

// --- OAuth ----------------------------------------------------------------------------------

export { OAUTH_PROVIDERS };
export type OAuthProviderName = (typeof OAUTH_PROVIDERS)[number];

// `null` ids and `[]` scopes are accepted on input because the service returns them for its
// managed application: a value read back can always be written again (the rules themselves
// live in oauth-rules.ts).
const providerInputFields = {
  client_id: Type.Optional(Type.Union([Type.String({ minLength: 1 }), Type.Null()], { description: 'null or absent: the managed application' })),
  client_secret: Type.Optional(Type.Union([Type.String({ minLength: 1 }), Type.Null()], { description: 'required when client_id is given' })),
  scopes: Type.Optional(Type.Array(Type.String(), { description: 'non-empty only with both client_id and client_secret' })),
  email_addresses: Type.Optional(StringList),
  email_domains: Type.Optional(StringList),
};
const providerOutputFields = {
  client_id: Type.Union([Type.String(), Type.Null()]),
  client_secret: Type.Union([Type.String(), Type.Null()]),
  scopes: StringList,
  email_addresses: StringList,
  email_domains: StringList,
};
const githubExtra = { teams: StringList, organizations: StringList };

/** One optional object per identity provider; github also takes teams and organizations. */
function providerMap<T extends TProperties, G extends TProperties>(fields: T, github: G) {
  const other = Type.Optional(Strict(fields));
  return Type.Object(
    {
      github: Type.Optional(Strict({ ...fields, ...github })),
      facebook: other,
      microsoft: other,
      google: other,
      linkedin: other,
      gitlab: other,
      twitch: other,
      amazon: other,
    },
    { additionalProperties: false },
  );
}

export const EndpointOAuthProviderInput = providerMap(providerInputFields, {
  teams: Type.Optional(StringList),
  organizations: Type.Optional(StringList),
});
export const EndpointOAuthProvider = providerMap(providerOutputFields, githubExtra);

export const EndpointOAuthInput = Strict({
  ...sessionInput,
  provider: EndpointOAuthProviderInput,
  auth_check_interval: Type.Optional(Uint32),
});
export const EndpointOAuth = Type.Object({
  ...sessionOutput,
  provider: EndpointOAuthProvider,
  auth_check_interval: Type.Integer(),
});

// --- SAML -----------------------------------------------------------------------------------

export { DEFAULT_SAML_NAMEID_FORMAT, SAML_NAMEID_FORMATS };

export const EndpointSamlInput = Strict({
  ...sessionInput,
  idp_metadata: Type.Optional(Type.String({ description: 'full XML IdP EntityDescriptor; "" (what a module set by URL returns) is the same as absent' })),
  idp_metadata_url: Type.Optional(Type.String({ minLength: 1, description: 'URL of the IdP metadata' })),
  force_authn: Type.Optional(Type.Boolean()),
  allow_idp_initiated: Type.Optional(Type.Boolean()),
  authorized_groups: Type.Optional(StringList),
  nameid_format: Type.Optional(StringEnum(SAML_NAMEID_FORMATS)),
});
export const EndpointSaml = Type.Object({
  ...sessionOutput,
  idp_metadata: Type.String(),
  idp_metadata_url: Type.Optional(Type.String()),
  force_authn: Type.Boolean(),
  allow_idp_initiated: Type.Boolean(),
  authorized_groups: StringList,
  entity_id: Type.String(),
  assertion_consumer_service_url: Type.String(),
  single_logout_url: Type.String(),
  request_signing_certificate_pem: Type.String(),
  metadata_url: Type.String(),
  nameid_format: Type.String(),
});

// --- OIDC -----------------------------------------------------------------------------------

export const EndpointOidcInput = Strict({
  ...sessionInput,
  issuer: Type.String({ minLength: 1, description: 'URL of the OIDC provider, base URL for discovery' }),
  client_id: Type.String({ minLength: 1 }),
  client_secret: Type.String({ minLength: 1 }),
  scopes: Type.Optional(StringList),
});
export const EndpointOidc = Type.Object({
  ...sessionOutput,
  issuer: Type.String(),
  client_id: Type.String(),
  client_secret: Type.String(),
  scopes: StringList,
});

export type EndpointOAuthInput = Static<typeof EndpointOAuthInput>;
export type EndpointOAuth = Static<typeof EndpointOAuth>;
export type EndpointSamlInput = Static<typeof EndpointSamlInput>;
export type EndpointSaml = Static<typeof EndpointSaml>;
export type EndpointOidcInput = Static<typeof EndpointOidcInput>;
export type EndpointOidc = Static<typeof EndpointOidc>;
