/**
 * Reaching the API through a proxy, and what failures on the way say: small proxies in the test
 * (one that forwards absolute-form requests and refuses CONNECT, as Squid does for ports other
 * than 443; one that drops CONNECT), and names that do not resolve.
 */
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatehouseApiError } from './errors.js';
import { Transport } from './transport.js';

const servers: Server[] = [];
async function listen(server: Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

let api: string;
/** What the forwarding proxy was asked: request targets, and CONNECTs. */
const forwarded: string[] = [];
let forwarding: string;
let dropping: string;

beforeAll(async () => {
  api = await listen(
    createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ path: req.url, host: req.headers.host }));
    }),
  );
  const proxy = createServer((req: IncomingMessage, res) => {
    forwarded.push(`${req.method} ${req.url}`);
    const upstream = request(req.url!, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(res);
    });
    req.pipe(upstream);
  });
  proxy.on('connect', (req: IncomingMessage, socket) => {
    forwarded.push(`CONNECT ${req.url}`);
    socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
  });
  forwarding = await listen(proxy);
  const drop = createServer();
  drop.on('connect', (_req, socket) => socket.destroy());
  dropping = await listen(drop);
});
afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error as GatehouseApiError,
  );
const withCredentials = (url: string) => url.replace('http://', 'http://proxy-user:proxy-secret@');

describe('through an HTTP proxy', () => {
  it('asks for an http:// API in absolute form, never through a tunnel', async () => {
    const client = new Transport({ baseUrl: `${api}/v2`, apiKey: 'k', proxy: forwarding });
    await expect(client.request('GET', '/ip_policies?limit=100')).resolves.toEqual({ path: '/v2/ip_policies?limit=100', host: api.slice('http://'.length) });
    expect(forwarded).toEqual([`GET ${api}/v2/ip_policies?limit=100`]);
    await client.close();
  });

  it('names the proxy (without its credentials) when it refuses the tunnel to an https:// API, and does not try again', async () => {
    const client = new Transport({ baseUrl: 'https://127.0.0.1:8443', apiKey: 'k', proxy: withCredentials(forwarding) });
    const began = performance.now();
    const error = await failure(client.request('GET', '/ip_policies'));
    expect(performance.now() - began).toBeLessThan(2000);
    expect(error).toMatchObject({ errorCode: 'proxy_error', status: undefined, retryable: false, attempts: 1, details: { proxy_status: 403 } });
    expect(error!.msg).toBe(
      `the proxy ${forwarding} refused a tunnel to 127.0.0.1:8443 (it answered 403 to CONNECT); the proxy must allow CONNECT to the API's port (Squid allows only 443 by default)`,
    );
    expect(error!.message).not.toContain('proxy-secret');
    expect(forwarded).toContain('CONNECT 127.0.0.1:8443');
    await client.close();
  });

  it('names the proxy when it drops the tunnel, at once (undici alone would reconnect forever)', async () => {
    const client = new Transport({ baseUrl: 'https://127.0.0.1:8443', apiKey: 'k', proxy: dropping, timeoutMs: 5000 });
    const began = performance.now();
    const error = await failure(client.request('GET', '/ip_policies'));
    expect(performance.now() - began).toBeLessThan(2000);
    expect(error).toMatchObject({ errorCode: 'proxy_error', retryable: false, attempts: 1, outcomeUnknown: false });
    expect(error!.msg).toBe(`the proxy ${dropping} closed the connection instead of opening a tunnel to 127.0.0.1:8443`);
    await client.close();
  });
});

describe('a proxy that cannot be reached', () => {
  it('is a refused connection to the proxy, named, for an https:// API (not a dropped tunnel)', async () => {
    const closed = await listen(createServer());
    servers.pop()!.close();
    const client = new Transport({ baseUrl: 'https://api.example', apiKey: 'k', proxy: closed, retry: { maxAttempts: 1 } });
    const error = await failure(client.request('GET', '/ip_policies'));
    expect(error).toMatchObject({ errorCode: 'connection_refused', outcomeUnknown: false });
    expect(error!.msg).toBe(`cannot connect to the proxy ${closed} (ECONNREFUSED)`);
    await client.close();
  });
});

describe('a name that does not resolve', () => {
  it('is a DNS failure, named, never "connection refused", and not tried again', async () => {
    const client = new Transport({ baseUrl: 'http://gatehouse-test.invalid', apiKey: 'k' });
    const error = await failure(client.request('GET', '/ip_policies'));
    expect(error).toMatchObject({ errorCode: 'dns_error', retryable: false, attempts: 1 });
    expect(error!.msg).toBe('DNS lookup of gatehouse-test.invalid failed (ENOTFOUND: no such name)');
    await client.close();
  });

  it("names the proxy's host when it does not resolve, for an https:// API too (not a dropped tunnel)", async () => {
    const client = new Transport({ baseUrl: 'https://api.example', apiKey: 'k', proxy: 'http://gatehouse-proxy.invalid:3128' });
    const error = await failure(client.request('GET', '/ip_policies'));
    expect(error).toMatchObject({ errorCode: 'dns_error', retryable: false, attempts: 1 });
    expect(error!.msg).toBe('DNS lookup of gatehouse-proxy.invalid failed (ENOTFOUND: no such name)');
    await client.close();
  });

  it("names the proxy's host when that is the one that does not resolve", async () => {
    const client = new Transport({ baseUrl: 'http://api.example', apiKey: 'k', proxy: 'http://gatehouse-proxy.invalid:3128' });
    const error = await failure(client.request('GET', '/ip_policies'));
    expect(error).toMatchObject({ errorCode: 'dns_error' });
    expect(error!.msg).toMatch(/^DNS lookup of gatehouse-proxy.invalid failed/);
    await client.close();
  });
});
