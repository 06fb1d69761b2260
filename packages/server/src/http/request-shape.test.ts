/**
 * The shape rules every request meets before a resource sees it: JSON bodies only where a
 * body belongs, declared as JSON, well formed; only the query parameters an endpoint takes.
 * Each failure is a 400 (413 for an oversize body) with the envelope, `details` an object
 * carrying the operation_id, and nothing stored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authHeaders, startHarness, type Harness } from '../testing/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

async function raw(method: string, url: string, headers: Record<string, string>, payload?: string) {
  const res = await h.app.inject({
    method: method as 'GET',
    url,
    headers: { ...authHeaders, ...headers },
    ...(payload !== undefined ? { payload } : {}),
  });
  return { status: res.statusCode, body: res.json() as Record<string, any> };
}

function expectEnvelope(res: { status: number; body: Record<string, any> }, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.body).toMatchObject({ error_code: code, status_code: status });
  expect(typeof res.body.msg).toBe('string');
  expect(res.body.msg.length).toBeGreaterThan(0);
  expect(res.body.details).toBeTypeOf('object');
  expect(res.body.details).not.toBeNull();
  expect(typeof res.body.details.operation_id).toBe('string');
}

const storedCount = () => (h.app.db.prepare('SELECT count(*) AS n FROM objects').get() as { n: number }).n;

describe('bodies', () => {
  const json = { 'content-type': 'application/json' };

  it.each([
    ['{"description": "x"', 'truncated'],
    ['{description: "x"}', 'unquoted key'],
    ["{'description': 'x'}", 'single quotes'],
    ['{"description": "x"} trailing', 'trailing text'],
  ])('malformed JSON (%s, %s) is 400 invalid_json', async (payload) => {
    expectEnvelope(await raw('POST', '/ip_policies', json, payload), 400, 'invalid_json');
  });

  it('malformed JSON on PATCH is 400 invalid_json', async () => {
    const created = await h.call('POST', '/ip_policies', {});
    expectEnvelope(await raw('PATCH', `/ip_policies/${created.body.id}`, json, '{"description":'), 400, 'invalid_json');
  });

  it('a body without Content-Type is 400 missing_content_type', async () => {
    expectEnvelope(await raw('POST', '/ip_policies', {}, '{"description":"x"}'), 400, 'missing_content_type');
  });

  it('a body that is not JSON is 400 unsupported_content_type', async () => {
    expectEnvelope(await raw('POST', '/ip_policies', { 'content-type': 'text/plain' }, 'description=x'), 400, 'unsupported_content_type');
  });

  it('Content-Type JSON with a charset is accepted', async () => {
    const res = await raw('POST', '/ip_policies', { 'content-type': 'application/json; charset=utf-8' }, '{}');
    expect(res.status).toBe(201);
  });

  it('an empty JSON body is 400 missing_body', async () => {
    expectEnvelope(await raw('POST', '/ip_policies', { ...json, 'content-length': '0' }, ''), 400, 'missing_body');
  });

  it.each(['[]', '"text"', '42', 'null'])('a JSON body that is not an object (%s) is 400', async (payload) => {
    const res = await raw('POST', '/ip_policies', json, payload);
    expect(res.status).toBe(400);
    expectEnvelope(res, 400, res.body.error_code as string);
  });

  it('a body on GET is 400 unexpected_body', async () => {
    expectEnvelope(await raw('GET', '/ip_policies', json, '{}'), 400, 'unexpected_body');
  });

  it('a body on DELETE is 400 unexpected_body and deletes nothing', async () => {
    const created = await h.call('POST', '/ip_policies', {});
    expectEnvelope(await raw('DELETE', `/ip_policies/${created.body.id}`, json, '{}'), 400, 'unexpected_body');
    expect((await h.call('GET', `/ip_policies/${created.body.id}`)).status).toBe(200);
  });

  it('a body over the size limit is 413 payload_too_large', async () => {
    const big = JSON.stringify({ description: 'x'.repeat(2 * 1024 * 1024) });
    expectEnvelope(await raw('POST', '/ip_policies', json, big), 413, 'payload_too_large');
  });

  it('none of the refused bodies was stored', async () => {
    const before = storedCount();
    await raw('POST', '/ip_policies', {}, '{"description":"x"}');
    await raw('POST', '/ip_policies', json, '{"description":');
    expect(storedCount()).toBe(before);
  });
});

describe('query parameters', () => {
  it('an unknown query parameter on a list is 400 unknown_query_parameter naming it', async () => {
    const res = await raw('GET', '/ip_policies?limt=5', {});
    expectEnvelope(res, 400, 'unknown_query_parameter');
    expect(res.body.details.field).toBe('limt');
  });

  it('a query parameter on an endpoint that takes none is 400', async () => {
    const created = await h.call('POST', '/ip_policies', {});
    const res = await raw('GET', `/ip_policies/${created.body.id}?verbose=true`, {});
    expectEnvelope(res, 400, 'unknown_query_parameter');
    expect(res.body.details.field).toBe('verbose');
  });

  it('a query parameter on a create is 400 and creates nothing', async () => {
    const before = storedCount();
    const res = await raw('POST', '/ip_policies?dry_run=1', { 'content-type': 'application/json' }, '{}');
    expectEnvelope(res, 400, 'unknown_query_parameter');
    expect(storedCount()).toBe(before);
  });

  it.each(['0', '101', '-1', 'ten', '1.5'])('limit=%s is 400 invalid_query_parameter', async (limit) => {
    const res = await raw('GET', `/ip_policies?limit=${limit}`, {});
    expectEnvelope(res, 400, 'invalid_query_parameter');
    expect(res.body.details.field).toBe('limit');
  });
});
