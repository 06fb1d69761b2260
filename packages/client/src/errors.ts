/**
 * The client's error codes: one table, and one error class that every failure is thrown as.
 * An API failure carries the server's envelope (`status`, `error_code`, `msg`, `details`); a
 * failure before an answer arrived carries one of the client's own codes below and no status.
 * Messages never contain the API key or request bodies, so they are safe to print.
 */
export const CLIENT_ERROR_CODES = {
  network_error: 'The request could not be completed: the connection failed or was reset.',
  connection_refused: 'Nothing accepted the connection; the request was never sent.',
  timeout: 'No complete answer arrived in time; the request may or may not have been carried out.',
  invalid_response: 'The server answered with a body that is not the JSON the API promises.',
  aborted: 'The caller aborted the request.',
} as const;

export type ClientErrorCode = keyof typeof CLIENT_ERROR_CODES;

export interface ApiErrorInit {
  method: string;
  path: string;
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
}

/** Every failure of a client call. */
export class GatehouseApiError extends Error {
  readonly method: string;
  readonly path: string;
  readonly status: number | undefined;
  readonly errorCode: string;
  readonly msg: string;
  readonly details: Record<string, unknown>;
  readonly retryAfter: number | undefined;
  readonly attempts: number;
  readonly outcomeUnknown: boolean;

  constructor(init: ApiErrorInit) {
    const where = `${init.method} ${init.path}`;
    const status = init.status === undefined ? init.errorCode : `${init.status} ${init.errorCode}`;
    super(`${where}: ${status}: ${init.msg}`);
    this.name = 'GatehouseApiError';
    this.method = init.method;
    this.path = init.path;
    this.status = init.status;
    this.errorCode = init.errorCode;
    this.msg = init.msg;
    this.details = init.details ?? {};
    this.retryAfter = init.retryAfter;
    this.attempts = init.attempts ?? 1;
    this.outcomeUnknown = init.outcomeUnknown ?? false;
  }

  /** 429, 5xx and failures before an answer (except a caller's abort) may succeed if tried again. */
  get retryable(): boolean {
    if (this.status === undefined) return this.errorCode !== 'aborted' && this.errorCode !== 'invalid_response';
    return this.status === 429 || this.status >= 500;
  }

  /** `operation_id` of the failed request, when the server gave one (for support and logs). */
  get operationId(): string | undefined {
    const id = this.details.operation_id;
    return typeof id === 'string' ? id : undefined;
  }
}
