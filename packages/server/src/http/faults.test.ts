/**
 * Fault injection (tests only): `before` faults do nothing and answer 503; `after-503` and
 * `after-drop` faults commit the change and lose the answer; a seed makes the decisions
 * repeatable; requests refused by authentication are never faulted.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, TEST_API_KEY, authHeaders, type Harness } from '../testing/harness.js';
import { buildApp, type GatehouseApp } from '../app.js';
import { faultPlanner, parseFaultInjection, seededRandom, type FaultInjection } from './faults.js';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((x) => x.close()));
});

async function harness(faults: FaultInjection): Promise<Harness> {
  const h = await startHarness({ faults });
  open.push(h);
  return h;
}

const count = (app: GatehouseApp, table: 'objects' | 'audit_events') => (app.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;

describe('parseFaultInjection', () => {
  it('reads a rate, a seed and modes', () => {
    expect(parseFaultInjection('0.2')).toEqual({ rate: 0.2 });
    expect(parseFaultInjection('1', '42', 'before, after-drop')).toEqual({
      rate: 1,
      seed: 42,
      modes: ['before', 'after-drop'],
    });
  });

  it.each([['-0.1'], ['1.5'], ['x'], ['']])('rejects the rate %j', (rate) => {
    expect(() => parseFaultInjection(rate)).toThrow(/between 0 and 1/);
  });

  it('rejects a bad seed and unknown modes', () => {
    expect(() => parseFaultInjection('0.5', 'abc')).toThrow(/seed/);
    expect(() => parseFaultInjection('0.5', '1', 'before,sometimes')).toThrow(/before, after-503, after-drop/);
    expect(() => parseFaultInjection('0.5', '1', ',')).toThrow(/modes/);
  });
});

describe('the planner', () => {
  it('is deterministic with a seed and differs between seeds', () => {
    const run = (seed: number) => {
      const next = faultPlanner({ rate: 0.3, seed });
      return Array.from({ length: 200 }, () => next() ?? 'ok');
    };
    expect(run(7)).toEqual(run(7));
    expect(run(7)).not.toEqual(run(8));
  });

  it('fails about the requested fraction, in every mode', () => {
    const next = faultPlanner({ rate: 0.2, seed: 1 });
    const outcomes = Array.from({ length: 5000 }, () => next() ?? 'ok');
    const failed = outcomes.filter((o) => o !== 'ok').length / outcomes.length;
    expect(failed).toBeGreaterThan(0.17);
    expect(failed).toBeLessThan(0.23);
    expect(new Set(outcomes)).toEqual(new Set(['ok', 'before', 'after-503', 'after-drop']));
  });

  it('rate 0 never fails, rate 1 always does', () => {
    const never = faultPlanner({ rate: 0, seed: 3 });
    const always = faultPlanner({ rate: 1, seed: 3, modes: ['after-503'] });
    for (let i = 0; i < 100; i++) {
      expect(never()).toBeUndefined();
      expect(always()).toBe('after-503');
    }
  });

  it('seededRandom yields floats in [0, 1)', () => {
    const random = seededRandom(99);
    for (let i = 0; i < 1000; i++) {
      const x = random();
      expect(x >= 0 && x < 1).toBe(true);
    }
  });
});

describe('before: nothing is done', () => {
  it('answers 503 service_unavailable with the envelope and stores nothing', async () => {
    const h = await harness({ rate: 1, seed: 1, modes: ['before'] });
    const res = await h.call('POST', '/ip_policies', { description: 'lost' });
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ error_code: 'service_unavailable', status_code: 503 });
    expect(typeof res.body.details.operation_id).toBe('string');
    expect(count(h.app, 'objects')).toBe(0);
    expect(count(h.app, 'audit_events')).toBe(0);
  });

  it('never faults a request that authentication refuses', async () => {
    const h = await harness({ rate: 1, seed: 1, modes: ['before'] });
    const res = await h.app.inject({ method: 'GET', url: '/ip_policies', headers: { 'service-version': '2' } });
    expect(res.statusCode).toBe(401);
  });
});

describe('after-503: done, but the answer says otherwise', () => {
  it('commits the create and its audit event, then answers 503', async () => {
    const h = await harness({ rate: 1, seed: 1, modes: ['after-503'] });
    const res = await h.call('POST', '/ip_policies', { description: 'kept' });
    expect(res.status).toBe(503);
    expect(res.body.error_code).toBe('service_unavailable');
    expect(res.body.details.injected_fault).toBe(true);
    expect(count(h.app, 'objects')).toBe(1);
    expect(count(h.app, 'audit_events')).toBe(1);
    const stored = h.app.db.prepare('SELECT data FROM objects').get() as { data: string };
    expect(JSON.parse(stored.data)).toMatchObject({ description: 'kept' });
  });
});

describe('after-drop: done, and the connection is cut', () => {
  it('commits the create; the client gets no answer at all', async () => {
    const app = await buildApp({ apiKeys: [TEST_API_KEY], faults: { rate: 1, seed: 1, modes: ['after-drop'] } });
    open.push(app);
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const answer = fetch(`http://127.0.0.1:${port}/ip_policies`, {
      method: 'POST',
      headers: { ...authHeaders, 'content-type': 'application/json' },
      body: JSON.stringify({ description: 'kept' }),
    });
    await expect(answer).rejects.toThrow();
    expect(count(app, 'objects')).toBe(1);
  });
});

describe('after-drop under app.inject (no connection to cut)', () => {
  it('commits the change and answers 503 with the envelope, never a 500', async () => {
    const h = await harness({ rate: 1, seed: 1, modes: ['after-drop'] });
    const res = await h.call('POST', '/ip_policies', { description: 'kept' });
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ error_code: 'service_unavailable', details: { injected_fault: true } });
    expect(count(h.app, 'objects')).toBe(1);
  });
});

describe('a seeded fraction', () => {
  it('fails the same requests in the same way on every run with the same seed', async () => {
    const run = async () => {
      const h = await harness({ rate: 0.4, seed: 11, modes: ['before', 'after-503'] });
      const statuses: number[] = [];
      for (let i = 0; i < 30; i++) statuses.push((await h.call('POST', '/ip_policies', { description: `p${i}` })).status);
      return { statuses, stored: count(h.app, 'objects') };
    };
    const first = await run();
    const second = await run();
    expect(first).toEqual(second);
    expect(first.statuses).toContain(201);
    expect(first.statuses).toContain(503);
    // Every 201 was stored; some 503s were stored too (after-503), the rest were not.
    const ok = first.statuses.filter((s) => s === 201).length;
    expect(first.stored).toBeGreaterThan(ok);
    expect(first.stored).toBeLessThan(first.statuses.length);
  });
});
