/**
 * Plain values shared by the schemas and by the tools that check manifests at run time: no
 * TypeBox here, so that `@gatehouse/schemas/runtime` (runtime.ts) can offer them without
 * building a schema. The schema modules import them from here; tests check that the name lists
 * match the schemas (`MANIFEST_KINDS` = the keys of `MANIFEST_SCHEMAS`, `ROUTE_MODULE_NAMES` =
 * the keys of `ROUTE_MODULE_SCHEMAS`).
 */

export const METADATA_MAX_BYTES = 4096;

/** Every manifest kind, in the order of `MANIFEST_SCHEMAS`. */
export const MANIFEST_KINDS = [
  'IPPolicy',
  'IPRestriction',
  'BotUser',
  'Backend',
  'HTTPSEdge',
  'TCPEdge',
  'TLSEdge',
  'ReservedDomain',
  'ReservedTCPAddress',
  'CertificateAuthority',
  'EventDestination',
  'EventSubscription',
] as const;

/** The thirteen route modules, in the order of api-spec 2.7 (`ROUTE_MODULE_SCHEMAS`). */
export const ROUTE_MODULE_NAMES = [
  'backend',
  'ip_restriction',
  'circuit_breaker',
  'compression',
  'request_headers',
  'response_headers',
  'webhook_verification',
  'oauth',
  'saml',
  'oidc',
  'websocket_tcp_converter',
  'user_agent_filter',
  'traffic_policy',
] as const;

export const OAUTH_PROVIDERS = ['github', 'facebook', 'microsoft', 'google', 'linkedin', 'gitlab', 'twitch', 'amazon'] as const;

export const SAML_NAMEID_FORMATS = [
  'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
  'urn:oasis:names:tc:SAML:2.0:nameid-format:transient',
  'urn:oasis:names:tc:SAML:2.0:nameid-format:entity',
  'urn:oasis:names:tc:SAML:2.0:nameid-format:kerberos',
  'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified',
  'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
  'urn:oasis:names:tc:SAML:1.1:nameid-format:X509SubjectName',
  'urn:oasis:names:tc:SAML:1.1:nameid-format:WindowsDomainQualifiedName',
] as const;
export const DEFAULT_SAML_NAMEID_FORMAT = SAML_NAMEID_FORMATS[0];
