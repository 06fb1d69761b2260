/**
 * The spec schema of every manifest kind (issue 3's manifest format). Field names are the
 * API's own (snake_case). Where a field refers to another object, the manifest uses the
 * response's field name (`ip_policies`, `backend`) holding references by name or `{id}`
 * instead of the request's id field (`ip_policy_ids`, `backend_id`). Module schemas without
 * references are the API's request schemas themselves.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Description, Metadata, moduleFields, Strict, StringEnum } from '../common.js';
import { Cidr, RuleAction } from '../api/ip-policies.js';
import { IpRestrictionType } from '../api/ip-restrictions.js';
import { WEIGHT_MAX } from '../api/backends.js';
import { Hostports, HttpsHostports } from '../api/edges.js';
import { ROUTE_MODULE_SCHEMAS, RouteMatch, RouteMatchType } from '../api/routes.js';
import { EndpointTrafficPolicyInput } from '../api/backend-modules.js';
import { EndpointTlsTerminationInput, ModuleEnabled } from '../api/endpoint-modules.js';
import { ManifestDocument, Reference, References } from './common.js';
import { CERTIFICATE_AUTHORITIES, DomainName, DomainRegion, PRIVATE_KEY_TYPES, TcpAddressRegion } from '../api/reservations.js';
import { CertificateAuthorityManifest } from './certificate-authority.js';
import { EventDestinationManifest } from './event-destination.js';
import { EventSubscriptionManifest } from './event-subscription.js';

const common = { description: Type.Optional(Description), metadata: Type.Optional(Metadata) };

// --- IP policies ------------------------------------------------------------------------------
export const IpPolicyRuleSpec = Strict({ cidr: Cidr, action: RuleAction, ...common }, 'a rule of the policy; a CIDR may appear once per policy');
export const IpPolicySpec = Strict({
  ...common,
  rules: Type.Optional(Type.Array(IpPolicyRuleSpec, { description: 'the complete set of rules of the policy' })),
});
export const IpPolicyManifest = ManifestDocument('IPPolicy', IpPolicySpec, 'an IP policy and its rules');

// --- IP restrictions ---------------------------------------------------------------------------
export const IpRestrictionSpec = Strict({
  ...common,
  type: IpRestrictionType,
  enforced: Type.Optional(Type.Boolean({ description: 'true: enforced; false (default): warnings only' })),
  ip_policies: References,
});
export const IpRestrictionManifest = ManifestDocument('IPRestriction', IpRestrictionSpec, 'an IP restriction (at most one per type)');

// --- bot users ---------------------------------------------------------------------------------
export const BotUserSpec = Strict({
  name: Type.Optional(
    Type.String({
      minLength: 1,
      pattern: '\\S',
      description:
        'the bot user\'s name in the API (spaces allowed, e.g. "deploy bot from CI"); the manifest name when unspecified. Changing it renames the bot user in place',
    }),
  ),
  active: Type.Optional(Type.Boolean({ description: 'true when unspecified' })),
});
export const BotUserManifest = ManifestDocument(
  'BotUser',
  BotUserSpec,
  'a bot user; the document name identifies it in gatehouse, spec.name (default: the document name) is its name in the API',
);

// --- backends ----------------------------------------------------------------------------------
const backendSpec = <T extends string, P extends Parameters<typeof Type.Object>[0]>(type: T, fields: P) =>
  Strict({ ...common, type: Type.Literal(type), ...fields });
export const TunnelGroupBackendSpec = backendSpec('tunnel_group', {
  labels: Type.Record(Type.String(), Type.String(), { minProperties: 1, description: 'labels a tunnel must carry to join' }),
});
export const HttpResponseBackendSpec = backendSpec('http_response', {
  body: Type.Optional(Type.String()),
  headers: Type.Optional(Type.Record(Type.String(), Type.String({ minLength: 1 }))),
  status_code: Type.Optional(Type.Integer({ minimum: 100, maximum: 599, description: '200 when unspecified' })),
});
export const FailoverBackendSpec = backendSpec('failover', {
  backends: Type.Array(Reference, { minItems: 1, description: 'backends to try, in order: names or {id}' }),
});
export const WeightedBackendSpec = backendSpec('weighted', {
  backends: Type.Record(Type.String({ minLength: 1 }), Type.Integer({ minimum: 0, maximum: WEIGHT_MAX }), {
    minProperties: 1,
    description: 'Backend manifest name (or "id:<id>" for an unmanaged backend) -> weight 0..10000',
  }),
});
const staticFields = {
  address: Type.String({ minLength: 3, pattern: '^[^\\s:/]+:[1-9][0-9]{0,4}$', description: 'host:port to forward to, e.g. 10.0.0.5:8080' }),
  tls: Type.Optional(Strict({ enabled: Type.Optional(Type.Boolean({ description: 'connect over TLS; false when unspecified' })) })),
};
export const StaticBackendSpec = backendSpec('static', staticFields);
/** The name gatehouse used before the service's own (`static`): still read, as `static`. */
export const StaticAddressBackendSpec = backendSpec('static_address', staticFields);
export const BACKEND_TYPES = ['tunnel_group', 'http_response', 'failover', 'weighted', 'static'] as const;
export const BackendSpec = Type.Unsafe<
  | Static<typeof TunnelGroupBackendSpec>
  | Static<typeof HttpResponseBackendSpec>
  | Static<typeof FailoverBackendSpec>
  | Static<typeof WeightedBackendSpec>
  | Static<typeof StaticBackendSpec>
  | Static<typeof StaticAddressBackendSpec>
>({
  type: 'object',
  required: ['type'],
  properties: {
    type: StringEnum([...BACKEND_TYPES, 'static_address'], {
      description: 'the backend kind; cannot change (replaced). static_address is the former name of static, read as static',
    }),
  },
  discriminator: { propertyName: 'type' },
  oneOf: [TunnelGroupBackendSpec, HttpResponseBackendSpec, FailoverBackendSpec, WeightedBackendSpec, StaticBackendSpec, StaticAddressBackendSpec],
});
export const BackendManifest = ManifestDocument('Backend', BackendSpec, 'a backend: tunnel_group, http_response, failover, weighted or static');

// --- modules with references -------------------------------------------------------------------
export const BackendModuleSpec = Strict({ enabled: Type.Optional(ModuleEnabled), backend: Reference });
export const IpRestrictionModuleSpec = Strict({ enabled: Type.Optional(ModuleEnabled), ip_policies: References });
export const MutualTlsModuleSpec = Strict({
  enabled: Type.Optional(ModuleEnabled),
  certificate_authorities: Type.Array(Reference, { description: 'certificate authorities: CertificateAuthority names or {id}' }),
});

// --- HTTPS edges -------------------------------------------------------------------------------
export const RouteSpec = Strict(
  {
    match_type: RouteMatchType,
    match: RouteMatch,
    ...common,
    // The API's module inputs, in their order; the two with references take them by name.
    ...moduleFields(ROUTE_MODULE_SCHEMAS).inputs,
    backend: Type.Optional(BackendModuleSpec),
    ip_restriction: Type.Optional(IpRestrictionModuleSpec),
  },
  'a route of the edge; match_type plus match is unique per edge',
);
export const HttpsEdgeSpec = Strict({
  ...common,
  hostports: Type.Optional(HttpsHostports),
  mutual_tls: Type.Optional(MutualTlsModuleSpec),
  tls_termination: Type.Optional(EndpointTlsTerminationInput),
  routes: Type.Optional(Type.Array(RouteSpec, { description: 'the complete set of routes of the edge' })),
});
export const HttpsEdgeManifest = ManifestDocument('HTTPSEdge', HttpsEdgeSpec, 'an HTTPS edge, its modules and its routes');

// --- TCP edges ---------------------------------------------------------------------------------
/**
 * A TCP edge's hostport: a reserved `hostname:port` written out, or the address the service
 * assigned to a ReservedTCPAddress (which no manifest can know before it exists), by reference.
 */
export const TcpHostport = Type.Union(
  [
    Type.String({ minLength: 1, description: 'hostname:port of a reserved TCP address, e.g. 1.tcp.example.com:20022' }),
    Strict(
      { reserved_tcp_address: Reference },
      'the address the service assigned to a reserved TCP address: its ReservedTCPAddress manifest name, or {id} of one gatehouse does not manage; resolved when the edge is applied',
    ),
  ],
  { description: 'a reserved hostname:port, or {reserved_tcp_address: <ReservedTCPAddress name>}' },
);
export const TcpEdgeSpec = Strict({
  ...common,
  hostports: Type.Optional(Type.Array(TcpHostport, { description: 'the reserved TCP addresses served by the edge; each belongs to at most one edge' })),
  backend: Type.Optional(BackendModuleSpec),
  ip_restriction: Type.Optional(IpRestrictionModuleSpec),
  traffic_policy: Type.Optional(EndpointTrafficPolicyInput),
});
export const TcpEdgeManifest = ManifestDocument('TCPEdge', TcpEdgeSpec, 'a TCP edge and its modules');

// --- TLS edges ---------------------------------------------------------------------------------
export const TlsEdgeSpec = Strict({
  ...common,
  hostports: Type.Optional(Hostports),
  backend: Type.Optional(BackendModuleSpec),
  ip_restriction: Type.Optional(IpRestrictionModuleSpec),
  mutual_tls: Type.Optional(MutualTlsModuleSpec),
  tls_termination: Type.Optional(EndpointTlsTerminationInput),
  traffic_policy: Type.Optional(EndpointTrafficPolicyInput),
});
export const TlsEdgeManifest = ManifestDocument('TLSEdge', TlsEdgeSpec, 'a TLS edge and its modules');

// --- reservations ------------------------------------------------------------------------------
export const ReservedDomainSpec = Strict({
  ...common,
  domain: DomainName,
  region: Type.Optional(DomainRegion),
  certificate_management_policy: Type.Optional(
    Strict({
      authority: Type.Optional(StringEnum(CERTIFICATE_AUTHORITIES)),
      private_key_type: Type.Optional(StringEnum(PRIVATE_KEY_TYPES, { description: 'rsa (default) or ecdsa' })),
    }),
  ),
});
export const ReservedDomainManifest = ManifestDocument(
  'ReservedDomain',
  ReservedDomainSpec,
  "a reserved domain: the hostname (or *.wildcard) that HTTPS and TLS edges' hostports use",
);
export const ReservedTcpAddressSpec = Strict({
  ...common,
  region: Type.Optional(TcpAddressRegion),
});
export const ReservedTcpAddressManifest = ManifestDocument(
  'ReservedTCPAddress',
  ReservedTcpAddressSpec,
  'a reserved TCP address: the service assigns its hostname:port, which TCP edges use as {reserved_tcp_address: <name>}',
);

/** Every manifest kind and its document schema. */
export const MANIFEST_SCHEMAS = {
  IPPolicy: IpPolicyManifest,
  IPRestriction: IpRestrictionManifest,
  BotUser: BotUserManifest,
  Backend: BackendManifest,
  HTTPSEdge: HttpsEdgeManifest,
  TCPEdge: TcpEdgeManifest,
  TLSEdge: TlsEdgeManifest,
  ReservedDomain: ReservedDomainManifest,
  ReservedTCPAddress: ReservedTcpAddressManifest,
  CertificateAuthority: CertificateAuthorityManifest,
  EventDestination: EventDestinationManifest,
  EventSubscription: EventSubscriptionManifest,
} as const;
export type ManifestKind = keyof typeof MANIFEST_SCHEMAS;

/** Any manifest document: editors pick the branch by `kind`. */
export const AnyManifest = Type.Unsafe<Static<(typeof MANIFEST_SCHEMAS)[ManifestKind]>>({
  title: 'gatehouse manifest',
  description: 'one gatehouse manifest document: kind, name, spec (and optionally adopt, lifecycle)',
  type: 'object',
  required: ['kind'],
  properties: { kind: StringEnum(Object.keys(MANIFEST_SCHEMAS) as ManifestKind[]) },
  discriminator: { propertyName: 'kind' },
  oneOf: Object.values(MANIFEST_SCHEMAS),
});
