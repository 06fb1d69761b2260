/**
 * Prune scope (issue 8, point 2) through the built CLI against a `gatehouse serve` process: a
 * repository (`.git`) holding examples/basic as `manifests/`, applied in full, then:
 * - the scenario: `apply manifests/ip-policies.yaml --prune --yes` deletes nothing
 *   that other files declare (edges, backends, the restriction), and says how many it left;
 * - a document removed from a file is deleted by `apply manifests --prune`;
 * - `--prune-all`: plan and a saved plan, the rail, and the delete of an object applied from a
 *   directory that is gone;
 * - a marker without a path (an older gatehouse) and manifests piped on standard input.
 * The commands run in the repository, with relative PATHs, as a user types them.
 */
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GatehouseClient } from '@gatehouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_SECRETS } from './plan-fixtures.js';
import { REPO_ROOT, runCli, spawnCli, type ServeProcess } from './helpers/cli.js';
import { serveWithClient, type ServedApi } from './helpers/served.js';

const KEY = 'prune-scope-e2e-key-0123456789abcdef';
let served: ServedApi;
let server: ServeProcess;
let client: GatehouseClient;
let repo: string;

const env = () => ({ ...EXAMPLE_SECRETS, GATEHOUSE_API_URL: server.url, GATEHOUSE_API_KEY: KEY });
const run = (...args: string[]) => runCli(args, { env: env(), cwd: repo });
const planJson = async (...args: string[]) => {
  const result = await run('plan', ...args, '--format', 'json');
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as {
    changes: { address: string; action: string; needs_prune?: boolean; cause?: string; reason?: string }[];
    prune_scope?: Record<string, unknown>;
  };
};
const deletes = (plan: Awaited<ReturnType<typeof planJson>>) =>
  plan.changes
    .filter((c) => c.action === 'delete')
    .map((c) => c.address)
    .sort();

/** Every live object's kind path and id, with the path its marker records. */
async function inventory(): Promise<Map<string, string | undefined>> {
  const found = new Map<string, string | undefined>();
  const marker = (metadata: unknown) => /gatehouse:v1 (\{.*\})$/.exec(String(metadata ?? ''))?.[1];
  const note = (id: string, metadata: unknown) => {
    // gatehouse's own records (the bot user registry, a lock's record) carry no marker.
    if (/^gatehouse-(bots|lock):/.test(String(metadata ?? ''))) return;
    const json = marker(metadata);
    found.set(id, json ? (JSON.parse(json) as { path?: string }).path : undefined);
  };
  const collections = [client.ipPolicies, client.ipRestrictions, client.httpsEdges, client.tcpEdges, ...Object.values(client.backends)];
  for (const collection of collections) {
    for await (const o of collection.list() as AsyncIterable<{ id: string; metadata?: unknown }>) note(o.id, o.metadata);
  }
  return found;
}

beforeAll(async () => {
  served = await serveWithClient(KEY);
  ({ server, client } = served);
  repo = join(served.dir.path, 'repo');
  mkdirSync(join(repo, '.git'), { recursive: true });
  cpSync(join(REPO_ROOT, 'examples/basic'), join(repo, 'manifests'), { recursive: true });
  const applied = await run('apply', 'manifests', '--yes');
  if (applied.code !== 0) throw new Error(`apply failed:\n${applied.stdout}\n${applied.stderr}`);
}, 60_000);
afterAll(async () => {
  await served?.close();
});

describe('prune scope', () => {
  it('every marker records the manifest path, relative to the repository root', async () => {
    const paths = new Set((await inventory()).values());
    expect(paths).toContain('manifests/ip-policies.yaml');
    expect(paths).toContain('manifests/https-edges.yaml');
    expect(paths).not.toContain(undefined);
  });

  it('apply manifests/ip-policies.yaml --prune --yes deletes nothing the other files declare, and says so', async () => {
    const before = await inventory();
    const applied = await run('apply', 'manifests/ip-policies.yaml', '--prune', '--yes');
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toMatch(
      /Prune scope: \d+ owned objects not declared in the manifests read were applied from outside the PATHs given \(manifests\/ip-policies\.yaml\): .*HTTPSEdge/,
    );
    expect(applied.stdout).toContain('--prune-all considers them');
    expect(applied.stdout).not.toMatch(/to delete/);
    expect([...(await inventory()).keys()].sort()).toEqual([...before.keys()].sort());

    const plan = await planJson('./manifests/ip-policies.yaml', '--prune');
    expect(deletes(plan)).toEqual([]);
    expect(plan.prune_scope).toMatchObject({
      mode: 'paths',
      paths: ['manifests/ip-policies.yaml'],
      outside_without_path: 0,
      outside_kinds: expect.objectContaining({
        HTTPSEdge: expect.any(Number),
        TCPEdge: expect.any(Number),
        Backend: expect.any(Number),
        IPRestriction: expect.any(Number),
      }),
    });
  });

  it('a document removed from a file: apply manifests --prune deletes it (the whole directory prunes as before)', async () => {
    const file = join(repo, 'manifests/tcp-edges.yaml');
    expect(readFileSync(file, 'utf8')).toContain('name: ssh');
    writeFileSync(file, '# the bastion is gone\n');
    const plan = await planJson('manifests', '--prune');
    expect(deletes(plan)).toEqual(['TCPEdge/ssh']);
    expect(plan.prune_scope).toBeUndefined();
    const applied = await run('apply', 'manifests/', '--prune', '--yes');
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout).toMatch(/1 done/);
    expect([...(await inventory()).values()].filter((path) => path === 'manifests/tcp-edges.yaml')).toEqual([]);
  });

  it('--prune-all: deletes what no PATH holds any more; the rail and saved plans still hold', async () => {
    mkdirSync(join(repo, 'team'), { recursive: true });
    writeFileSync(join(repo, 'team/extra.yaml'), 'kind: IPPolicy\nname: team-extra\nspec: {description: team extra}\n');
    expect((await run('apply', 'manifests', 'team', '--yes')).code).toBe(0);
    rmSync(join(repo, 'team'), { recursive: true });

    // Its directory is gone: --prune of manifests/ leaves it, counted; --prune-all plans its delete.
    const scoped = await planJson('manifests', '--prune');
    expect(deletes(scoped)).toEqual([]);
    expect(scoped.prune_scope).toMatchObject({ mode: 'paths', outside: 1, outside_kinds: { IPPolicy: 1 } });

    // --prune-all of one file would delete most of the stack: the rail refuses, nothing is written.
    const before = await inventory();
    const refused = await run('apply', 'manifests/ip-policies.yaml', '--prune-all', '--yes');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/refused: .*more than 30%/);
    expect([...(await inventory()).keys()].sort()).toEqual([...before.keys()].sort());

    // A saved --prune-all plan carries its scope: apply --plan --prune runs its delete.
    const saved = await run('plan', 'manifests', '--prune-all', '--out', 'plan.json', '--format', 'json');
    expect(saved.code, saved.stderr).toBe(0);
    expect(JSON.parse(saved.stdout)).toMatchObject({
      prune_scope: { mode: 'all' },
      changes: [expect.objectContaining({ address: 'IPPolicy/team-extra', action: 'delete' })],
    });
    const applied = await run('apply', '--plan', 'plan.json', '--prune', '--yes');
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect([...(await inventory()).keys()].length).toBe(before.size - 1);
  });

  it('a marker without a path (an older gatehouse): a file PATH leaves it, a directory declaring its kind prunes it', async () => {
    await client.ipPolicies.create({ description: 'old', metadata: 'gatehouse:v1 {"stack":"default","name":"old-policy","hash":"0123456789abcdef"}' });
    const file = await planJson('manifests/ip-policies.yaml', '--prune');
    expect(deletes(file)).toEqual([]);
    expect(file.prune_scope).toMatchObject({ outside_without_path: 1 });
    const count = (await inventory()).size;
    const whole = await run('apply', 'manifests', '--prune', '--yes');
    expect(whole.code, whole.stdout + whole.stderr).toBe(0);
    expect(whole.stdout).toMatch(/IPPolicy +- 1 to delete/);
    expect((await inventory()).size).toBe(count - 1);
  });

  it('manifests on standard input record no path and widen no scope: --prune deletes nothing of them', async () => {
    const pipe = async (text: string, ...args: string[]) => {
      const cli = spawnCli(args, { env: env(), cwd: repo });
      cli.child.stdin!.end(text);
      return cli.exited;
    };
    const first = await pipe('kind: IPPolicy\nname: piped\nspec: {description: piped}\n', 'apply', '-', '--yes');
    expect(first.code, first.stdout + first.stderr).toBe(0);
    const piped = [...(await inventory()).entries()].filter(([, path]) => path === undefined);
    expect(piped).toHaveLength(1);
    const next = await pipe('kind: IPPolicy\nname: piped-two\nspec: {description: piped two}\n', 'plan', '-', '--prune', '--format', 'json');
    expect(next.code, next.stderr).toBe(0);
    const plan = JSON.parse(next.stdout) as Awaited<ReturnType<typeof planJson>>;
    expect(deletes(plan)).toEqual([]);
    expect(plan.prune_scope).toMatchObject({ mode: 'paths', paths: [], stdin: true });
  });
});
