/**
 * The client against the reference server's own limits (a rolling-window rate limit, a cap on
 * simultaneous requests, latency), in this process: paced to the server's budget it is never
 * answered 429; told by the server that too many requests are in flight, it lowers its cap to
 * the number the server names, and every request still succeeds.
 */
import { startServer, type RunningServer } from '@gatehouse/server';
import { GatehouseClient, type RequestEvent } from '@gatehouse/client';
import { afterEach, expect, it } from 'vitest';

const KEY = 'client-limits-key-0123456789';
let server: RunningServer | undefined;
let client: GatehouseClient | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
});

async function start(
  limits: { rateLimit?: { max: number; windowMs: number }; maxConcurrent?: number },
  options: { rateLimit?: { requests: number; intervalMs: number } | false; concurrency?: number },
) {
  server = await startServer({ host: '127.0.0.1', port: 0, db: ':memory:', reservationCheck: false, apiKeys: [KEY], latencyMs: 20, ...limits });
  const events: RequestEvent[] = [];
  client = new GatehouseClient({ baseUrl: server.url, apiKey: KEY, ...options, onRequest: (e) => events.push(e) });
  return { client, events };
}

it("paced to the server's budget, 45 requests take three windows and none is answered 429", async () => {
  const { client, events } = await start({ rateLimit: { max: 15, windowMs: 1000 } }, { rateLimit: { requests: 15, intervalMs: 1000 } });
  const began = performance.now();
  await Promise.all(Array.from({ length: 45 }, () => client.botUsers.get('bot_none').catch(() => undefined)));
  expect(events.filter((e) => e.status === 429)).toEqual([]);
  expect(events).toHaveLength(45);
  expect(performance.now() - began).toBeGreaterThanOrEqual(2000);
});

it('lowers its cap on requests in flight to the number a refusal names, and gets every answer', async () => {
  const { client, events } = await start({ maxConcurrent: 3 }, { rateLimit: false, concurrency: 10 });
  const answers = await Promise.all(
    Array.from({ length: 40 }, () =>
      client.botUsers.get('bot_none').then(
        () => 'found',
        (e: { status?: number }) => e.status,
      ),
    ),
  );
  expect(new Set(answers)).toEqual(new Set([404]));
  expect(client.transport.pace.concurrency).toBe(3);
  // The first burst overran the cap (seven beyond it, before the cap was known), not the rest.
  const refused = events.filter((e) => e.status === 429);
  expect(refused.length).toBeGreaterThan(0);
  expect(refused.length).toBeLessThan(10);
  expect(refused.every((e) => e.error?.errorCode === 'too_many_concurrent_requests')).toBe(true);
});
