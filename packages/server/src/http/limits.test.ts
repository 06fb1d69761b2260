/**
 * The service's limits (http/limits.ts): off by default; the rolling rate limit answers 429
 * `rate_limited` with `Retry-After` and the envelope, per API key; the cap on simultaneous
 * requests answers 429 `too_many_concurrent_requests`; latency delays every answer. Windows
 * are long enough, or the clock is the test's, so that no test depends on the machine's speed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, authHeaders, TEST_API_KEY, type Harness } from '../testing/harness.js';
import { RollingWindow } from './limits.js';
import { parseRateLimit } from '@gatehouse/schemas';

const open: Harness[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((h) => h.close()));
});

describe('parseRateLimit', () => {
  it.each([
    ['120/60s', { max: 120, windowMs: 60_000 }],
    ['100/1m', { max: 100, windowMs: 60_000 }],
    ['10/500ms', { max: 10, windowMs: 500 }],
    ['5/2', { max: 5, windowMs: 2000 }],
    [' 7 / 3s ', { max: 7, windowMs: 3000 }],
  ])('reads %j', (text, expected) => {
    expect(parseRateLimit(text)).toEqual(expected);
  });

  it.each(['', 'abc', '120', '120/60h', '/60s', '1.5/60s', '-1/60s'])('rejects %j saying what it expects', (text) => {
    expect(() => parseRateLimit(text)).toThrow(/120\/60s/);
  });

  it.each(['0/60s', '10/0s'])('rejects %j, which allows nothing', (text) => {
    expect(() => parseRateLimit(text)).toThrow(/at least one request/);
  });
});

describe('when off (the default)', () => {
  it('never answers 429, nor waits', async () => {
    const h = await startHarness();
    open.push(h);
    for (let i = 0; i < 300; i++) {
      const res = await h.call('GET', '/ip_policies?limit=1');
      expect(res.status).toBe(200);
    }
  });
});

describe('the rate limit', () => {
  const SECOND_KEY = 'second-test-key-abcdef';

  async function limited(max: number) {
    const h = await startHarness({ rateLimit: { max, windowMs: 3_600_000 }, apiKeys: ['test-key-0123456789', SECOND_KEY] });
    open.push(h);
    return h;
  }

  it('answers 429 rate_limited with Retry-After and the envelope beyond the limit', async () => {
    const h = await limited(3);
    for (let i = 0; i < 3; i++) expect((await h.call('GET', '/ip_policies')).status).toBe(200);
    const res = await h.call('GET', '/ip_policies');
    expect(res.status).toBe(429);
    expect(res.body).toMatchObject({ error_code: 'rate_limited', status_code: 429, details: { service_error_code: 'ERR_NGROK_226' } });
    expect(res.body.msg).toBe(`Your account is rate limited to 3 API requests per 3600 s; retry after ${res.headers['retry-after']} s.`);
    expect(typeof res.body.details.operation_id).toBe('string');
    const retryAfter = Number(res.headers['retry-after']);
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3600);
  });

  it('counts writes too, and a refused write does nothing', async () => {
    const h = await limited(2);
    expect((await h.call('POST', '/ip_policies', {})).status).toBe(201);
    expect((await h.call('POST', '/ip_policies', {})).status).toBe(201);
    expect((await h.call('POST', '/ip_policies', {})).status).toBe(429);
    const n = (h.app.db.prepare('SELECT count(*) AS n FROM objects').get() as { n: number }).n;
    expect(n).toBe(2);
  });

  it('limits each key separately', async () => {
    const h = await limited(2);
    await h.call('GET', '/ip_policies');
    await h.call('GET', '/ip_policies');
    expect((await h.call('GET', '/ip_policies')).status).toBe(429);
    const other = await h.call('GET', '/ip_policies', undefined, { authorization: `Bearer ${SECOND_KEY}` });
    expect(other.status).toBe(200);
  });

  it('authentication still comes first: an unknown key gets 401, not 429', async () => {
    const h = await limited(1);
    await h.call('GET', '/ip_policies');
    const res = await h.app.inject({
      method: 'GET',
      url: '/ip_policies',
      headers: { ...authHeaders, authorization: 'Bearer unknown-key' },
    });
    expect(res.statusCode).toBe(401);
  });
});

describe('RollingWindow', () => {
  it('allows max requests in any window, not max per fixed bucket', () => {
    const window = new RollingWindow({ max: 3, windowMs: 1000 });
    // Three at the end of one second: a fixed bucket starting at 1000 would accept three more.
    expect([900, 950, 990].map((t) => window.take(t))).toEqual([0, 0, 0]);
    // Refused until 950 leaves the window; the refusal counts too.
    expect(window.take(1010)).toBe(940);
    expect(window.take(1950)).toBe(0);
    expect(window.take(1990)).toBe(0);
    // 1010 (refused), 1950 and 1990 are the last three, all in the window.
    expect(window.take(2000)).toBe(950);
  });

  it('says how long until a request would be accepted, and accepts it then', () => {
    const window = new RollingWindow({ max: 2, windowMs: 60_000 });
    expect(window.take(0)).toBe(0);
    expect(window.take(10_000)).toBe(0);
    const wait = window.take(20_000);
    expect(wait).toBe(50_000);
    expect(window.take(20_000 + wait)).toBe(0);
  });
});

describe('the cap on simultaneous requests', () => {
  it('refuses a request over the cap with 429 too_many_concurrent_requests, and accepts again once one finished', async () => {
    // Latency holds each request in flight for a while, so that three overlap.
    const h = await startHarness({ maxConcurrent: 2, latencyMs: 300 });
    open.push(h);
    const results = await Promise.all([0, 1, 2].map(() => h.call('GET', '/ip_policies')));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 429]);
    const refused = results.find((r) => r.status === 429)!;
    expect(refused.body).toMatchObject({
      error_code: 'too_many_concurrent_requests',
      status_code: 429,
      msg: 'Your account is limited to 2 simultaneous API requests; wait for one to finish.',
      details: { service_error_code: 'ERR_NGROK_225' },
    });
    expect(typeof refused.body.details.operation_id).toBe('string');
    expect(refused.headers['retry-after']).toBe('1');
    // All three have finished: the slots are free again.
    expect((await Promise.all([0, 1].map(() => h.call('GET', '/ip_policies')))).map((r) => r.status)).toEqual([200, 200]);
  });

  it('counts each key apart, and frees the slot of a request that failed', async () => {
    const SECOND_KEY = 'second-test-key-abcdef';
    const h = await startHarness({ maxConcurrent: 1, latencyMs: 200, apiKeys: [TEST_API_KEY, SECOND_KEY] });
    open.push(h);
    const [mine, theirs] = await Promise.all([
      h.call('GET', '/ip_policies/ipp_nothere'),
      h.call('GET', '/ip_policies', undefined, { authorization: `Bearer ${SECOND_KEY}` }),
    ]);
    expect([mine.status, theirs.status]).toEqual([404, 200]);
    expect((await h.call('GET', '/ip_policies')).status).toBe(200);
  });
});

describe('latency', () => {
  it('delays every answer, errors included, by about the time asked', async () => {
    const h = await startHarness({ latencyMs: 150 });
    open.push(h);
    for (const [method, url, body] of [
      ['GET', '/ip_policies'],
      ['POST', '/ip_policies', {}],
      ['GET', '/nowhere'],
    ] as const) {
      const started = performance.now();
      await h.call(method, url, body);
      expect(performance.now() - started).toBeGreaterThanOrEqual(145);
    }
    const started = performance.now();
    const anonymous = await h.app.inject({ method: 'GET', url: '/ip_policies' });
    expect(anonymous.statusCode).toBe(401);
    expect(performance.now() - started).toBeGreaterThanOrEqual(145);
  });
});
