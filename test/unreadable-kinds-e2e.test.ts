/**
 * A service that does not serve one kind: `gatehouse serve` behind an in-test proxy that
 * answers `GET /backends/static` with 404 route_not_found (as a service without static backends
 * does) and `GET /event_subscriptions` with 403 (a feature the account's plan lacks). Plans of
 * manifests that declare neither go on and say which kinds were not read, in every format, and
 * so do apply, drift and export; manifests that declare one stop at it, before any write.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';
import { serveWithClient, type ServedApi } from './helpers/served.js';

const KEY = 'unreadable-kinds-key-0123456789';
let served: ServedApi;
let proxy: { url: string; close(): Promise<void> };

beforeAll(async () => {
  served = await serveWithClient(KEY);
  proxy = await refusingProxy(served.server.url, {
    '/backends/static': { status: 404, code: 'route_not_found', msg: 'No route GET /backends/static.' },
    '/event_subscriptions': { status: 403, code: 'forbidden', msg: 'Event subscriptions are not part of your plan.' },
  });
});
afterAll(async () => {
  await proxy?.close();
  await served?.close();
});

const env = () => ({ GATEHOUSE_API_URL: proxy.url, GATEHOUSE_API_KEY: KEY });
function manifests(name: string, text: string): string {
  const dir = join(served.dir.path, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'main.yaml'), text);
  return dir;
}
const POLICY = 'kind: IPPolicy\nname: office\nspec:\n  rules: [{cidr: 10.0.0.0/8, action: allow}]\n';

describe('a service that does not serve one kind', () => {
  it('plans, applies, drifts and exports what it can read, and says what it could not, in every format', async () => {
    const dir = manifests('readable', POLICY);
    const text = await runCli(['plan', dir], { env: env() });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('+   IPPolicy office');
    expect(text.stdout).toContain(
      'Warning: 2 kinds the account cannot list: not read, so none of their objects was planned, and none can be pruned:\n' +
        '    Backend at /backends/static: 404 route_not_found: the API does not serve it\n' +
        "    EventSubscription at /event_subscriptions: 403 forbidden: the account's plan does not include it\n",
    );
    const json = await runCli(['plan', dir, '--format', 'json'], { env: env() });
    expect(JSON.parse(json.stdout).unreadable).toEqual([
      { kind: 'Backend', path: '/backends/static', status: 404, code: 'route_not_found' },
      { kind: 'EventSubscription', path: '/event_subscriptions', status: 403, code: 'forbidden' },
    ]);
    expect((await runCli(['plan', dir, '--format', 'markdown'], { env: env() })).stdout).toContain('> - Backend at /backends/static: 404 route_not_found');
    expect((await runCli(['plan', dir, '--format', 'html'], { env: env() })).stdout).toContain('id="unreadable"');

    const applied = await runCli(['apply', dir, '--yes'], { env: env() });
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout).toContain('Warning: 2 kinds the account cannot list');
    const drift = await runCli(['drift', dir], { env: env() });
    expect([drift.code, drift.stdout]).toEqual([0, expect.stringContaining('none of their objects was checked for drift')]);
    const out = join(served.dir.path, 'exported');
    const exported = await runCli(['export', '--out', out], { env: env() });
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toContain(
      'Not exported: Backend at /backends/static: 404 route_not_found: the API does not serve it; none of its objects could be read.',
    );
    expect(readdirSync(out, { recursive: true, encoding: 'utf8' }).some((f) => String(f).endsWith('.yaml'))).toBe(true);
  });

  it('stops at each declared object of a kind it cannot list, writing nothing', async () => {
    const dir = manifests('declares', `${POLICY}---\nkind: Backend\nname: db\nspec: {type: static, address: "db.internal:5432", tls: {}}\n`);
    const before = (await served.client.ipPolicies.list().next()).value;
    const result = await runCli(['apply', dir, '--yes'], { env: env() });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `${join(dir, 'main.yaml')}:6:1: Backend/db cannot be planned: the account cannot list /backends/static (404 route_not_found: the API does not serve it)`,
    );
    expect(result.stderr).toContain('[kind_unreadable]');
    expect((await served.client.ipPolicies.list().next()).value).toEqual(before);
  });
});

/** An HTTP proxy to `target` answering list requests of `refused` paths with their error, as the service words it. */
async function refusingProxy(target: string, refused: Record<string, { status: number; code: string; msg: string }>) {
  const upstream = new URL(target);
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0]!;
    const refusal = req.method === 'GET' ? refused[path] : undefined;
    if (refusal) {
      res.writeHead(refusal.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error_code: refusal.code, status_code: refusal.status, msg: refusal.msg, details: { operation_id: 'op_test' } }));
      return;
    }
    const forward = request(
      { hostname: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
