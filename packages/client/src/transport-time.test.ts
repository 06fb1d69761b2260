/**
 * Time and retries of whole requests against real sockets: an API that accepts connections and
 * never answers is given up on after one request's worth of attempts, whatever follows; a
 * deadline ends every request, with no listener piling up on a shared signal; a create whose
 * answer was lost is looked up before it is sent again; a 429's Retry-After holds the client.
 */
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { MockAgent } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { GatehouseApiError } from './errors.js';
import { Transport } from './transport.js';
import type { RequestEvent } from './client-options.js';

/** Accepts connections and never answers. */
let hung: Server;
let hungUrl: string;
const sockets = new Set<Socket>();

beforeAll(async () => {
  hung = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve));
  hungUrl = `http://127.0.0.1:${(hung.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => hung.close(resolve));
});

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error as GatehouseApiError,
  );

describe('an API that never answers', () => {
  it('fails a request after its attempts, then every later request at once, look-ups included', async () => {
    const events: RequestEvent[] = [];
    const transport = new Transport({
      baseUrl: hungUrl,
      apiKey: 'k',
      timeoutMs: 150,
      retry: { maxAttempts: 3, baseDelayMs: 1 },
      onRequest: (e) => events.push(e),
    });
    const began = performance.now();
    const first = await failure(transport.request('GET', '/ip_policies'));
    expect(first).toMatchObject({ errorCode: 'timeout', outcomeUnknown: true, attempts: 3 });
    expect(performance.now() - began).toBeLessThan(1500);

    // A create whose answer is lost would be looked up, and the look-up would have attempts of
    // its own: the API's silence already ran out, so nothing more is sent.
    let lookedUp = false;
    const create = await failure(transport.request('POST', '/ip_policies', { body: {}, recover: async () => ((lookedUp = true), undefined) }));
    expect(create).toMatchObject({ errorCode: 'timeout', attempts: 0 });
    expect(create!.msg).toMatch(/^not sent: the API has answered nothing for 0.45 s/);
    expect(lookedUp).toBe(false);
    expect(events).toHaveLength(3);
    await transport.close();
  });

  it('bounds a create and the look-up after it by the same silence', async () => {
    const transport = new Transport({ baseUrl: hungUrl, apiKey: 'k', timeoutMs: 150, retry: { maxAttempts: 3, baseDelayMs: 1 } });
    const began = performance.now();
    const create = await failure(
      transport.request('POST', '/ip_policies', {
        body: {},
        // The client's look-up after the lost answer: a list request, as the engine's.
        recover: () => transport.request('GET', '/ip_policies'),
      }),
    );
    // One attempt of the POST and two of the look-up make 450 ms of silence: the look-up's third
    // attempt is never made.
    expect(create).toMatchObject({ method: 'GET', errorCode: 'timeout', attempts: 2 });
    expect(create!.msg).toMatch(/the API has answered nothing for 0.45 s/);
    expect(performance.now() - began).toBeLessThan(2000);
    await transport.close();
  });
});

describe('a deadline', () => {
  it('ends every request by then, waiting ones included, and adds no listener per request', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const transport = new Transport({ baseUrl: hungUrl, apiKey: 'k', deadlineMs: 300, concurrency: 4, rateLimit: false });
      const began = performance.now();
      const errors = await Promise.all(Array.from({ length: 30 }, (_, i) => failure(transport.request('GET', `/x/${i}`))));
      const elapsed = performance.now() - began;
      expect(elapsed).toBeGreaterThanOrEqual(290);
      expect(elapsed).toBeLessThan(2000);
      expect(new Set(errors.map((e) => e!.errorCode))).toEqual(new Set(['deadline_exceeded']));
      // Four were in flight (cut by the deadline); the others never went out.
      expect(errors.filter((e) => e!.outcomeUnknown)).toHaveLength(4);
      await transport.close();

      // A caller's own signal for all requests: one listener, however many requests.
      const signal = AbortSignal.timeout(200);
      const withSignal = new Transport({ baseUrl: hungUrl, apiKey: 'k', signal, concurrency: 4, rateLimit: false });
      const aborted = await Promise.all(Array.from({ length: 30 }, (_, i) => failure(withSignal.request('GET', `/y/${i}`))));
      expect(new Set(aborted.map((e) => e!.errorCode))).toEqual(new Set(['deadline_exceeded']));
      await withSignal.close();
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.map((w) => w.name)).not.toContain('MaxListenersExceededWarning');
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('fails at once a retry whose backoff would end past it', async () => {
    const mock = new MockAgent();
    mock.disableNetConnect();
    mock.get('http://api.test').intercept({ path: '/a', method: 'GET' }).reply(503, { error_code: 'unavailable', msg: 'later' });
    const transport = new Transport({
      baseUrl: 'http://api.test',
      apiKey: 'k',
      dispatcher: mock,
      deadlineMs: 2000,
      retry: { baseDelayMs: 10_000, maxDelayMs: 10_000 },
      random: () => 1,
    });
    const began = performance.now();
    const error = await failure(transport.request('GET', '/a'));
    expect(performance.now() - began).toBeLessThan(2000);
    expect(error).toMatchObject({ errorCode: 'deadline_exceeded', attempts: 1 });
    expect(error!.msg).toMatch(/deadline passes before the next attempt; the last one failed: later/);
    await mock.close();
  });
});

describe('a create whose answer was lost', () => {
  let mock: MockAgent;
  afterEach(() => mock.close());
  const transport = (events: RequestEvent[] = []) => {
    mock = new MockAgent();
    mock.disableNetConnect();
    return new Transport({ baseUrl: 'http://api.test', apiKey: 'k', dispatcher: mock, retry: { baseDelayMs: 1 }, onRequest: (e) => events.push(e) });
  };
  const pool = () => mock.get('http://api.test');

  it('is looked up before it is sent again: found, that is the answer', async () => {
    const client = transport();
    pool().intercept({ path: '/ip_policies', method: 'POST' }).reply(503, { error_code: 'unavailable', msg: 'x' });
    let lookups = 0;
    const created = await client.request('POST', '/ip_policies', { body: {}, recover: async () => ((lookups += 1), { id: 'ipp_found' }) });
    expect(created).toEqual({ id: 'ipp_found' });
    expect(lookups).toBe(1);
  });

  it('not found, it is sent again; and looked up before each later attempt', async () => {
    const events: RequestEvent[] = [];
    const client = transport(events);
    pool()
      .intercept({ path: '/ip_policies', method: 'POST' })
      .replyWithError(Object.assign(new Error('reset'), { code: 'ECONNRESET' }));
    // Refused before handling: retried as any 429, and still looked up (the first may have run).
    pool()
      .intercept({ path: '/ip_policies', method: 'POST' })
      .reply(429, { error_code: 'rate_limited', msg: 'x' }, { headers: { 'retry-after': '0' } });
    pool().intercept({ path: '/ip_policies', method: 'POST' }).reply(201, { id: 'ipp_new' });
    let lookups = 0;
    await expect(client.request('POST', '/ip_policies', { body: {}, recover: async () => ((lookups += 1), undefined) })).resolves.toEqual({ id: 'ipp_new' });
    expect(lookups).toBe(2);
    expect(events.map((e) => [e.status ?? e.error?.errorCode, e.willRetry])).toEqual([
      ['network_error', true],
      [429, true],
      [201, false],
    ]);
  });

  it('without a look-up, is never sent again', async () => {
    const client = transport();
    pool().intercept({ path: '/ip_policies', method: 'POST' }).reply(502, 'bad gateway');
    await expect(client.request('POST', '/ip_policies', { body: {} })).rejects.toMatchObject({ status: 502, attempts: 1, retryable: true });
  });
});

describe('a 429', () => {
  let server: HttpServer;
  afterEach(() => new Promise((resolve) => server.close(resolve)));

  it('holds every request of the client for its Retry-After, not just the refused one', async () => {
    const arrivals: { path: string; at: number }[] = [];
    let refusedAt: number | undefined;
    server = createHttpServer((req, res) => {
      arrivals.push({ path: req.url!, at: performance.now() });
      if (req.url === '/first' && refusedAt === undefined) {
        refusedAt = performance.now();
        res.writeHead(429, { 'retry-after': '0.3', 'content-type': 'application/json' });
        res.end('{"error_code":"rate_limited","msg":"slow down"}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    // The second request is asked for once the first's 429 has arrived.
    let second: Promise<unknown> | undefined;
    const client: Transport = new Transport({
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      apiKey: 'k',
      onRequest: (event) => {
        if (event.status === 429) second = client.request('GET', '/second');
      },
    });
    await client.request('GET', '/first');
    await second;
    const after = arrivals.slice(1);
    expect(after.map((a) => a.path).sort()).toEqual(['/first', '/second']);
    for (const arrival of after) expect(arrival.at - refusedAt!).toBeGreaterThanOrEqual(290);
    await client.close();
  });
});
