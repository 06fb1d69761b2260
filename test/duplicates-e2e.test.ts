/**
 * Duplicates and interrupted replaces against a real `gatehouse serve` (issue 15): a copy made
 * by hand (same stack marker as an applied object, with references pointing at the copy) is
 * resolved by a plain `apply --yes`; a copy that an unmanaged object references is left in place
 * and reported until that object is re-pointed; an apply SIGKILLed between the create and the delete of a
 * replace is finished by a plain rerun. In both, the plan that follows is empty.
 *
 * The kill is deterministic: a small HTTP proxy between the CLI and the server holds the first
 * DELETE it sees (never forwarding it) and the test kills the apply process when it arrives.
 */
import { createServer, request, type Server } from 'node:http';
import { mkdirSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { collect, type GatehouseClient } from '@gatehouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, spawnCli, type ServeProcess, type tempDir } from './helpers/cli.js';
import { serveWithClient } from './helpers/served.js';

const KEY = 'duplicates-e2e-key-0123456789abcdef';
let server: ServeProcess;
let dir: ReturnType<typeof tempDir>;
let client: GatehouseClient;
let close: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ dir, server, client, close } = await serveWithClient(KEY));
});
afterAll(async () => {
  await close?.();
});

const env = (stack: string, url = server.url) => ({ GATEHOUSE_API_URL: url, GATEHOUSE_API_KEY: KEY, GATEHOUSE_STACK: stack });
const cli = (stack: string, ...args: string[]) => runCli(args, { env: env(stack) });

/** Writes `files` into a fresh manifests directory named `name`; returns its path. */
function manifests(name: string, files: Record<string, string>): string {
  const path = join(dir.path, name);
  mkdirSync(path, { recursive: true });
  for (const [file, text] of Object.entries(files)) writeFileSync(join(path, file), text);
  return path;
}

/** The stack marker's JSON on an object's metadata, or undefined when it has none. */
function markerOf(object: { metadata?: string | null }): { stack: string; name: string } | undefined {
  const line = String(object.metadata ?? '')
    .split('\n')
    .at(-1)!;
  return line.startsWith('gatehouse:v1 ') ? JSON.parse(line.slice('gatehouse:v1 '.length)) : undefined;
}

/** Expects `plan` of `repo` to report no changes (exit 0). */
async function expectEmptyPlan(stack: string, repo: string) {
  const plan = await cli(stack, 'plan', repo, '--format', 'json');
  expect(plan.code, plan.stderr).toBe(0);
  const doc = JSON.parse(plan.stdout) as { changes: { action: string; address?: string }[] };
  expect(doc.changes.filter((c) => c.action !== 'no-op' && c.action !== 'noop')).toEqual([]);
}

describe('duplicates and interrupted replaces', { timeout: 120_000 }, () => {
  it('a copy made by hand, referenced by a restriction and a failover backend, is resolved by a plain apply', async () => {
    const stack = 'dup';
    const repo = manifests('dup', {
      'all.yaml': [
        'kind: IPPolicy\nname: office\nspec:\n  description: Office\n  rules:\n    - {cidr: 10.1.0.0/24, action: allow}',
        'kind: IPRestriction\nname: dashboard\nspec:\n  type: dashboard\n  enforced: true\n  ip_policies: [office]',
        'kind: Backend\nname: maint\nspec:\n  type: http_response\n  status_code: 503\n  body: down',
        'kind: Backend\nname: fo\nspec:\n  type: failover\n  backends: [maint]',
      ].join('\n---\n'),
    });
    const first = await cli(stack, 'apply', repo, '--yes');
    expect(first.code, first.stderr).toBe(0);

    const policies = (await collect(client.ipPolicies.list())).filter((p) => markerOf(p)?.stack === stack);
    expect(policies).toHaveLength(1);
    const original = policies[0]!;
    const rule = (await collect(client.ipPolicyRules.list())).find((r) => r.ip_policy.id === original.id)!;
    const maint = (await collect(client.backends.httpResponse.list())).find((b) => markerOf(b)?.stack === stack)!;
    const fo = (await collect(client.backends.failover.list())).find((b) => markerOf(b)?.stack === stack)!;
    const restriction = (await collect(client.ipRestrictions.list())).find((r) => markerOf(r)?.stack === stack)!;

    // The copies: same fields, same marker; then the references moved onto them.
    const policyCopy = await client.ipPolicies.create({ description: original.description, metadata: original.metadata });
    const ruleCopy = await client.ipPolicyRules.create({
      ip_policy_id: policyCopy.id,
      cidr: rule.cidr,
      action: rule.action,
      description: rule.description,
      metadata: rule.metadata,
    } as never);
    const maintCopy = await client.backends.httpResponse.create({
      description: maint.description,
      metadata: maint.metadata,
      status_code: maint.status_code,
      body: maint.body,
      headers: maint.headers,
    } as never);
    await client.ipRestrictions.update(restriction.id, { ip_policy_ids: [policyCopy.id] } as never);
    await client.backends.failover.update(fo.id, { backends: [maintCopy.id] } as never);

    const plan = await cli(stack, 'plan', repo);
    expect(plan.stdout).toContain(`duplicate; ${original.id} is kept`);
    expect(plan.stdout).toContain(`duplicate; ${maint.id} is kept`);

    const apply = await cli(stack, 'apply', repo, '--yes');
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);

    // The oldest objects are kept, the copies (and the copy's rule) gone, references re-pointed.
    const livePolicies = (await collect(client.ipPolicies.list())).filter((p) => markerOf(p)?.stack === stack);
    expect(livePolicies.map((p) => p.id)).toEqual([original.id]);
    const liveRules = await collect(client.ipPolicyRules.list());
    expect(liveRules.map((r) => r.id)).not.toContain(ruleCopy.id);
    expect(liveRules.filter((r) => r.ip_policy.id === original.id)).toHaveLength(1);
    const liveMaint = (await collect(client.backends.httpResponse.list())).filter((b) => markerOf(b)?.stack === stack);
    expect(liveMaint.map((b) => b.id)).toEqual([maint.id]);
    expect((await client.ipRestrictions.get(restriction.id)).ip_policies.map((p) => p.id)).toEqual([original.id]);
    expect((await client.backends.failover.get(fo.id)).backends).toEqual([maint.id]);

    await expectEmptyPlan(stack, repo);
  });

  it('a copy that an object gatehouse does not manage references is not deleted: plan, apply and drift say what to re-point', async () => {
    const stack = 'held';
    const repo = manifests('held', { 'all.yaml': 'kind: Backend\nname: held-maint\nspec:\n  type: http_response\n  status_code: 503\n  body: down' });
    const first = await cli(stack, 'apply', repo, '--yes');
    expect(first.code, first.stderr).toBe(0);
    const maint = (await collect(client.backends.httpResponse.list())).find((b) => markerOf(b)?.stack === stack)!;
    const copy = await client.backends.httpResponse.create({
      description: maint.description,
      metadata: maint.metadata,
      status_code: maint.status_code,
      body: maint.body,
      headers: maint.headers,
    } as never);
    // Made by hand, no marker: gatehouse never changes it.
    const theirs = await client.backends.failover.create({ description: 'made by hand', backends: [copy.id] } as never);

    const plan = await cli(stack, 'plan', repo, '--format', 'json');
    expect(plan.code, plan.stderr).toBe(0);
    const planned = JSON.parse(plan.stdout);
    expect(planned.changes).toEqual([]);
    expect(planned.held_duplicates).toEqual([
      expect.objectContaining({ id: copy.id, keep: maint.id, referenced_by: [{ kind: 'Backend', id: theirs.id, owner: 'not managed by gatehouse' }] }),
    ]);
    const drift = await cli(stack, 'drift', repo);
    expect(drift.code).toBe(2);
    expect(drift.stdout).toContain(`Backend ${theirs.id} (not managed by gatehouse) references it`);

    const apply = await cli(stack, 'apply', repo, '--yes');
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    expect(apply.stdout).toContain(
      `Duplicate not deleted: Backend ${copy.id} duplicates ${maint.id} (same stack and address), but is not deleted: Backend ${theirs.id} (not managed by gatehouse) references it`,
    );
    expect((await client.backends.failover.get(theirs.id)).backends).toEqual([copy.id]);
    expect((await collect(client.backends.httpResponse.list())).map((b) => b.id)).toContain(copy.id);

    // Its owner re-points it; the next apply deletes the copy.
    await client.backends.failover.update(theirs.id, { backends: [maint.id] } as never);
    const again = await cli(stack, 'apply', repo, '--yes');
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect((await collect(client.backends.httpResponse.list())).map((b) => b.id)).not.toContain(copy.id);
    await expectEmptyPlan(stack, repo);
  });

  it('an apply SIGKILLed between the create and the delete of a replace is finished by a plain rerun', async () => {
    const stack = 'replace';
    const edge =
      'kind: HTTPSEdge\nname: site\nspec:\n  hostports: ["replace-e2e.example.com:443"]\n  routes:\n    - match_type: path_prefix\n      match: /\n      backend: {backend: web}';
    const repo = manifests('replace', {
      'backends.yaml': 'kind: Backend\nname: web\nspec:\n  type: tunnel_group\n  labels: {app: web}',
      'edges.yaml': edge,
      'domains.yaml': 'kind: ReservedDomain\nname: site\nspec:\n  domain: replace-e2e.example.com',
    });
    const first = await cli(stack, 'apply', repo, '--yes');
    expect(first.code, first.stderr).toBe(0);
    const old = (await collect(client.backends.tunnelGroup.list())).find((b) => markerOf(b)?.stack === stack)!;
    expect(old).toBeDefined();

    // The type changes: a replace (create the http_response backend, re-point the route, delete the old one).
    writeFileSync(join(repo, 'backends.yaml'), 'kind: Backend\nname: web\nspec:\n  type: http_response\n  status_code: 503\n  body: moved');

    const proxy = await holdingProxy(server.url);
    try {
      const apply = spawnCli(['apply', repo, '--yes'], { env: env(stack, proxy.url) });
      const held = await Promise.race([
        proxy.firstDelete,
        apply.exited.then((r) => Promise.reject(new Error(`apply ended before its DELETE: ${r.code} ${r.stdout}${r.stderr}`))),
      ]);
      expect(held).toContain(old.id);
      apply.child.kill('SIGKILL');
      const killed = await apply.exited;
      expect(killed.signal).toBe('SIGKILL');
    } finally {
      await proxy.close();
    }

    // Both live now: the old one was never deleted.
    const created = (await collect(client.backends.httpResponse.list())).filter((b) => markerOf(b)?.stack === stack);
    expect(created).toHaveLength(1);
    expect((await collect(client.backends.tunnelGroup.list())).map((b) => b.id)).toContain(old.id);

    const rerun = await cli(stack, 'apply', repo, '--yes');
    expect(rerun.code, rerun.stdout + rerun.stderr).toBe(0);
    // The killed apply's lock: its process is certainly gone, so the rerun takes it over.
    expect(rerun.stderr).toMatch(/took over the lock of stack "replace" left by .+ \(pid \d+\), which no longer runs/);
    expect((await collect(client.backends.tunnelGroup.list())).map((b) => b.id)).not.toContain(old.id);
    const fresh = (await collect(client.backends.httpResponse.list())).filter((b) => markerOf(b)?.stack === stack);
    expect(fresh.map((b) => b.id)).toEqual([created[0]!.id]);
    const site = (await collect(client.httpsEdges.list())).find((e) => markerOf(e)?.stack === stack)!;
    const routes = (site as unknown as { routes: { backend?: { backend: { id: string } } | null }[] }).routes;
    expect(routes.map((r) => r.backend?.backend.id)).toEqual([created[0]!.id]);

    await expectEmptyPlan(stack, repo);
  });
});

/**
 * An HTTP proxy to `target` that forwards every request but the first DELETE, which it holds
 * open (never answered); `firstDelete` resolves with that request's path.
 */
async function holdingProxy(target: string): Promise<{ url: string; firstDelete: Promise<string>; close(): Promise<void> }> {
  const upstream = new URL(target);
  let onDelete!: (path: string) => void;
  const firstDelete = new Promise<string>((resolve) => (onDelete = resolve));
  let held = false;
  const proxy: Server = createServer((req, res) => {
    if (req.method === 'DELETE' && !held) {
      held = true;
      onDelete(req.url ?? '');
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
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const { port } = proxy.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    firstDelete,
    close: () =>
      new Promise<void>((resolve) => {
        proxy.closeAllConnections();
        proxy.close(() => resolve());
      }),
  };
}
