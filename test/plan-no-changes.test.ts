/**
 * The property "live objects that match the manifests plan as no changes", for every kind and
 * every module: examples/basic (which the first test proves covers every kind, backend type
 * and route module) is written to a real `gatehouse serve` process through the client, by an
 * independent translation (plan-fixtures.ts) with set-valued lists in reverse order, and the
 * built CLI must then plan no changes. Then the read budget: hundreds of unmanaged objects
 * cost only a few more list requests, and a real difference is still found.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type GatehouseClient, ROUTE_MODULE_NAMES } from '@gatehouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_SECRETS, readManifests, writeLive, type WriteResult } from './plan-fixtures.js';
import { REPO_ROOT, runCli, tempDir, type ServeProcess, besideUsage } from './helpers/cli.js';
import { serveWithClient } from './helpers/served.js';
import { FIXTURE_CA } from '../packages/server/src/testing/test-ca.js';

const KEY = 'plan-no-changes-key-0123456789';
const EXAMPLES = join(REPO_ROOT, 'examples/basic');
const manifests = readManifests(EXAMPLES);
let server: ServeProcess;
let client: GatehouseClient;
let close: (() => Promise<void>) | undefined;
let written: WriteResult;

beforeAll(async () => {
  ({ server, client, close } = await serveWithClient(KEY, ['--no-reservation-check']));
  written = await writeLive(client, manifests, 'default', EXAMPLE_SECRETS, { reverseSets: true });
  await onlyMarkersDiffer(['examples/basic'], 'default', EXAMPLE_SECRETS);
});

/**
 * The fixture writes markers with a made-up hash (it does not reimplement the engine's hash):
 * the first plan must differ from live in those markers only (plan = apply shows a marker
 * refresh, no field); apply then writes them, and from there on the property is "no changes".
 */
async function onlyMarkersDiffer(paths: string[], stack: string, secrets: Record<string, string>): Promise<void> {
  const env = { ...secrets, GATEHOUSE_API_URL: server.url, GATEHOUSE_API_KEY: KEY };
  const first = await runCli(['plan', ...paths, '--format', 'json', '--stack', stack], { env });
  const plan = JSON.parse(first.stdout) as { changes: { address: string; action: string; cause?: string; fields: unknown[] }[] };
  for (const change of plan.changes) {
    // The fixture writes no bot user registry: the stack gets one on this apply.
    if (change.cause === 'registry') {
      expect([change.address, change.action]).toEqual([`BotUserRegistry/${stack}`, 'create']);
      continue;
    }
    expect([change.action, change.cause, change.fields], change.address).toEqual(['update', 'marker', []]);
  }
  const applied = await runCli(['apply', ...paths, '--yes', '--stack', stack], { env });
  expect(applied.code, applied.stderr).toBe(0);
}
afterAll(async () => {
  await close?.();
});

async function planJson(extraEnv: Record<string, string> = {}) {
  const result = await runCli(['plan', 'examples/basic', '--format', 'json', '--detailed-exitcode'], {
    env: { ...EXAMPLE_SECRETS, GATEHOUSE_API_URL: server.url, GATEHOUSE_API_KEY: KEY, ...extraEnv },
  });
  return { result, json: result.stdout ? JSON.parse(result.stdout) : undefined };
}

describe('live objects that match the manifests plan as no changes', () => {
  it('the examples cover every kind, backend type and route module', () => {
    expect(new Set(manifests.map((m) => m.kind))).toEqual(
      new Set([
        'IPPolicy',
        'IPRestriction',
        'BotUser',
        'Backend',
        'HTTPSEdge',
        'TCPEdge',
        'TLSEdge',
        'ReservedDomain',
        'ReservedTCPAddress',
        'CertificateAuthority',
        'EventDestination',
        'EventSubscription',
      ]),
    );
    expect(new Set(manifests.filter((m) => m.kind === 'Backend').map((m) => m.spec.type))).toEqual(
      new Set(['tunnel_group', 'http_response', 'failover', 'weighted', 'static']),
    );
    const routeModules = new Set(manifests.filter((m) => m.kind === 'HTTPSEdge').flatMap((m) => (m.spec.routes ?? []).flatMap((r: object) => Object.keys(r))));
    for (const name of ROUTE_MODULE_NAMES) expect(routeModules, name).toContain(name);
    const tcpModules = new Set(manifests.filter((m) => m.kind === 'TCPEdge').flatMap((m) => Object.keys(m.spec)));
    for (const name of ['backend', 'ip_restriction', 'traffic_policy']) expect(tcpModules).toContain(name);
  });

  it('plans no changes, exit 0 with --detailed-exitcode', async () => {
    const { result, json } = await planJson();
    expect(besideUsage(result.stderr)).toBe('');
    expect(json.changes, JSON.stringify(json.changes, null, 2)).toEqual([]);
    expect(result.code).toBe(0);
    const rules = manifests.flatMap((m) => (m.kind === 'IPPolicy' ? (m.spec.rules ?? []) : [])).length;
    const routes = manifests.flatMap((m) => (m.kind === 'HTTPSEdge' ? (m.spec.routes ?? []) : [])).length;
    expect(json.summary).toEqual({ create: 0, update: 0, delete: 0, replace: 0, unchanged: manifests.length + rules + routes });
    expect(json.unmanaged).toEqual([]);
  });

  it('says so in text too', async () => {
    const result = await runCli(['plan', 'examples/basic'], {
      env: { ...EXAMPLE_SECRETS, GATEHOUSE_API_URL: server.url, GATEHOUSE_API_KEY: KEY },
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('No changes.');
  });

  it('reads hundreds of unmanaged objects with a few list requests and leaves them alone', async () => {
    const { json: baseline } = await planJson();
    for (let i = 0; i < 250; i++) await client.botUsers.create({ name: `unmanaged-bot-${i}` });
    for (let i = 0; i < 250; i++) await client.ipPolicies.create({ description: `unmanaged ${i}` });
    const { result, json } = await planJson();
    expect(result.code).toBe(0);
    expect(json.changes).toEqual([]);
    expect(json.unmanaged.length).toBeGreaterThanOrEqual(500);
    // 250 more objects in two lists: at most 3 + 3 pages instead of 1 + 1.
    expect(json.requests - baseline.requests).toBeLessThanOrEqual(4);
    expect(json.requests).toBeLessThan(30);
  });

  it('still finds a real difference, and only that one', async () => {
    const id = written.ids.get('IPRestriction/dashboard')!;
    await client.ipRestrictions.update(id, { enforced: false });
    const { result, json } = await planJson();
    expect(result.code).toBe(2);
    expect(json.changes).toHaveLength(1);
    expect(json.changes[0]).toMatchObject({ action: 'update', address: 'IPRestriction/dashboard', id });
    expect(json.changes[0].fields).toEqual([{ path: 'enforced', before: false, after: true, sensitive: false }]);
    await client.ipRestrictions.update(id, { enforced: true });
  });

  it('masks a secret changed outside gatehouse', async () => {
    const edgeId = written.ids.get('HTTPSEdge/api')!;
    const edge = await client.httpsEdges.get(edgeId);
    const route = edge.routes.find((r) => r.match === '/webhooks/github')!;
    await client.httpsEdgeRoutes(edgeId).modules.webhook_verification.replace(route.id, { provider: 'github', secret: 'rotated-by-hand-5521' });
    const { result, json } = await planJson();
    expect(result.code).toBe(2);
    expect(result.stdout).not.toContain('rotated-by-hand-5521');
    expect(result.stdout).not.toContain(EXAMPLE_SECRETS.GITHUB_WEBHOOK_SECRET);
    expect(json.changes).toHaveLength(1);
    expect(json.changes[0].fields).toEqual([expect.objectContaining({ path: expect.stringContaining('webhook_verification.secret'), sensitive: true })]);
  });

  it('also for mutual TLS and references by {id} to objects gatehouse does not manage', async () => {
    const ca = await client.certificateAuthorities.create({ ca_pem: FIXTURE_CA });
    const outside = await client.backends.httpResponse.create({ body: 'outside', status_code: 418 });
    const extras = tempDir();
    try {
      writeFileSync(
        join(extras.path, 'extras.yaml'),
        [
          'kind: Backend',
          'name: with-outside',
          'spec:',
          '  type: failover',
          `  backends: [{id: ${outside.id}}]`,
          '---',
          'kind: HTTPSEdge',
          'name: mtls',
          'spec:',
          '  hostports: ["mtls.example.com:443"]',
          `  mutual_tls: {certificate_authorities: [{id: ${ca.id}}]}`,
          '  tls_termination: {terminate_at: edge, min_version: "1.3"}',
          '  routes:',
          '    - {match_type: exact_path, match: /health, backend: {backend: with-outside}}',
        ].join('\n'),
      );
      await writeLive(client, readManifests(extras.path), 'extras', {});
      await onlyMarkersDiffer([extras.path], 'extras', {});
      const result = await runCli(['plan', extras.path, '--format', 'json', '--detailed-exitcode', '--stack', 'extras'], {
        env: { GATEHOUSE_API_URL: server.url, GATEHOUSE_API_KEY: KEY },
      });
      const json = JSON.parse(result.stdout);
      expect(json.changes, JSON.stringify(json.changes, null, 2)).toEqual([]);
      expect(result.code).toBe(0);
      expect(json.summary.unchanged).toBe(3);
      // The other stack's objects are someone else's: listed, never changed.
      expect(json.unmanaged.length).toBeGreaterThan(0);
    } finally {
      extras.cleanup();
    }
  });
});
