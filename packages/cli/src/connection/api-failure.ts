/**
 * The sentence that follows an API failure in a command's error: what to check, chosen by
 * what failed. Failures that would fail again the same way (TLS, 401, a bad answer) say what
 * to fix, never "try again later"; only a failure that may pass on its own says so, and only
 * after the client has already retried it. What the API's message says already is not said again.
 */
import type { LiveApiError } from '@gatehouse/engine/core';

export function apiFailureHint(error: Pick<LiveApiError, 'status' | 'code' | 'retryable'> & { message?: string }): string | undefined {
  switch (error.code) {
    case 'tls_error':
      return "check the URL's scheme and port (https:// at a plain-HTTP port fails this way); for a private CA, pass --ca-file or set GATEHOUSE_CA_FILE";
    case 'timeout':
      return 'no answer within --timeout (GATEHOUSE_TIMEOUT, default 10s); check that the server is up, or allow more time';
    case 'deadline_exceeded':
      return '--deadline (GATEHOUSE_DEADLINE) passed; allow more time, or check why the API is slow';
    case 'connection_refused':
      return 'nothing answered at that address; check the URL and that the API is running (and HTTPS_PROXY/NO_PROXY, if a proxy is in the way)';
    case 'dns_error':
      return "check the host name in the API URL (or in HTTPS_PROXY/HTTP_PROXY) and this machine's DNS";
    case 'proxy_error':
      return "check the proxy variables (HTTPS_PROXY, HTTP_PROXY, ALL_PROXY), or name the API's host in NO_PROXY to reach it directly";
    case 'invalid_response':
      return "the answer is not the API's JSON; check that the URL points at the management API, not a web page or a proxy";
    default:
  }
  // The API's own sentence usually says the key is wrong already: then only what to check.
  if (error.status === 401)
    return /\bkey\b/i.test(error.message ?? '') ? 'check GATEHOUSE_API_KEY (or --api-key)' : 'the API key was refused; check GATEHOUSE_API_KEY (or --api-key)';
  if (error.status === 403) return 'the API key may not do this; check its permissions';
  if (error.retryable) return 'try again later';
  return undefined;
}
