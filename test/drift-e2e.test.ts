/**
 * `gatehouse drift` (the built CLI) against a real `gatehouse serve` process, after
 * `gatehouse apply` of examples/basic: in sync exits 0; a change outside gatehouse, a deletion
 * outside gatehouse and an edit of the manifests exit 2 and are named with their kind of
 * drift; an unmanaged object alone is information and exits 0; errors exit 1.
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type GatehouseClient } from '@gatehouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_SECRETS } from './plan-fixtures.js';
import { REPO_ROOT, runCli, tempDir, type ServeProcess, besideUsage } from './helpers/cli.js';
import { serveWithClient } from './helpers/served.js';

const KEY = 'drift-e2e-key-0123456789abcdef';
const EXAMPLES = join(REPO_ROOT, 'examples/basic');
let server: ServeProcess;
let client: GatehouseClient;
let close: (() => Promise<void>) | undefined;
/** Live ids of the objects the tests change. */
const ids = new Map<string, string>();

beforeAll(async () => {
  ({ server, client, close } = await serveWithClient(KEY, ['--no-reservation-check']));
  const applied = await runCli(['apply', EXAMPLES, '--yes'], { env: env() });
  if (applied.code !== 0) throw new Error(`apply failed:\n${applied.stdout}\n${applied.stderr}`);
  for await (const r of client.ipRestrictions.list()) if (r.type === 'dashboard') ids.set('IPRestriction/dashboard', r.id);
  for await (const e of client.httpsEdges.list()) if (e.hostports.includes('api.example.com:443')) ids.set('HTTPSEdge/api', e.id);
});
afterAll(async () => {
  await close?.();
});

const env = () => ({ ...EXAMPLE_SECRETS, GATEHOUSE_API_URL: server.url, GATEHOUSE_API_KEY: KEY });
async function driftJson(paths = [EXAMPLES]) {
  const result = await runCli(['drift', ...paths, '--format', 'json'], { env: env() });
  return { result, json: result.stdout ? JSON.parse(result.stdout) : undefined };
}

describe('gatehouse drift', () => {
  it('exits 0 when live matches the manifests', async () => {
    const { result, json } = await driftJson();
    expect(besideUsage(result.stderr)).toBe('');
    expect(json.objects, JSON.stringify(json.objects, null, 2)).toEqual([]);
    expect(result.code).toBe(0);
    expect(json).toMatchObject({ format_version: 1, stack: 'default', drifted: false, target: { url: server.url } });
    const text = await runCli(['drift', EXAMPLES], { env: env() });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('No drift.');
  });

  it('names a field changed outside gatehouse, exit 2; restoring it ends the drift', async () => {
    const id = ids.get('IPRestriction/dashboard')!;
    await client.ipRestrictions.update(id, { enforced: false });
    const { result, json } = await driftJson();
    expect(result.code).toBe(2);
    expect(json.objects).toEqual([
      expect.objectContaining({
        address: 'IPRestriction/dashboard',
        id,
        drift: 'changed_outside',
        fields: [{ path: 'enforced', drift: 'changed_outside', live: false, desired: true, sensitive: false }],
      }),
    ]);
    const text = await runCli(['drift', EXAMPLES], { env: env() });
    expect(text.code).toBe(2);
    expect(text.stdout).toMatch(/Changed outside gatehouse:\n\s+IPRestriction dashboard/);
    expect(text.stdout).toContain('enforced: live false, manifests true');

    await client.ipRestrictions.update(id, { enforced: true });
    expect((await driftJson()).result.code).toBe(0);
  });

  it('apply ends the drift: afterwards drift exits 0 again', async () => {
    const id = ids.get('IPRestriction/dashboard')!;
    await client.ipRestrictions.update(id, { description: 'edited by hand', enforced: false });
    expect((await driftJson()).result.code).toBe(2);
    const applied = await runCli(['apply', EXAMPLES, '--yes'], { env: env() });
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    const { result, json } = await driftJson();
    expect(json.objects).toEqual([]);
    expect(result.code).toBe(0);
  });

  it('classifies an edit of the manifests as changed in the manifests', async () => {
    const edited = tempDir();
    try {
      cpSync(EXAMPLES, edited.path, { recursive: true });
      const file = join(edited.path, 'ip-restrictions.yaml');
      writeFileSync(file, readFileSync(file, 'utf8').replace('enforced: true', 'enforced: false'));
      const { result, json } = await driftJson([edited.path]);
      expect(result.code).toBe(2);
      expect(json.objects).toEqual([
        expect.objectContaining({
          address: 'IPRestriction/dashboard',
          drift: 'changed_in_manifests',
          fields: [expect.objectContaining({ path: 'enforced', live: true, desired: false })],
        }),
      ]);
      const md = await runCli(['drift', edited.path, '--format', 'markdown'], { env: env() });
      expect(md.code).toBe(2);
      expect(md.stdout).toContain('| changed in the manifests since the last apply | 1 |');
    } finally {
      edited.cleanup();
    }
  });

  it('lists an unmanaged object as information only: exit 0', async () => {
    const policy = await client.ipPolicies.create({ description: 'made by hand' });
    const { result, json } = await driftJson();
    expect(result.code).toBe(0);
    expect(json.drifted).toBe(false);
    expect(json.unmanaged).toContainEqual({ kind: 'IPPolicy', id: policy.id, label: 'made by hand' });
    const text = await runCli(['drift', EXAMPLES], { env: env() });
    expect(text.stdout).toContain(`IPPolicy ${policy.id}`);
    await client.ipPolicies.delete(policy.id);
  });

  it('names a route deleted outside gatehouse, exit 2', async () => {
    const edgeId = ids.get('HTTPSEdge/api')!;
    const edge = await client.httpsEdges.get(edgeId);
    const route = edge.routes.find((r) => r.match === '/ws')!;
    await client.httpsEdgeRoutes(edgeId).delete(route.id);
    const { result, json } = await driftJson();
    expect(result.code).toBe(2);
    expect(json.objects).toEqual([expect.objectContaining({ address: 'HTTPSEdgeRoute/api//ws', id: null, drift: 'deleted_outside', action: 'create' })]);
    const text = await runCli(['drift', EXAMPLES], { env: env() });
    expect(text.stdout).toMatch(/Deleted outside gatehouse:\n\s+HTTPSEdgeRoute api .*\/ws/);
  });

  it('names top-level objects deleted outside: with evidence (a referenced policy) and without (an edge nothing references)', async () => {
    let vpn: string | undefined;
    for await (const p of client.ipPolicies.list()) if (p.description === 'Corporate VPN exit nodes') vpn = p.id;
    let ssh: string | undefined;
    for await (const e of client.tcpEdges.list()) ssh = e.id;
    await client.ipPolicies.delete(vpn!);
    await client.tcpEdges.delete(ssh!);
    const { result, json } = await driftJson();
    expect(result.code).toBe(2);
    const byAddress = Object.fromEntries(json.objects.map((o: { address: string }) => [o.address, o]));
    // The IP restrictions were applied exactly as declared now, and they reference the policy.
    expect(byAddress['IPPolicy/vpn']).toMatchObject({ id: null, drift: 'deleted_outside', action: 'create' });
    expect(byAddress['TCPEdge/ssh']).toMatchObject({ id: null, drift: 'missing', message: 'missing: not applied yet or deleted outside gatehouse' });
    expect(json.summary.deleted_outside).toBeGreaterThanOrEqual(2);
    expect(json.summary.missing).toBeGreaterThanOrEqual(1);
  });

  it('exits 1 on invalid manifests and on an unreachable API, printing no secret', async () => {
    const bad = await runCli(['drift', join(REPO_ROOT, 'examples/broken')], { env: env() });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('drift was not checked');
    const down = await runCli(['drift', EXAMPLES], { env: { ...env(), GATEHOUSE_API_URL: 'http://127.0.0.1:9' } });
    expect(down.code).toBe(1);
    for (const out of [bad.stdout, bad.stderr, down.stdout, down.stderr]) {
      for (const secret of Object.values(EXAMPLE_SECRETS)) expect(out).not.toContain(secret);
      expect(out).not.toContain(KEY);
    }
  });
});
