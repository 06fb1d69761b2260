/**
 * The server's error codes: one table, stable codes, each with its HTTP status and a short
 * explanation (docs/server.md's error table is generated from this list by a test that keeps them
 * in step). Handlers throw `ApiError`; the error handler in `http/errors.ts` turns it into the
 * envelope of service-behaviour.md.
 */
export const ERROR_CODES = {
  missing_authorization: { status: 401, doc: 'No `Authorization: Bearer <key>` header was sent.' },
  invalid_authorization: { status: 401, doc: 'The bearer token is malformed or is not a known API key.' },
  missing_version: { status: 400, doc: 'No `Service-Version` header was sent; send `Service-Version: 2`.' },
  unsupported_version: { status: 400, doc: 'The `Service-Version` header names a version other than 2.' },
  route_not_found: { status: 404, doc: 'No endpoint has this method and path.' },
  uri_too_long: { status: 414, doc: 'A path segment (an id) is longer than 100 characters.' },
  invalid_url: { status: 400, doc: 'The path is not valid percent-encoded UTF-8.' },
  bad_request: { status: 400, doc: 'The request is not valid HTTP/1.1: not HTTP at all, or without a `Host` header (answered before authentication).' },
  headers_too_large: { status: 431, doc: 'The request line and headers are over 16 KiB (a URL of several kilobytes).' },
  request_timeout: { status: 408, doc: 'The request (headers and body) did not arrive in full within 30 s.' },
  not_found: { status: 404, doc: 'No resource of this kind has this id.' },
  invalid_json: { status: 400, doc: 'The request body is not valid JSON.' },
  missing_content_type: { status: 400, doc: 'A body was sent without `Content-Type: application/json`.' },
  unsupported_content_type: { status: 400, doc: 'The body is not `application/json`.' },
  unsupported_charset: { status: 415, doc: 'The body is declared in a charset other than UTF-8 (`Content-Type: application/json; charset=utf-16`).' },
  invalid_encoding: {
    status: 400,
    doc: 'A string in the body is not valid UTF-8, or holds a lone surrogate (`\\ud800` without its pair); `details.field` names it.',
  },
  unexpected_body: { status: 400, doc: 'A body was sent to an endpoint that takes none (GET, DELETE).' },
  missing_body: { status: 400, doc: 'The endpoint needs a JSON object body.' },
  unknown_field: { status: 400, doc: 'The body has a field the endpoint does not accept.' },
  missing_field: { status: 400, doc: 'A required field is missing.' },
  invalid_type: { status: 400, doc: 'A field has a value of the wrong type.' },
  invalid_value: { status: 400, doc: 'A field has a value outside its allowed set, range or length.' },
  unknown_query_parameter: { status: 400, doc: 'The query string has a parameter the endpoint does not accept.' },
  invalid_query_parameter: { status: 400, doc: 'A query parameter has a bad value (for example `limit` outside 1..100).' },
  invalid_cidr: { status: 400, doc: 'A CIDR is not a valid, canonical IPv4 or IPv6 range with a prefix length.' },
  duplicate_cidr: { status: 400, doc: 'The IP policy already has a rule with this CIDR.' },
  invalid_reference: { status: 400, doc: 'A field names an id of a resource that does not exist or is of the wrong kind.' },
  resource_in_use: {
    status: 400,
    doc: 'The object is still referenced by another (e.g. a backend by a failover or weighted backend); remove the reference first.',
  },
  duplicate_name: { status: 400, doc: 'A bot user with this name already exists.' },
  duplicate_type: { status: 400, doc: 'An IP restriction of this type already exists.' },
  hostport_in_use: { status: 400, doc: 'A hostport already belongs to another edge.' },
  invalid_hostport: { status: 400, doc: 'A hostport is not `hostname:port` with a port in 1..65535 (443 for HTTPS edges).' },
  duplicate_route: { status: 400, doc: 'The edge already has a route with this match.' },
  invalid_module: { status: 400, doc: 'A module configuration breaks one of its rules (see the message).' },
  invalid_certificate: { status: 400, doc: 'A PEM field is not one or more valid X.509 certificates (the message says why).' },
  invalid_event_source: { status: 400, doc: 'A subscription source names an unknown event type or field, or a filter that is not CEL over filterable fields.' },
  payload_too_large: { status: 413, doc: 'The request body is larger than the server accepts.' },
  rate_limited: {
    status: 429,
    doc: 'More requests in the rolling window than `serve --rate-limit` allows (the service: `ERR_NGROK_226`, in `details.service_error_code`); retry after the `Retry-After` seconds.',
  },
  too_many_concurrent_requests: {
    status: 429,
    doc: 'More requests in flight at once than `serve --max-concurrent` allows (the service: `ERR_NGROK_225`, in `details.service_error_code`); retry when one has finished.',
  },
  internal_error: { status: 500, doc: 'The server failed; the operation_id identifies the request in its log.' },
  service_unavailable: { status: 503, doc: 'The server is shutting down or injected a fault for tests; retry.' },
} as const satisfies Record<string, { status: number; doc: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** A failure to report to the client, with a stable code and a sentence that says what to do. */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = ERROR_CODES[code].status;
  }

  /** The error envelope of service-behaviour.md that answers with this error. */
  envelope(operationId: string) {
    return { error_code: this.code, status_code: this.status, msg: this.message, details: { ...this.details, operation_id: operationId } };
  }
}

export const notFound = (what: string, id: string) => new ApiError('not_found', `${what} '${id}' does not exist.`, { id });

export const invalidValue = (field: string, message: string) => new ApiError('invalid_value', `${field}: ${message}`, { field });

export const invalidModule = (field: string, message: string) => new ApiError('invalid_module', `${field}: ${message}`, { field });

export const invalidReference = (field: string, id: string, what: string) =>
  new ApiError('invalid_reference', `${field}: ${what} '${id}' does not exist.`, { field, id });
