/**
 * The catalogue of event types of api-spec part 6: every audit event name of 6.1 and 6.3 and
 * the two traffic events of 6.2 with their fields. Pure data, shared by the reference server
 * (which validates subscriptions against it) and the engine (which validates manifests with the
 * same rules at validate time), so the two can never disagree on what a known type or field is.
 */

/** Suffix every event type carries (api-spec part 9). */
export const EVENT_VERSION_SUFFIX = '.v0';

/**
 * Resources whose changes emit the `<resource>_created.v0`, `_updated.v0` and `_deleted.v0`
 * triple (api-spec 6.3, "created, updated, deleted triple unless noted"), and the vaults and
 * their secrets, whose triples the service documents beside them.
 */
export const AUDITED_RESOURCES = [
  'api_key',
  'certificate_authority',
  'domain',
  'event_destination',
  'event_subscription',
  'ip_policy',
  'ip_policy_rule',
  'ip_restriction',
  'secret',
  'ssh_certificate_authority',
  'ssh_host_certificate',
  'ssh_public_key',
  'ssh_user_certificate',
  'tcp_address',
  'tls_certificate',
  'tunnel_credential',
  'vault',
] as const;

export const AUDIT_ACTIONS = ['created', 'updated', 'deleted'] as const;

/** Audit events outside the triples: agent sessions (api-spec 6.3). */
export const AGENT_SESSION_EVENTS = ['agent_session_start.v0', 'agent_session_stop.v0'] as const;

/** Every audit event type, e.g. `ip_policy_updated.v0`. */
export const AUDIT_EVENT_TYPES: readonly string[] = [
  ...AGENT_SESSION_EVENTS,
  ...AUDITED_RESOURCES.flatMap((resource) => AUDIT_ACTIONS.map((action) => `${resource}_${action}${EVENT_VERSION_SUFFIX}`)),
];

/** Type of a traffic event field, as the tables of api-spec 6.2 give it. */
export type TrafficFieldType = 'bool' | 'string' | 'int32' | 'int64' | 'timestamp' | 'Map<string, List<string>>' | 'List<Map<string, any>>';

export interface TrafficField {
  /** Dotted name, e.g. `conn.client_ip`. */
  name: string;
  type: TrafficFieldType;
  /** Only filterable fields may appear in a subscription's CEL filter. */
  filterable: boolean;
}

const field = (name: string, type: TrafficFieldType, filterable = false): TrafficField => ({ name, type, filterable });

/** Connection fields both traffic events share; the four filterable ones of api-spec 6.2. */
const CONN_FIELDS: TrafficField[] = [
  field('conn.client_ip', 'string', true),
  field('conn.server_ip', 'string', true),
  field('conn.server_name', 'string', true),
  field('conn.server_port', 'int32', true),
  field('conn.start_ts', 'timestamp'),
];

/** Fields of each traffic event type (api-spec 6.2). */
export const TRAFFIC_EVENT_FIELDS: Readonly<Record<string, readonly TrafficField[]>> = {
  'http_request_complete.v0': [
    field('backend.connection_reused', 'bool'),
    field('basic_auth.decision', 'string'),
    field('basic_auth.username', 'string'),
    field('circuit_breaker.decision', 'string'),
    field('compression.algorithm', 'string'),
    field('compression.bytes_saved', 'int64'),
    ...CONN_FIELDS,
    field('http.request.body_length', 'int64'),
    field('http.request.headers', 'Map<string, List<string>>'),
    // The service's documentation filters on the method (`ev.http.request.method == 'POST'`).
    field('http.request.method', 'string', true),
    field('http.request.url.host', 'string'),
    field('http.request.url.path', 'string'),
    field('http.request.url.query', 'string'),
    field('http.request.url.scheme', 'string'),
    field('http.request.url.raw', 'string'),
    field('http.request.user_agent', 'string'),
    field('http.response.body_length', 'int64'),
    field('http.response.headers', 'Map<string, List<string>>'),
    field('http.response.status_code', 'int32'),
    field('ip_policy.decision', 'string'),
    field('oauth.app_client_id', 'string'),
    field('oauth.decision', 'string'),
    field('oauth.user.id', 'string'),
    field('oauth.user.name', 'string'),
    field('tls.cipher_suite', 'string'),
    field('tls.client_cert.serial_number', 'string'),
    field('tls.client_cert.subject.cn', 'string'),
    field('tls.version', 'string'),
    field('traffic_policy.logs', 'List<Map<string, any>>'),
    field('webhook_verification.decision', 'string'),
  ],
  'tcp_connection_closed.v0': [
    field('conn.bytes_in', 'int64'),
    field('conn.bytes_out', 'int64'),
    ...CONN_FIELDS,
    field('conn.end_ts', 'timestamp'),
    field('ip_policy.decision', 'string'),
    field('traffic_policy.logs', 'List<Map<string, any>>'),
  ],
};

export const TRAFFIC_EVENT_TYPES: readonly string[] = Object.keys(TRAFFIC_EVENT_FIELDS);

/** Every event type a subscription source may name. */
export const EVENT_TYPES: readonly string[] = [...AUDIT_EVENT_TYPES, ...TRAFFIC_EVENT_TYPES];

const KNOWN = new Set(EVENT_TYPES);

export const isEventType = (type: string): boolean => KNOWN.has(type);

export const isTrafficEventType = (type: string): boolean => Object.hasOwn(TRAFFIC_EVENT_FIELDS, type);

/** The fields of a traffic event type by name; undefined for audit and unknown types. */
export function trafficFields(type: string): ReadonlyMap<string, TrafficField> | undefined {
  const fields = isTrafficEventType(type) ? TRAFFIC_EVENT_FIELDS[type] : undefined;
  return fields && new Map(fields.map((f) => [f.name, f]));
}
