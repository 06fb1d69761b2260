/**
 * Test harness for the server: an app over an in-memory database with one known API key, and
 * a `call` helper that sends the required headers. Used by the server's own tests and by other
 * packages' tests that need a real server in-process.
 */
import { buildApp, type AppOptions, type GatehouseApp } from '../app.js';

export const TEST_API_KEY = 'test-key-0123456789';
export const TEST_BASE_URL = 'http://gatehouse.test';

export const authHeaders = {
  authorization: `Bearer ${TEST_API_KEY}`,
  'service-version': '2',
} as const;

export interface CallResult<T = any> {
  status: number;
  body: T;
  headers: Record<string, unknown>;
}

export interface Harness {
  app: GatehouseApp;
  /** Sends a request with the key and version headers; JSON bodies are encoded. */
  call<T = any>(method: string, url: string, body?: unknown, headers?: Record<string, string>): Promise<CallResult<T>>;
  close(): Promise<void>;
}

export async function startHarness(options: AppOptions = {}): Promise<Harness> {
  // Tests written before reservations create edges on any hostport: the check is opt-in here.
  const app = await buildApp({ apiKeys: [TEST_API_KEY], baseUrl: TEST_BASE_URL, reservationCheck: false, ...options });
  return {
    app,
    async call(method, url, body, headers = {}) {
      const res = await app.inject({
        method: method as 'GET',
        url,
        headers: {
          ...authHeaders,
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...headers,
        },
        ...(body !== undefined ? { payload: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
      });
      return {
        status: res.statusCode,
        body: (res.body === '' ? undefined : res.json()) as never,
        headers: res.headers as Record<string, unknown>,
      };
    },
    close: () => app.close(),
  };
}

/** Asserts-friendly shape of an error envelope. */
export function errorOf(result: CallResult): { code: string; msg: string; field?: unknown } {
  return { code: result.body?.error_code, msg: result.body?.msg, field: result.body?.details?.field };
}
