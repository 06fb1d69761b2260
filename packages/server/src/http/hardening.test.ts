/**
 * The server against hostile and careless clients, over raw sockets (what `inject` cannot
 * show: resets, timeouts, the router's own errors): router errors answered with the envelope
 * and only after authentication; a DELETE declared as JSON without a body accepted; a body over
 * the limit answered with a readable 413 although the client sends all of it first; a request
 * whose body never arrives answered 408 and closed; an HTTP/1.1 request without Host answered
 * 400 in the envelope (Node's own answer is a bare 400).
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type GatehouseApp } from '../app.js';
import { TEST_API_KEY } from '../testing/harness.js';

let app: GatehouseApp;
let port: number;
beforeAll(async () => {
  app = await buildApp({ apiKeys: [TEST_API_KEY], timeouts: { requestMs: 600, checkIntervalMs: 100 } });
  await app.listen({ host: '127.0.0.1', port: 0 });
  port = (app.server.address() as { port: number }).port;
});
afterAll(() => app.close());

const AUTH = `Authorization: Bearer ${TEST_API_KEY}\r\nService-Version: 2\r\n`;

/** Sends `head` then `body` on a fresh connection; what came back and whether the peer reset it. */
function exchange(head: string, body: Buffer | string = ''): Promise<{ status: number; json: Record<string, any> | undefined; text: string; reset: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let reset = false;
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('no answer within 15 s'));
    }, 15_000);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNRESET' || error.code === 'EPIPE') reset = true;
    });
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('utf8');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      const payload = text.slice(text.indexOf('\r\n\r\n') + 4);
      let json: Record<string, any> | undefined;
      try {
        json = JSON.parse(payload) as Record<string, any>;
      } catch {
        json = undefined;
      }
      resolve({ status, json, text, reset });
    });
    socket.write(head);
    if (body.length > 0) socket.write(body);
  });
}

const get = (path: string, auth = true) => exchange(`GET ${path} HTTP/1.1\r\nHost: x\r\n${auth ? AUTH : ''}Connection: close\r\n\r\n`);

describe('server hardening over raw sockets', () => {
  it('an id over 100 characters: 401 without a key, then 414 in the envelope', async () => {
    const path = `/ip_policies/${'x'.repeat(150)}`;
    const anonymous = await get(path, false);
    expect(anonymous.status).toBe(401);
    expect(anonymous.json).toMatchObject({ error_code: 'missing_authorization', status_code: 401 });
    const long = await get(path);
    expect(long.status).toBe(414);
    expect(long.json).toMatchObject({ error_code: 'uri_too_long', status_code: 414, details: { operation_id: expect.stringMatching(/^op_/) } });
  });

  it('bad percent-encoding: 401 without a key, then 400 invalid_url in the envelope', async () => {
    expect((await get('/ip_policies/%E0%A4%A', false)).json).toMatchObject({ error_code: 'missing_authorization' });
    const bad = await get('/ip_policies/%E0%A4%A');
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ error_code: 'invalid_url', status_code: 400 });
  });

  it('a DELETE declared as JSON with no body is accepted', async () => {
    const created = await app.inject({
      method: 'POST',
      url: '/ip_policies',
      headers: { authorization: `Bearer ${TEST_API_KEY}`, 'service-version': '2', 'content-type': 'application/json' },
      payload: '{}',
    });
    const id = (created.json() as { id: string }).id;
    const deleted = await exchange(`DELETE /ip_policies/${id} HTTP/1.1\r\nHost: x\r\n${AUTH}Content-Type: application/json\r\nConnection: close\r\n\r\n`);
    expect(deleted.status).toBe(204);
    const again = await exchange(
      `DELETE /ip_policies/${id} HTTP/1.1\r\nHost: x\r\n${AUTH}Content-Type: application/json\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`,
    );
    expect(again.json).toMatchObject({ error_code: 'not_found' });
  });

  it('a 5 MB body sent whole without Expect: 100-continue gets a readable 413, not a reset', async () => {
    const body = Buffer.alloc(5 * 1024 * 1024, 'a');
    const head = `POST /ip_policies HTTP/1.1\r\nHost: x\r\n${AUTH}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    const answer = await exchange(head, body);
    expect(answer.reset).toBe(false);
    expect(answer.status).toBe(413);
    expect(answer.json).toMatchObject({ error_code: 'payload_too_large', status_code: 413 });
    expect(answer.text.toLowerCase()).toContain('connection: close');
  });

  it('a request whose body never arrives is answered 408 in the envelope and closed (requestTimeout)', async () => {
    const answer = await exchange(`POST /ip_policies HTTP/1.1\r\nHost: x\r\n${AUTH}Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"descr`);
    expect(answer.status).toBe(408);
    expect(answer.json).toMatchObject({ error_code: 'request_timeout', status_code: 408, details: { operation_id: expect.stringMatching(/^op_/) } });
  });

  it('errors Node raises before any request exists (headers too large, a malformed request) are answered in the envelope', async () => {
    const huge = await exchange(`GET /ip_policies/${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n${AUTH}Connection: close\r\n\r\n`);
    expect(huge.status).toBe(431);
    expect(huge.json).toMatchObject({ error_code: 'headers_too_large', status_code: 431 });
    const garbage = await exchange('NOT AN HTTP REQUEST\r\n\r\n');
    expect(garbage.status).toBe(400);
    expect(garbage.json).toMatchObject({ error_code: 'bad_request', status_code: 400 });
  });
});

describe('the Host header', () => {
  it('an HTTP/1.1 request without Host is 400 bad_request in the envelope, before authentication', async () => {
    for (const auth of [AUTH, '']) {
      const answer = await exchange(`GET /ip_policies HTTP/1.1\r\n${auth}Connection: close\r\n\r\n`);
      expect(answer.status).toBe(400);
      expect(answer.json).toMatchObject({
        error_code: 'bad_request',
        status_code: 400,
        msg: 'The request has no Host header, which HTTP/1.1 requires; send one.',
        details: { operation_id: expect.stringMatching(/^op_/) },
      });
    }
  });

  it('nor can a write without Host change anything; HTTP/1.0, which has no Host, is served', async () => {
    const body = '{"description":"no host"}';
    const write = await exchange(
      `POST /ip_policies HTTP/1.1\r\n${AUTH}Content-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    );
    expect(write.json).toMatchObject({ error_code: 'bad_request' });
    const list = await exchange(`GET /ip_policies HTTP/1.0\r\n${AUTH}\r\n`);
    expect(/^HTTP\/1\.[01] 200/.test(list.text)).toBe(true);
    expect(list.text).not.toContain('no host');
  });
});

describe('limits on string fields', () => {
  const headers = { authorization: `Bearer ${TEST_API_KEY}`, 'service-version': '2', 'content-type': 'application/json' };
  const send = async (method: 'POST' | 'PUT', url: string, body: unknown) => {
    const res = await app.inject({ method, url, headers, payload: JSON.stringify(body) });
    return { status: res.statusCode, body: res.json() as Record<string, any> };
  };

  it('control characters other than tab and newline are refused in descriptions and names', async () => {
    for (const description of ['evil\u001b]0;pwned\u0007', 'nul\u0000', 'c1\u009b31m', 'cr\r']) {
      const res = await send('POST', '/ip_policies', { description });
      expect(res.status, JSON.stringify(description)).toBe(400);
      expect(res.body.details).toMatchObject({ field: 'description' });
    }
    expect((await send('POST', '/ip_policies', { description: 'line one\n\tline two' })).status).toBe(201);
    expect((await send('POST', '/bot_users', { name: 'bot\u001b[2J' })).status).toBe(400);
  });

  it('names over 255 bytes, bodies and traffic policy values over 64 KiB are refused', async () => {
    expect((await send('POST', '/bot_users', { name: 'b'.repeat(256) })).status).toBe(400);
    expect((await send('POST', '/bot_users', { name: 'b'.repeat(255) })).status).toBe(201);
    expect((await send('POST', '/backends/http_response', { body: 'x'.repeat(64 * 1024 + 1) })).body.details).toMatchObject({ field: 'body' });
    const edge = (await send('POST', '/edges/https', {})).body as { id: string };
    const route = (await send('POST', `/edges/https/${edge.id}/routes`, { match_type: 'path_prefix', match: '/' })).body as { id: string };
    const big = await send('PUT', `/edges/https/${edge.id}/routes/${route.id}/traffic_policy`, { value: 'p'.repeat(900 * 1024) });
    expect(big.status).toBe(400);
    expect((await send('PUT', `/edges/https/${edge.id}/routes/${route.id}/traffic_policy`, { value: 'p'.repeat(1024) })).status).toBe(200);
  });

  it('every other string field is at most 64 KiB (labels, header values, patterns, module fields)', async () => {
    const long = 'v'.repeat(64 * 1024 + 1);
    const label = await send('POST', '/backends/tunnel_group', { labels: { app: long } });
    expect(label.status).toBe(400);
    expect(label.body).toMatchObject({ error_code: 'invalid_value', details: { field: 'labels.app' } });
    expect((await send('POST', '/backends/http_response', { body: 'x', status_code: 200, headers: { 'x-big': long } })).body.details).toMatchObject({
      field: 'headers.x-big',
    });
    const edge = (await send('POST', '/edges/https', {})).body as { id: string };
    const route = (await send('POST', `/edges/https/${edge.id}/routes`, { match_type: 'path_prefix', match: '/long' })).body as { id: string };
    expect((await send('PUT', `/edges/https/${edge.id}/routes/${route.id}/user_agent_filter`, { allow: [long] })).status).toBe(400);
    expect((await send('POST', '/backends/tunnel_group', { labels: { app: 'v'.repeat(64 * 1024) } })).status).toBe(201);
  });

  it('user_agent_filter patterns must be RE2 regular expressions', async () => {
    const edge = (await send('POST', '/edges/https', {})).body as { id: string };
    const route = (await send('POST', `/edges/https/${edge.id}/routes`, { match_type: 'path_prefix', match: '/ua' })).body as { id: string };
    const url = `/edges/https/${edge.id}/routes/${route.id}/user_agent_filter`;
    expect((await send('PUT', url, { allow: ['Mozilla/(5|4)\\.0', '(?i)bot'] })).status).toBe(200);
    for (const [field, pattern] of [
      ['deny', '(a)\\1'],
      ['allow', '(?=curl)'],
      ['deny', '[z-a]'],
    ] as const) {
      const res = await send('PUT', url, { [field]: [pattern] });
      expect(res.status, pattern).toBe(400);
      expect(res.body).toMatchObject({ error_code: 'invalid_module', details: { field: `${field}[0]` } });
    }
  });
});
