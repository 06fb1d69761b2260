/**
 * Apply against a server that fails a fraction of requests (before handling them, after
 * handling them with a 503, or after handling them with the connection dropped) and enforces
 * its rate limit: re-running apply converges, the plan after it is empty, and no object
 * exists twice (a duplicate would carry this stack's marker without a manifest to match, and
 * plan would list it as a delete; the counts are checked directly too).
 */
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { GatehouseClient, collect } from '@gatehouse/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EXAMPLE_SECRETS, readManifests } from './plan-fixtures.js';
import { REPO_ROOT, runCli, startServe, tempDir } from './helpers/cli.js';

const KEY = 'apply-faults-key-0123456789abcdef';
let dir: ReturnType<typeof tempDir>;
let repo: string;

beforeAll(() => {
  dir = tempDir();
  repo = join(dir.path, 'manifests');
  cpSync(join(REPO_ROOT, 'examples/basic'), repo, { recursive: true });
});
afterAll(() => dir?.cleanup());

const SERVERS = [
  { name: 'a third of requests failing in any way, and a tight rate limit', flags: ['--inject-faults', '0.3', '--fault-seed', '11', '--rate-limit', '20/1s'] },
  {
    name: 'half of requests carried out with the answer lost',
    flags: ['--inject-faults', '0.5', '--fault-seed', '3', '--fault-modes', 'after-503,after-drop'],
  },
];

it.each(SERVERS)('converges after re-runs with no duplicates: $name', { timeout: 300_000 }, async ({ flags }) => {
  const db = join(dir.path, `${flags[3]}.db`);
  const faulty = await startServe(['--port', '0', '--db', db, '--api-key', KEY, ...flags]);
  const env = { ...EXAMPLE_SECRETS, GATEHOUSE_API_URL: faulty.url, GATEHOUSE_API_KEY: KEY };
  const runs: { code: number | null; summary: unknown }[] = [];
  let lookedUp = false;
  try {
    // With half of all answers lost, a run fails whenever one of its ~20 reads loses five
    // answers in a row (its retries), or one of its writes does: it took 5-6 runs in three
    // tries, and once more than 8 (the limit before). Once the writes are done, about half of
    // the runs get through, so 16 leaves the test a chance well under one in 1,000 to fail.
    for (let run = 0; run < 16; run++) {
      const result = await runCli(['apply', repo, '--yes', '--format', 'json', '--parallelism', '4'], { env });
      const json = result.stdout ? JSON.parse(result.stdout) : undefined;
      runs.push({ code: result.code, summary: json?.summary ?? result.stderr });
      // A create that needed more than its one POST: a look-up after a lost answer, or a retry.
      lookedUp ||= (json?.steps ?? []).some((s: { action: string; requests: number }) => s.action === 'create' && s.requests > 1);
      if (result.code === 0 && json?.ok) break;
    }
  } finally {
    await faulty.stop();
  }
  expect(runs.at(-1)!.code, JSON.stringify(runs)).toBe(0);
  expect(lookedUp, JSON.stringify(runs)).toBe(true);

  // Read through a server without faults over the same database: the state apply left.
  const clean = await startServe(['--port', '0', '--db', db, '--api-key', KEY]);
  const client = new GatehouseClient({ baseUrl: clean.url, apiKey: KEY, rateLimit: false });
  try {
    const plan = await runCli(['plan', repo, '--format', 'json'], { env: { ...env, GATEHOUSE_API_URL: clean.url } });
    expect(plan.code, plan.stderr).toBe(0);
    const json = JSON.parse(plan.stdout);
    expect(json.changes, JSON.stringify(json.changes, null, 2)).toEqual([]);
    expect(json.unmanaged).toEqual([]);
    const manifests = readManifests(repo);
    const of = (kind: string) => manifests.filter((m) => m.kind === kind);
    const inline = (kind: string, field: string) => of(kind).reduce((n, m) => n + (m.spec[field]?.length ?? 0), 0);
    expect(json.summary.unchanged).toBe(manifests.length + inline('IPPolicy', 'rules') + inline('HTTPSEdge', 'routes'));
    // A lock record whose removal a fault cut short may remain: gatehouse's own, claiming a bot
    // user that is gone (so the stack is free), invisible to plan and cleared by the next holder.
    // The stack's bot user registry is one record, never two (a lost create is looked up).
    const policies = await collect(client.ipPolicies.list());
    const gatehouses = (prefix: string) => policies.filter((p) => String(p.metadata ?? '').startsWith(prefix));
    expect(gatehouses('gatehouse-bots:v1 ')).toHaveLength(1);
    expect(policies.length - gatehouses('gatehouse-lock:v1 ').length - 1).toBe(of('IPPolicy').length);
    expect(await collect(client.ipPolicyRules.list())).toHaveLength(inline('IPPolicy', 'rules'));
    expect(await collect(client.ipRestrictions.list())).toHaveLength(of('IPRestriction').length);
    expect(await collect(client.botUsers.list())).toHaveLength(of('BotUser').length);
    const edges = await collect(client.httpsEdges.list());
    expect(edges).toHaveLength(of('HTTPSEdge').length);
    expect(edges.reduce((n, e) => n + e.routes.length, 0)).toBe(inline('HTTPSEdge', 'routes'));
    expect(await collect(client.tcpEdges.list())).toHaveLength(of('TCPEdge').length);
  } finally {
    await client.close();
    await clean.stop();
  }
});
