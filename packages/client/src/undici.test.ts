import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Dispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Transport } from './transport.js';
import { Agent } from 'undici';
import { AttemptTimedOut, exchange } from './undici.js';

/** A server whose answers the tests script per path. */
let server: Server;
let origin: string;
const seen: string[] = [];
const agent = new Agent({ connections: 4 });

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req.url!);
    switch (req.url) {
      case '/drip': {
        // Headers at once, then a byte every 50 ms for a second: no single wait is long.
        res.writeHead(200, { 'content-type': 'application/json' });
        let sent = 0;
        const timer = setInterval(() => {
          if (res.destroyed || sent++ === 20) {
            clearInterval(timer);
            res.end();
          } else res.write(' ');
        }, 50);
        return;
      }
      case '/bom-split': {
        // A byte order mark, then "é" and "€" cut across chunks.
        const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"v":"é€"}', 'utf8')]);
        res.writeHead(
          200,
          [
            ['content-type', 'application/json'],
            ['x-twice', 'a'],
            ['X-Twice', 'b'],
          ].flat(),
        );
        res.write(bytes.subarray(0, 9));
        setTimeout(() => res.end(bytes.subarray(9)), 5);
        return;
      }
      case '/early-hints':
        res.writeEarlyHints({ link: '</style.css>; rel=preload' });
        res.writeHead(201, { 'Operation-Id': 'op_1' });
        res.end('{"id":"x"}');
        return;
      default:
        res.writeHead(204);
        res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await agent.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const get = (path: string, more: { signal?: AbortSignal; timeoutMs?: number } = {}) =>
  exchange(agent, origin, path, { method: 'GET', headers: {}, timeoutMs: more.timeoutMs ?? 5_000, ...(more.signal ? { signal: more.signal } : {}) });

describe('exchange', () => {
  it('limits the whole answer, not each wait: a body dripping slower than the limit times out', async () => {
    // Undisturbed, the drip completes after a second with a 200.
    await expect(get('/drip', { timeoutMs: 300 })).rejects.toBeInstanceOf(AttemptTimedOut);
  });

  it('a cancelled signal ends the exchange with its reason, mid-body', async () => {
    const controller = new AbortController();
    const reason = new Error('stop');
    setTimeout(() => controller.abort(reason), 100);
    await expect(get('/drip', { signal: controller.signal })).rejects.toBe(reason);
  });

  it('an already cancelled signal sends nothing', async () => {
    const before = seen.length;
    await expect(get('/never', { signal: AbortSignal.abort(new Error('gone')) })).rejects.toThrow('gone');
    expect(seen.length).toBe(before);
  });

  it('decodes UTF-8 across chunks without the byte order mark; a repeated header is a list', async () => {
    const answer = await get('/bom-split');
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toEqual({ v: 'é€' });
    expect(answer.header('content-type')).toBe('application/json');
    expect(answer.header('x-twice')).toEqual(['a', 'b']);
    expect(answer.header('absent')).toBeUndefined();
  });

  it('skips informational answers; header names are case-insensitive', async () => {
    const answer = await get('/early-hints');
    expect(answer.status).toBe(201);
    expect(answer.text).toBe('{"id":"x"}');
    expect(answer.header('operation-id')).toBe('op_1');
  });
});

describe('Transport request targets', () => {
  /** A dispatcher that records what it is asked for and answers 204 (any dispatcher works). */
  function recording(): { dispatcher: Dispatcher; paths: string[]; origins: string[] } {
    const paths: string[] = [];
    const origins: string[] = [];
    const dispatcher = {
      dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler) {
        paths.push(options.path);
        origins.push(String(options.origin));
        handler.onConnect?.(() => {});
        handler.onHeaders?.(204, [], () => {}, 'No Content');
        handler.onComplete?.([]);
        return true;
      },
    } as unknown as Dispatcher;
    return { dispatcher, paths, origins };
  }

  it('are what a URL relative to the base URL resolves to, for plain and unusual paths', async () => {
    const paths = [
      '/ip_policies?limit=100',
      '/ip_policies?before_id=ipp_1&limit=100',
      '/edges/https/edghts_1/routes/r_1',
      '/a/../b',
      '/a/./b',
      '/x y',
      '/ü',
      '/q?',
    ];
    for (const baseUrl of ['http://127.0.0.1:9/', 'http://127.0.0.1:9/api/v2', 'http://127.0.0.1:9/api/v2/']) {
      const { dispatcher, paths: sent, origins } = recording();
      const transport = new Transport({ baseUrl, apiKey: 'k', dispatcher });
      for (const path of paths) await transport.request('GET', path);
      const base = new URL(baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
      expect(sent).toEqual(
        paths.map((p) => {
          const url = new URL(p.slice(1), base);
          return `${url.pathname}${url.search}`;
        }),
      );
      expect(new Set(origins)).toEqual(new Set(['http://127.0.0.1:9']));
      await transport.close();
    }
  });
});
