/**
 * Authentication and versioning come before anything else, on every route the app registers
 * (enumerated at test time, so families added later are covered) and on unknown paths.
 * After all the refused requests the database holds no object and no audit event: nothing
 * was processed.
 */
import type { InjectOptions } from 'light-my-request';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, TEST_API_KEY, type Harness } from '../testing/harness.js';
import { concreteUrl, registeredRoutes, type RouteEntry } from './route-table.js';

let h: Harness;
let routes: RouteEntry[];

beforeAll(async () => {
  h = await startHarness();
  routes = registeredRoutes(h.app);
});
afterAll(() => h.close());

const WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

async function send(route: RouteEntry, headers: Record<string, string>) {
  const res = await h.app.inject({
    // fastify names a few methods (SEARCH, QUERY) that light-my-request 6.6 does not type; the
    // server pins 6.6 (see packages/server/README.md) and registers none of them.
    method: route.method as InjectOptions['method'],
    url: concreteUrl(route.path),
    headers: { ...headers, ...(WITH_BODY.has(route.method) ? { 'content-type': 'application/json' } : {}) },
    ...(WITH_BODY.has(route.method) ? { payload: JSON.stringify({ description: 'must not be stored' }) } : {}),
  });
  return { status: res.statusCode, body: route.method === 'HEAD' || res.body === '' ? undefined : res.json() };
}

const VERSION = { 'service-version': '2' };
const AUTH = { authorization: `Bearer ${TEST_API_KEY}` };

const REFUSALS: { name: string; headers: Record<string, string>; status: number; code: string }[] = [
  { name: 'no Authorization header', headers: { ...VERSION }, status: 401, code: 'missing_authorization' },
  { name: 'an empty Authorization header', headers: { ...VERSION, authorization: '' }, status: 401, code: 'missing_authorization' },
  { name: 'a Basic credential', headers: { ...VERSION, authorization: `Basic ${TEST_API_KEY}` }, status: 401, code: 'invalid_authorization' },
  { name: 'Bearer without a token', headers: { ...VERSION, authorization: 'Bearer ' }, status: 401, code: 'invalid_authorization' },
  { name: 'a token with spaces', headers: { ...VERSION, authorization: `Bearer ${TEST_API_KEY} extra` }, status: 401, code: 'invalid_authorization' },
  { name: 'an unknown key', headers: { ...VERSION, authorization: 'Bearer not-a-known-key' }, status: 401, code: 'invalid_authorization' },
  { name: 'no Service-Version', headers: { ...AUTH }, status: 400, code: 'missing_version' },
  { name: 'Service-Version 1', headers: { ...AUTH, 'service-version': '1' }, status: 400, code: 'unsupported_version' },
  { name: 'Service-Version 3', headers: { ...AUTH, 'service-version': '3' }, status: 400, code: 'unsupported_version' },
  { name: 'an empty Service-Version', headers: { ...AUTH, 'service-version': '' }, status: 400, code: 'unsupported_version' },
  { name: 'Service-Version 2.0', headers: { ...AUTH, 'service-version': '2.0' }, status: 400, code: 'unsupported_version' },
];

describe('every registered route', () => {
  it('is enumerated, the known families included', () => {
    const paths = new Set(routes.map((r) => `${r.method} ${r.path}`));
    expect(paths).toContain('POST /ip_policies');
    expect(paths).toContain('GET /ip_policies/:id');
    expect(paths).toContain('DELETE /ip_policy_rules/:id');
    expect(routes.length).toBeGreaterThanOrEqual(10);
  });

  for (const refusal of REFUSALS) {
    it(`refuses ${refusal.name} with ${refusal.status} ${refusal.code}`, async () => {
      const wrong: string[] = [];
      for (const route of routes) {
        const res = await send(route, refusal.headers);
        const code = res.body?.error_code;
        if (res.status !== refusal.status || (route.method !== 'HEAD' && code !== refusal.code)) {
          wrong.push(`${route.method} ${route.path} -> ${res.status} ${code ?? ''}`);
        } else if (route.method !== 'HEAD') {
          expect(res.body.status_code).toBe(refusal.status);
          expect(typeof res.body.details.operation_id).toBe('string');
        }
      }
      expect(wrong).toEqual([]);
    });
  }

  it('authentication is checked before the version', async () => {
    for (const route of routes) {
      const res = await send(route, { 'service-version': '1' });
      expect(res.status, `${route.method} ${route.path}`).toBe(401);
    }
  });

  it('processed none of the refused requests', () => {
    const objects = h.app.db.prepare('SELECT count(*) AS n FROM objects').get() as { n: number };
    const events = h.app.db.prepare('SELECT count(*) AS n FROM audit_events').get() as { n: number };
    expect(objects.n).toBe(0);
    expect(events.n).toBe(0);
  });
});

describe('unknown paths', () => {
  const unknown = ['/nope', '/ip_policies/x/y/z', '/edges/nowhere', '/'];

  it.each(unknown)('%s needs a key and the version before it is a 404', async (url) => {
    const anon = await h.app.inject({ method: 'GET', url, headers: { ...VERSION } });
    expect(anon.statusCode).toBe(401);
    expect(anon.json().error_code).toBe('missing_authorization');
    const unversioned = await h.app.inject({ method: 'GET', url, headers: { ...AUTH } });
    expect(unversioned.statusCode).toBe(400);
    expect(unversioned.json().error_code).toBe('missing_version');
    const ok = await h.app.inject({ method: 'POST', url, headers: { ...AUTH, ...VERSION } });
    expect(ok.statusCode).toBe(404);
    expect(ok.json()).toMatchObject({ error_code: 'route_not_found', status_code: 404 });
    expect(typeof ok.json().details.operation_id).toBe('string');
  });

  it('a method a known path does not have is a 404 with the envelope', async () => {
    const res = await h.call('PUT', '/ip_policies', {});
    expect(res.status).toBe(404);
    expect(res.body.error_code).toBe('route_not_found');
  });

  it('the operation_id differs from request to request', async () => {
    const a = await h.call('GET', '/nope');
    const b = await h.call('GET', '/nope');
    expect(a.body.details.operation_id).not.toBe(b.body.details.operation_id);
  });
});

describe('valid credentials', () => {
  it('a known key and version 2 are accepted, the scheme case-insensitively', async () => {
    for (const scheme of ['Bearer', 'bearer']) {
      const res = await h.app.inject({
        method: 'GET',
        url: '/ip_policies',
        headers: { authorization: `${scheme} ${TEST_API_KEY}`, ...VERSION },
      });
      expect(res.statusCode).toBe(200);
    }
  });

  it('a key stored in the database is accepted there and nowhere else', async () => {
    const { token } = h.app.apiKeys.generate();
    const res = await h.app.inject({
      method: 'GET',
      url: '/ip_policies',
      headers: { authorization: `Bearer ${token}`, ...VERSION },
    });
    expect(res.statusCode).toBe(200);
    const other = await startHarness();
    try {
      const elsewhere = await other.app.inject({
        method: 'GET',
        url: '/ip_policies',
        headers: { authorization: `Bearer ${token}`, ...VERSION },
      });
      expect(elsewhere.statusCode).toBe(401);
    } finally {
      await other.close();
    }
  });

  it('error messages never echo the token sent', async () => {
    const secret = 'very-secret-token-value';
    const res = await h.app.inject({
      method: 'GET',
      url: '/ip_policies',
      headers: { authorization: `Bearer ${secret}`, ...VERSION },
    });
    expect(res.statusCode).toBe(401);
    expect(res.body).not.toContain(secret);
  });
});
