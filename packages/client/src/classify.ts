/**
 * Every failed attempt as a `GatehouseApiError`: an error answer with the API's envelope (or
 * without one, from a proxy or a load balancer), and failures before an answer by what they
 * say about the request: never sent (a refused connection, a name that does not resolve, a
 * proxy's refusal, a TLS handshake), or perhaps carried out (a reset, a timeout).
 */
import { ProxyError } from './dispatcher.js';
import { GatehouseApiError } from './errors.js';
import type { Answer as Limits } from './pace.js';

/** Where an attempt went, for the error's message. */
export interface AttemptPlace {
  method: string;
  path: string;
  baseUrl: string;
  attempt: number;
  /** The proxy the request went through, without credentials. */
  proxy?: string | undefined;
}

/**
 * An answer with status 400 or more as the error it carries; `retryAfter` is the server's
 * `Retry-After`, or the reset of a window it says is used up (`limits`).
 */
export function errorFromResponse(place: AttemptPlace, status: number, text: string, limits: Limits = {}): GatehouseApiError {
  let envelope: { error_code?: unknown; msg?: unknown; details?: unknown } = {};
  try {
    envelope = JSON.parse(text) as typeof envelope;
  } catch {
    // Not the API's envelope (a proxy's page, an empty body): keep the status.
  }
  const details = envelope.details && typeof envelope.details === 'object' ? (envelope.details as Record<string, unknown>) : {};
  const waitMs = limits.retryAfterMs ?? (limits.remaining === 0 ? limits.resetMs : undefined);
  const through = place.proxy ? ` (through the proxy ${place.proxy}, which may have answered itself)` : '';
  return new GatehouseApiError({
    method: place.method,
    path: place.path,
    baseUrl: place.baseUrl,
    status,
    errorCode: typeof envelope.error_code === 'string' ? envelope.error_code : `http_${status}`,
    msg: typeof envelope.msg === 'string' ? envelope.msg : `the server answered ${status} without an error envelope${through}`,
    details,
    ...(waitMs !== undefined ? { retryAfter: waitMs / 1000 } : {}),
    attempts: place.attempt,
  });
}

/** Node's codes of a connection that was never made: nothing was sent. */
const NOT_SENT = new Set(['ECONNREFUSED', 'UND_ERR_CONNECT_TIMEOUT', 'EHOSTUNREACH', 'ENETUNREACH']);
/** Name resolution: `ENOTFOUND` (no such name) stays so; `EAI_AGAIN` (no answer from the resolver) may pass. */
const DNS_FAILURES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NODATA', 'EAI_NONAME']);
const TIMEOUTS = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

/**
 * Node's and OpenSSL's codes of a failed TLS handshake: plain HTTP at an https:// port
 * (`ERR_SSL_WRONG_VERSION_NUMBER`), a certificate nobody trusts, or one for another name.
 */
const TLS_FAILURES = /^(ERR_SSL_|ERR_TLS_|EPROTO$|UNABLE_TO_|SELF_SIGNED_CERT|DEPTH_ZERO_SELF_SIGNED_CERT|CERT_|HOSTNAME_MISMATCH)/;

/** A failure before an answer arrived (no status), as a client error; says whether the request may have run. */
export function classify(error: unknown, place: AttemptPlace): GatehouseApiError {
  const { method, path, baseUrl, attempt } = place;
  const at = { method, path, baseUrl, status: undefined, attempts: attempt };
  const proxyError = causeOfType(error, ProxyError);
  // A tunnel that failed because the proxy itself could not be reached is that failure (its name
  // does not resolve, it refuses connections), not a tunnel the proxy dropped.
  const reaching = proxyError ? errorCodeOf(proxyError.cause) : undefined;
  const proxyUnreachable = reaching !== undefined && (DNS_FAILURES.has(reaching) || NOT_SENT.has(reaching));
  if (proxyError && !proxyUnreachable) {
    const refused = proxyError.status !== undefined && proxyError.status < 500;
    const advice =
      proxyError.status === 407
        ? ': it requires authentication; put the user and password in the proxy URL'
        : refused
          ? "; the proxy must allow CONNECT to the API's port (Squid allows only 443 by default)"
          : '';
    // Not tried again: a proxy that refuses or drops a tunnel does so by its configuration (no
    // CONNECT support, ports it does not allow), and would do it again.
    return new GatehouseApiError({
      ...at,
      errorCode: 'proxy_error',
      msg: `${proxyError.message}${advice}`,
      details: proxyError.status !== undefined ? { proxy_status: proxyError.status } : {},
      retryable: false,
    });
  }
  const failure = proxyUnreachable ? proxyError!.cause : error;
  const code = errorCodeOf(failure);
  if (code !== undefined && DNS_FAILURES.has(code)) {
    const host = hostOf(failure) ?? 'the host name';
    const temporary = code === 'EAI_AGAIN';
    return new GatehouseApiError({
      ...at,
      errorCode: 'dns_error',
      msg: `DNS lookup of ${host} failed (${code}${temporary ? ': the resolver did not answer' : ': no such name'})`,
      retryable: temporary,
    });
  }
  if (code !== undefined && NOT_SENT.has(code)) {
    const to = proxyUnreachable ? ` to the proxy ${proxyError!.proxy}` : '';
    return new GatehouseApiError({ ...at, errorCode: 'connection_refused', msg: `cannot connect${to} (${code})` });
  }
  if (code !== undefined && TLS_FAILURES.test(code)) {
    return new GatehouseApiError({ ...at, errorCode: 'tls_error', msg: `TLS handshake failed (${code}: ${tlsReason(error)})` });
  }
  if (place.proxy && /Proxy Authentication Required \(407\)/.test((error as Error)?.message ?? '')) {
    // undici's words for a 407 to an absolute-form request (an http:// API through the proxy).
    return new GatehouseApiError({
      ...at,
      errorCode: 'proxy_error',
      msg: `the proxy ${place.proxy} answered 407: it requires authentication; put the user and password in the proxy URL`,
      retryable: false,
    });
  }
  const timeout = code !== undefined && TIMEOUTS.has(code);
  return new GatehouseApiError({
    ...at,
    errorCode: timeout ? 'timeout' : 'network_error',
    msg: `${timeout ? 'no answer in time' : 'connection failed'} (${code ?? (error as Error)?.message ?? 'unknown'})`,
    outcomeUnknown: true,
  });
}

/** `error` and its causes (`cause`), at most four deep. */
function* causes(error: unknown): Generator<{ code?: unknown; message?: unknown; hostname?: unknown }> {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth++) {
    yield current;
    current = (current as { cause?: unknown }).cause;
  }
}

/** The first error of type `type` in the chain of causes. */
function causeOfType<T>(error: unknown, type: abstract new (...args: never[]) => T): T | undefined {
  for (const cause of causes(error)) if (cause instanceof type) return cause;
  return undefined;
}

/** The host name a DNS failure was about (Node's `hostname` on the error or a cause). */
function hostOf(error: unknown): string | undefined {
  return [...causes(error)].map((cause) => cause.hostname).find((hostname): hostname is string => typeof hostname === 'string' && hostname !== '');
}

/**
 * Why the handshake failed, in words: Node's message for certificate failures ("unable to
 * verify the first certificate", "Hostname/IP does not match certificate's altnames: ..."),
 * and a sentence instead of OpenSSL's internal record line when the server does not speak TLS.
 */
function tlsReason(error: unknown): string {
  for (const { code, message } of causes(error)) {
    if (code === 'ERR_SSL_WRONG_VERSION_NUMBER') return 'the server does not speak TLS at this port';
    if (typeof code === 'string' && TLS_FAILURES.test(code) && typeof message === 'string' && !message.includes('SSL routines')) return message.split('\n')[0]!;
  }
  return 'no details';
}

function errorCodeOf(error: unknown): string | undefined {
  return [...causes(error)].map((cause) => cause.code).find((code): code is string => typeof code === 'string');
}

/**
 * A 429 for too many simultaneous requests (the service's `ERR_NGROK_225`, "limited to N
 * simultaneous API requests"), as the pacer's cue to lower its cap.
 */
export function concurrencyRefusal(error: GatehouseApiError): Pick<Limits, 'concurrencyRefused'> | undefined {
  if (
    error.status !== 429 ||
    !/ERR_NGROK_225|simultaneous|concurren/i.test(`${error.errorCode} ${String(error.details.service_error_code ?? '')} ${error.msg}`)
  )
    return undefined;
  const limit = /(\d+)\s+simultaneous/i.exec(error.msg)?.[1];
  return { concurrencyRefused: limit ? { limit: Number(limit) } : {} };
}
