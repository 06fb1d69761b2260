/**
 * The connection pool a client makes for itself: undici's `Agent`, or its `ProxyAgent` when the
 * caller names a proxy, with the attempt's time limits on every connection.
 *
 * Through an HTTP proxy, an `http://` API is asked in absolute form (`GET http://api/path`), as
 * curl and most clients do, so a proxy that tunnels only to port 443 (Squid's default) still
 * serves it; an `https://` API is reached through a CONNECT tunnel. A tunnel the proxy refuses
 * (any answer but 200) or drops is a `ProxyError` naming the proxy, at once: undici would
 * otherwise treat a dropped tunnel as a socket that closed and connect again and again, and the
 * request would never end.
 */
import { Agent, Pool, ProxyAgent, type Dispatcher } from 'undici';
import { CONNECT_TIMEOUT_MS } from './retry.js';

export interface ConnectionOptions {
  /** Connections per origin (the requests in flight at once). */
  connections: number;
  /** Longest wait for the first byte of an answer and between two of its bytes; connecting waits at most `CONNECT_TIMEOUT_MS` of it. */
  timeoutMs: number;
  /** URL of an HTTP(S) proxy to reach the API through. */
  proxy?: string;
  /** PEM certificates to trust for an https:// API (and proxy), besides Node's own. */
  ca?: string[];
}

/** The proxy refused or dropped the tunnel to the API: the request was never sent to the API. */
export class ProxyError extends Error {
  readonly code = 'GATEHOUSE_PROXY_TUNNEL';
  constructor(
    /** The proxy's URL without credentials. */
    readonly proxy: string,
    /** `host:port` the tunnel was asked for. */
    readonly target: string,
    /** The proxy's answer to CONNECT; undefined when it closed the connection or failed. */
    readonly status: number | undefined,
    cause?: unknown,
  ) {
    super(
      status === undefined
        ? `the proxy ${proxy} closed the connection instead of opening a tunnel to ${target}`
        : `the proxy ${proxy} refused a tunnel to ${target} (it answered ${status} to CONNECT)`,
      cause === undefined ? undefined : { cause },
    );
    this.name = 'ProxyError';
  }
}

/** `url` without user name and password (a proxy URL may carry them; they are secrets). */
export function withoutCredentials(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.href.replace(/\/$/, '');
  } catch {
    return '(an unreadable proxy URL)';
  }
}

export function createDispatcher(options: ConnectionOptions): Dispatcher {
  const connectTimeout = Math.min(CONNECT_TIMEOUT_MS, options.timeoutMs);
  const tls = options.ca ? { ca: options.ca } : undefined;
  const limits = { headersTimeout: options.timeoutMs, bodyTimeout: options.timeoutMs };
  if (!options.proxy) return new Agent({ connections: options.connections, connectTimeout, ...limits, ...(tls ? { connect: tls } : {}) });

  const proxy = withoutCredentials(options.proxy);
  return new ProxyAgent({
    uri: options.proxy,
    proxyTunnel: false,
    connections: options.connections,
    connectTimeout,
    ...limits,
    ...(tls ? { requestTls: tls, proxyTls: tls } : {}),
    // Pools to the proxy (absolute-form requests) and through its tunnels, with the time limits.
    factory: (origin, poolOptions) => new Pool(origin, { ...poolOptions, ...limits }),
    // The pool that asks the proxy for tunnels.
    clientFactory: (origin, poolOptions) => new Pool(origin, { ...poolOptions, ...limits }).compose(tunnelFailures(proxy)),
  });
}

/**
 * An interceptor of CONNECT requests to the proxy: a refusal (an answer other than 200) or a
 * failure (the proxy closed the connection, did not answer in time) becomes a `ProxyError`.
 */
function tunnelFailures(proxy: string): Dispatcher.DispatcherComposeInterceptor {
  return (dispatch) => (options, handler) => {
    if (options.method !== 'CONNECT') return dispatch(options, handler);
    const target = options.path;
    const fail = (controller: Dispatcher.DispatchController, status: number | undefined, cause?: unknown) =>
      handler.onResponseError?.(controller, new ProxyError(proxy, target, status, cause));
    return dispatch(options, {
      onRequestStart: (controller, context) => handler.onRequestStart?.(controller, context),
      onRequestUpgrade: (controller, status, headers, socket) => {
        if (status === 200) return handler.onRequestUpgrade?.(controller, status, headers, socket);
        socket.destroy();
        return fail(controller, status);
      },
      onResponseStart: (controller, status, headers, message) => handler.onResponseStart?.(controller, status, headers, message),
      onResponseData: (controller, chunk) => handler.onResponseData?.(controller, chunk),
      onResponseEnd: (controller, trailers) => handler.onResponseEnd?.(controller, trailers),
      onResponseError: (controller, error) => fail(controller, undefined, error),
    });
  };
}
