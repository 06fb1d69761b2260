import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import type { Notification } from './notify.js';
import { webhookSender } from './webhook.js';

const notification = { event: 'drift_detected', text: 'IPPolicy office changed outside gatehouse' } as unknown as Notification;

/** A server that answers every request with `status` and records what it received. */
async function receiver(status: number) {
  const received: { url: string; body: string }[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push({ url: req.url ?? '', body });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received, close: () => new Promise((resolve) => server.close(resolve)) };
}

const saved = { HTTP_PROXY: process.env.HTTP_PROXY, NO_PROXY: process.env.NO_PROXY };
afterEach(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

it('posts the notification as JSON, once when it is accepted', async () => {
  delete process.env.HTTP_PROXY;
  const hook = await receiver(200);
  const failures: string[] = [];
  await webhookSender(new URL(`${hook.url}/hooks/secret-path`), (m) => failures.push(m), { retryDelayMs: 1 }).send(notification);
  await hook.close();
  expect(failures).toEqual([]);
  expect(hook.received).toEqual([{ url: '/hooks/secret-path', body: JSON.stringify(notification) }]);
});

it('goes through the proxy HTTP_PROXY names, as the API requests do (absolute form for http://)', async () => {
  const proxy = await receiver(200);
  process.env.HTTP_PROXY = proxy.url;
  delete process.env.NO_PROXY;
  const failures: string[] = [];
  await webhookSender(new URL('http://hooks.gatehouse-test.invalid/path'), (m) => failures.push(m), { retryDelayMs: 1 }).send(notification);
  await proxy.close();
  expect(failures).toEqual([]);
  expect(proxy.received.map((r) => r.url)).toEqual(['http://hooks.gatehouse-test.invalid/path']);
});

it('tries a 5xx three times, then reports the origin only (a webhook path is a credential)', async () => {
  delete process.env.HTTP_PROXY;
  const hook = await receiver(503);
  const failures: string[] = [];
  await webhookSender(new URL(`${hook.url}/hooks/secret-path`), (m) => failures.push(m), { retryDelayMs: 1 }).send(notification);
  await hook.close();
  expect(hook.received).toHaveLength(3);
  expect(failures).toHaveLength(1);
  expect(failures[0]).toContain('answered 503');
  expect(failures[0]).not.toContain('secret-path');
});
