import { MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GatehouseClient } from './client.js';
import { GatehouseApiError } from './errors.js';
import { parseRetryAfter } from './rate-headers.js';
import { backoffDelay, DEFAULT_RETRY, DEFAULT_TIMEOUT_MS, worstCaseMs } from './retry.js';
import type { RequestEvent } from './client-options.js';

const ORIGIN = 'http://api.test';
const ERROR = (code: string, status: number) => ({ error_code: code, status_code: status, msg: `${code} happened`, details: { operation_id: 'op_1' } });
const POLICY = { id: 'ipp_1', uri: `${ORIGIN}/ip_policies/ipp_1`, created_at: '2026-01-01T00:00:00Z' };

function withCode(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

describe('client retries and errors (mocked transport)', () => {
  let mock: MockAgent;
  let events: RequestEvent[];
  let client: GatehouseClient;

  beforeEach(() => {
    mock = new MockAgent();
    mock.disableNetConnect();
    events = [];
    client = new GatehouseClient({
      baseUrl: ORIGIN,
      apiKey: 'k-secret',
      dispatcher: mock,
      retry: { baseDelayMs: 1, maxAttempts: 4 },
      onRequest: (e) => events.push(e),
    });
  });
  afterEach(async () => {
    await mock.close();
  });

  const pool = () => mock.get(ORIGIN);

  it('sends the key and version headers', async () => {
    pool()
      .intercept({ path: '/ip_policies/ipp_1', method: 'GET', headers: { authorization: 'Bearer k-secret', 'service-version': '2' } })
      .reply(200, POLICY);
    await expect(client.ipPolicies.get('ipp_1')).resolves.toEqual(POLICY);
  });

  it('retries a 429 and honours Retry-After', async () => {
    pool()
      .intercept({ path: '/ip_policies/ipp_1', method: 'GET' })
      .reply(429, ERROR('rate_limited', 429), { headers: { 'retry-after': '0' } });
    pool().intercept({ path: '/ip_policies/ipp_1', method: 'GET' }).reply(200, POLICY);
    await expect(client.ipPolicies.get('ipp_1')).resolves.toEqual(POLICY);
    expect(events.map((e) => [e.status, e.willRetry])).toEqual([
      [429, true],
      [200, false],
    ]);
    // Both attempts count, and the refusal is counted as such.
    expect(client.requests).toMatchObject({ total: 2, rateLimited: 1 });
    expect(events[0]!.error!.retryAfter).toBe(0);
  });

  it('retries a POST after a 429 (refused before handling) but never after a 5xx', async () => {
    pool()
      .intercept({ path: '/ip_policies', method: 'POST' })
      .reply(429, ERROR('rate_limited', 429), { headers: { 'retry-after': '0' } });
    pool().intercept({ path: '/ip_policies', method: 'POST' }).reply(201, POLICY);
    await expect(client.ipPolicies.create({})).resolves.toEqual(POLICY);

    pool().intercept({ path: '/ip_policies', method: 'POST' }).reply(503, ERROR('service_unavailable', 503));
    const error = await client.ipPolicies.create({}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatehouseApiError);
    expect(error).toMatchObject({ status: 503, errorCode: 'service_unavailable', retryable: true, attempts: 1 });
  });

  it('retries 5xx on GET, PUT, PATCH and DELETE until success', async () => {
    for (const method of ['GET', 'PATCH'] as const) {
      pool().intercept({ path: '/ip_policies/ipp_1', method }).reply(502, 'bad gateway');
      pool().intercept({ path: '/ip_policies/ipp_1', method }).reply(500, ERROR('internal_error', 500));
      pool().intercept({ path: '/ip_policies/ipp_1', method }).reply(200, POLICY);
    }
    await expect(client.ipPolicies.get('ipp_1')).resolves.toEqual(POLICY);
    await expect(client.ipPolicies.update('ipp_1', { description: 'x' })).resolves.toEqual(POLICY);
    pool().intercept({ path: '/edges/tcp/edgtcp_1/backend', method: 'PUT' }).reply(503, ERROR('service_unavailable', 503));
    pool()
      .intercept({ path: '/edges/tcp/edgtcp_1/backend', method: 'PUT' })
      .reply(200, { enabled: true, backend: { id: 'b', uri: 'u' } });
    await expect(client.tcpEdgeModules.backend.replace('edgtcp_1', { backend_id: 'b' })).resolves.toMatchObject({ enabled: true });
    expect(events.filter((e) => e.willRetry)).toHaveLength(5);
  });

  it('never retries a 4xx and exposes the envelope', async () => {
    pool().intercept({ path: '/ip_policies/ipp_x', method: 'GET' }).reply(404, ERROR('not_found', 404));
    const error = (await client.ipPolicies.get('ipp_x').catch((e: unknown) => e)) as GatehouseApiError;
    expect(error).toMatchObject({ status: 404, errorCode: 'not_found', msg: 'not_found happened', retryable: false, attempts: 1 });
    expect(error.operationId).toBe('op_1');
    expect(error.message).not.toContain('k-secret');
    expect(events).toHaveLength(1);
  });

  it('retries network failures of a GET, and marks a lost POST as outcome unknown', async () => {
    pool().intercept({ path: '/bot_users/bot_1', method: 'GET' }).replyWithError(withCode('socket hang up', 'ECONNRESET'));
    pool().intercept({ path: '/bot_users/bot_1', method: 'GET' }).reply(200, { id: 'bot_1' });
    await expect(client.botUsers.get('bot_1')).resolves.toEqual({ id: 'bot_1' });

    pool().intercept({ path: '/bot_users', method: 'POST' }).replyWithError(withCode('socket hang up', 'ECONNRESET'));
    const lost = (await client.botUsers.create({ name: 'x' }).catch((e: unknown) => e)) as GatehouseApiError;
    expect(lost).toMatchObject({ status: undefined, errorCode: 'network_error', outcomeUnknown: true, retryable: true, attempts: 1 });

    pool().intercept({ path: '/bot_users', method: 'POST' }).replyWithError(withCode('refused', 'ECONNREFUSED'));
    pool().intercept({ path: '/bot_users', method: 'POST' }).reply(201, { id: 'bot_2' });
    await expect(client.botUsers.create({ name: 'y' })).resolves.toEqual({ id: 'bot_2' });
  });

  it('gives up after maxAttempts with the last error', async () => {
    for (let i = 0; i < 4; i++) pool().intercept({ path: '/ip_policies/ipp_1', method: 'GET' }).reply(500, ERROR('internal_error', 500));
    const error = (await client.ipPolicies.get('ipp_1').catch((e: unknown) => e)) as GatehouseApiError;
    expect(error).toMatchObject({ status: 500, attempts: 4 });
    expect(events).toHaveLength(4);
  });

  it('treats a retried DELETE that finds the object gone as done', async () => {
    pool().intercept({ path: '/ip_policies/ipp_1', method: 'DELETE' }).reply(503, ERROR('service_unavailable', 503));
    pool().intercept({ path: '/ip_policies/ipp_1', method: 'DELETE' }).reply(404, ERROR('not_found', 404));
    await expect(client.ipPolicies.delete('ipp_1')).resolves.toBeUndefined();
    pool().intercept({ path: '/ip_policies/ipp_2', method: 'DELETE' }).reply(404, ERROR('not_found', 404));
    await expect(client.ipPolicies.delete('ipp_2')).rejects.toMatchObject({ status: 404 });
  });

  it('follows next_page_uri with limit 100, re-aimed at the base URL', async () => {
    pool()
      .intercept({ path: '/bot_users?limit=100', method: 'GET' })
      .reply(200, { bot_users: [{ id: 'b3' }, { id: 'b2' }], uri: 'x', next_page_uri: 'http://public.example/bot_users?before_id=b2&limit=100' });
    pool()
      .intercept({ path: '/bot_users?before_id=b2&limit=100', method: 'GET' })
      .reply(200, { bot_users: [{ id: 'b1' }], uri: 'x', next_page_uri: null });
    const ids: string[] = [];
    for await (const bot of client.botUsers.list()) ids.push(bot.id);
    expect(ids).toEqual(['b3', 'b2', 'b1']);
    expect(client.requests.byMethod.GET).toBe(2);
  });

  it('holds requests beyond the client-side rate limit', async () => {
    const limited = new GatehouseClient({ baseUrl: ORIGIN, apiKey: 'k', dispatcher: mock, rateLimit: { requests: 2, intervalMs: 60_000 } });
    for (let i = 0; i < 3; i++) pool().intercept({ path: '/ip_policies/ipp_1', method: 'GET' }).reply(200, POLICY);
    const abort = new AbortController();
    const calls = [0, 1, 2].map(() =>
      limited.ipPolicies.get('ipp_1', { signal: abort.signal }).then(
        () => 'done',
        () => 'aborted',
      ),
    );
    await Promise.all(calls.slice(0, 2));
    expect(limited.requests.total).toBe(2);
    abort.abort();
    expect(await calls[2]).toBe('aborted');
    expect(limited.requests.total).toBe(2);
  });
});

describe('retry policy', () => {
  it('backs off exponentially with full jitter, capped', () => {
    const options = { ...DEFAULT_RETRY, baseDelayMs: 100, maxDelayMs: 1000 };
    expect([1, 2, 3, 4, 5].map((a) => backoffDelay(a, options, () => 1))).toEqual([100, 200, 400, 800, 1000]);
    expect(backoffDelay(3, options, () => 0.5)).toBe(200);
    expect(backoffDelay(3, options, () => 0)).toBe(0);
  });

  it('with the defaults, a request against an API that never answers ends within a minute', () => {
    // Five attempts of 10 s and the longest backoffs between them: 53.75 s.
    expect(worstCaseMs(DEFAULT_TIMEOUT_MS)).toBe(5 * 10_000 + 250 + 500 + 1000 + 2000);
    expect(worstCaseMs(DEFAULT_TIMEOUT_MS)).toBeLessThan(60_000);
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('7')).toBe(7);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4_000)).toBe(6);
    expect(parseRetryAfter(undefined)).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
  });
});
