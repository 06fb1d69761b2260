/**
 * The client's error codes: one table, and one error class that every failure is thrown as.
 * An API failure carries the server's envelope (`status`, `error_code`, `msg`, `details`); a
 * failure before an answer arrived carries one of the client's own codes below and no status.
 * Messages never contain the API key or request bodies, so they are safe to print.
 */
export const CLIENT_ERROR_CODES = {
  network_error: 'The request could not be completed: the connection failed or was reset.',
  connection_refused: 'Nothing accepted the connection; the request was never sent.',
  dns_error: "The API's host name (or the proxy's) did not resolve; the request was never sent.",
  proxy_error: 'The proxy refused or dropped the connection to the API; the request was never sent to the API.',
  timeout: 'No complete answer arrived in time; the request may or may not have been carried out.',
  deadline_exceeded: 'The deadline for all requests passed (the request was cancelled; it may or may not have been carried out).',
  tls_error: 'The TLS handshake failed (not TLS at that port, an untrusted or mismatched certificate); the request was never sent.',
  invalid_response: 'The server answered with a body that is not the JSON the API promises.',
  aborted: 'The caller aborted the request.',
} as const;

export type ClientErrorCode = keyof typeof CLIENT_ERROR_CODES;

export interface ApiErrorInit {
  method: string;
  path: string;
  /** The base URL the path is relative to; when given, messages name it (and so the host). */
  baseUrl?: string;
  /** HTTP status; undefined when no answer arrived. */
  status: number | undefined;
  /** The server's `error_code`, or one of `CLIENT_ERROR_CODES`. */
  errorCode: string;
  msg: string;
  details?: Record<string, unknown>;
  /** Seconds the server asked to wait (429 `Retry-After`). */
  retryAfter?: number;
  /** How many attempts were made, retries included. */
  attempts?: number;
  /** The request may have been carried out although no answer arrived. */
  outcomeUnknown?: boolean;
  /** Overrides what the code and status say about trying again (a DNS failure that is temporary, a proxy's refusal). */
  retryable?: boolean;
}

const NOT_RETRYABLE_CODES = new Set(['aborted', 'deadline_exceeded', 'invalid_response', 'tls_error']);

/** Every failure of a client call. */
export class GatehouseApiError extends Error {
  readonly method: string;
  readonly path: string;
  readonly baseUrl: string | undefined;
  readonly status: number | undefined;
  readonly errorCode: string;
  readonly msg: string;
  readonly details: Record<string, unknown>;
  readonly retryAfter: number | undefined;
  readonly attempts: number;
  readonly outcomeUnknown: boolean;
  readonly #retryable: boolean | undefined;

  constructor(init: ApiErrorInit) {
    const where = `${init.method} ${init.baseUrl ?? ''}${init.path}`;
    const status = init.status === undefined ? init.errorCode : `${init.status} ${init.errorCode}`;
    super(`${where}: ${status}: ${init.msg}`);
    this.name = 'GatehouseApiError';
    this.method = init.method;
    this.path = init.path;
    this.baseUrl = init.baseUrl;
    this.status = init.status;
    this.errorCode = init.errorCode;
    this.msg = init.msg;
    this.details = init.details ?? {};
    this.retryAfter = init.retryAfter;
    this.attempts = init.attempts ?? 1;
    this.outcomeUnknown = init.outcomeUnknown ?? false;
    this.#retryable = init.retryable;
  }

  /**
   * 429, 5xx and failures before an answer may succeed if tried again; a caller's abort, a
   * passed deadline, a body that is not JSON and a failed TLS handshake (wrong scheme or port,
   * untrusted certificate) would fail the same way again, and so would a name that does not
   * resolve or a proxy's refusal (these say so when they are made).
   */
  get retryable(): boolean {
    if (this.#retryable !== undefined) return this.#retryable;
    if (this.status === undefined) return !NOT_RETRYABLE_CODES.has(this.errorCode);
    return this.status === 429 || this.status >= 500;
  }

  /** `operation_id` of the failed request, when the server gave one (for support and logs). */
  get operationId(): string | undefined {
    const id = this.details.operation_id;
    return typeof id === 'string' ? id : undefined;
  }
}
