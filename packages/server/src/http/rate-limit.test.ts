/**
 * The optional rate limit: off by default; when on, each API key gets `max` requests per
 * window and then 429 `rate_limited` with `Retry-After` and the envelope, without affecting
 * other keys. Windows are long enough here that no test depends on timing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, authHeaders, type Harness } from '../testing/harness.js';
import { parseRateLimit } from './rate-limit.js';

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
  it('never answers 429', async () => {
    const h = await startHarness();
    open.push(h);
    for (let i = 0; i < 300; i++) {
      const res = await h.call('GET', '/ip_policies?limit=1');
      expect(res.status).toBe(200);
    }
  });
});

describe('when on', () => {
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
    expect(res.body).toMatchObject({ error_code: 'rate_limited', status_code: 429 });
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
