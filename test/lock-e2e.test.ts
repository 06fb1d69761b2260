/**
 * The per-stack lock against a real `gatehouse serve`: two applies of one stack started at
 * once (three rounds) leave no duplicate, the one that finds the lock held fails naming the
 * holder; a lock held by someone else makes apply fail at once (default) or wait
 * (--lock-timeout); plan and drift say when a lock is held (stale after its lease) and never
 * show the lock's objects; `gatehouse unlock` removes it; an apply whose lock is removed while
 * it runs learns it at its next renewal and stops writing.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type GatehouseClient, collect } from '@gatehouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, spawnCli, type ServeProcess } from './helpers/cli.js';
import { serveWithClient } from './helpers/served.js';

const KEY = 'lock-e2e-key-0123456789abcdef';
let server: ServeProcess;
let client: GatehouseClient;
let close: (() => Promise<void>) | undefined;
let base: string;
const repos = new Map<string, string>();

/**
 * The manifests of one stack: enough objects that two applies overlap (40 policies of 3
 * rules), named after the stack, since two stacks never declare one name (plan/stacks.ts).
 */
function repoOf(stack: string): string {
  let repo = repos.get(stack);
  if (repo) return repo;
  repo = join(base, stack);
  mkdirSync(repo);
  const docs = Array.from({ length: 40 }, (_, i) =>
    [
      `kind: IPPolicy`,
      `name: ${stack}-p${i}`,
      `spec:`,
      `  description: policy ${i}`,
      `  rules:`,
      ...[0, 1, 2].map((j) => `    - {cidr: 10.${i}.${j}.0/24, action: allow}`),
    ].join('\n'),
  );
  writeFileSync(join(repo, 'policies.yaml'), `${docs.join('\n---\n')}\n`);
  repos.set(stack, repo);
  return repo;
}

beforeAll(async () => {
  let dir;
  ({ dir, server, client, close } = await serveWithClient(KEY));
  base = join(dir.path, 'manifests');
  mkdirSync(base);
});
afterAll(async () => {
  await close?.();
});

// The server has no rate limit: unpaced, an apply of its 160 objects takes a second, not the
// service's two minutes.
const env = (stack: string) => ({ GATEHOUSE_API_URL: server.url, GATEHOUSE_API_KEY: KEY, GATEHOUSE_STACK: stack, GATEHOUSE_RATE_LIMIT: 'off' });
const cli = (stack: string, ...args: string[]) => runCli(args, { env: env(stack) });

/** Live IP policies and rules per marker name of `stack`; a count over 1 is a duplicate. */
async function markerCounts(stack: string): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const o of [...(await collect(client.ipPolicies.list())), ...(await collect(client.ipPolicyRules.list()))]) {
    const line = String((o as { metadata?: string }).metadata ?? '')
      .split('\n')
      .at(-1)!;
    if (!line.startsWith('gatehouse:v1 ')) continue;
    const marker = JSON.parse(line.slice('gatehouse:v1 '.length)) as { stack: string; name: string };
    if (marker.stack === stack) counts.set(`${o.id.slice(0, 4)}:${marker.name}`, (counts.get(`${o.id.slice(0, 4)}:${marker.name}`) ?? 0) + 1);
  }
  return counts;
}

/** Takes the lock the way apply does, as another holder; returns how to let it go. */
async function holdLock(stack: string, record: { holder: string; run_id: string; started_at: string; lease_seconds: number }) {
  const bot = await client.botUsers.create({ name: `gatehouse-lock.${stack}`, active: false });
  const policy = await client.ipPolicies.create({
    description: `gatehouse lock of stack "${stack}"`,
    metadata: `gatehouse-lock:v1 ${JSON.stringify({ stack, ...record, bot_user_id: bot.id })}`,
  });
  return async () => {
    await client.ipPolicies.delete(policy.id);
    await client.botUsers.delete(bot.id);
  };
}

describe('the per-stack lock', { timeout: 300_000 }, () => {
  it('two applies of one stack at once, three rounds: no duplicate, the loser names the holder', async () => {
    for (const round of [1, 2, 3]) {
      const stack = `race-${round}`;
      const [a, b] = await Promise.all([cli(stack, 'apply', repoOf(stack), '--yes'), cli(stack, 'apply', repoOf(stack), '--yes')]);
      const counts = await markerCounts(stack);
      expect(counts.size, `round ${round}`).toBe(40 * 4);
      expect(
        [...counts.values()].filter((n) => n > 1),
        `round ${round}: duplicates`,
      ).toEqual([]);
      const codes = [a.code, b.code].sort();
      // Either the second found the lock held (exit 1, naming the holder), or it started after
      // the first ended and found nothing to do; never both writing.
      if (codes[1] === 1) {
        expect(codes).toEqual([0, 1]);
        const loser = a.code === 1 ? a : b;
        expect(loser.stderr).toMatch(new RegExp(`stack "${stack}" is locked by .+@.+ \\(pid \\d+\\) since \\d{4}-\\d\\d-\\d\\dT.*run `));
      } else expect(codes).toEqual([0, 0]);
      // The lock is gone after both.
      expect((await collect(client.botUsers.list())).filter((u) => u.name.startsWith('gatehouse-lock.'))).toEqual([]);
    }
  });

  it('fails at once while another holds the lock, waits with --lock-timeout, and plan, drift and unlock see it', async () => {
    const stack = 'held';
    const release = await holdLock(stack, {
      holder: 'ci@runner-7 (pid 42)',
      run_id: 'github:acme/net#991.1',
      started_at: new Date().toISOString(),
      lease_seconds: 3600,
    });
    const [failed, json, plan, drift] = await Promise.all([
      cli(stack, 'apply', repoOf(stack), '--yes'),
      cli(stack, 'apply', repoOf(stack), '--yes', '--format', 'json'),
      cli(stack, 'plan', repoOf(stack)),
      cli(stack, 'drift', repoOf(stack), '--format', 'json'),
    ]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('stack "held" is locked by ci@runner-7 (pid 42) since');
    expect(failed.stderr).toContain('run github:acme/net#991.1');
    expect(JSON.parse(json.stdout).error).toMatchObject({ code: 'locked', lock: { holder: 'ci@runner-7 (pid 42)', stale: false } });
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('Note: stack "held" is locked by ci@runner-7 (pid 42)');
    // The lock's own objects are neither planned nor listed as unmanaged.
    expect(plan.stdout).not.toContain('gatehouse-lock');
    expect(plan.stdout).toContain('160 to create');
    expect(JSON.parse(drift.stdout).lock).toMatchObject({ stack, holder: 'ci@runner-7 (pid 42)', stale: false });
    expect(await markerCounts(stack)).toEqual(new Map());

    // Waiting: the holder lets go once apply says it waits; apply then takes the lock and applies.
    const waiting = spawnCli(['apply', repoOf(stack), '--yes', '--lock-timeout', '2m'], { env: env(stack) });
    await waiting.waitFor(/waiting up to 120 s \(--lock-timeout\) for the lock: stack "held" is locked by ci@runner-7 \(pid 42\)/);
    await release();
    const waited = await waiting.exited;
    expect(waited.code, waited.stderr).toBe(0);
    expect((await markerCounts(stack)).size).toBe(160);
  });

  it('reports a lock older than its lease as stale; unlock removes it', async () => {
    const stack = 'stale';
    await holdLock(stack, { holder: 'gone@host (pid 1)', run_id: 'r-1', started_at: new Date(Date.now() - 2 * 3600_000).toISOString(), lease_seconds: 3600 });
    const plan = await cli(stack, 'plan', repoOf(stack));
    expect(plan.stdout).toContain('the lock is STALE');
    expect(plan.stdout).toContain('gatehouse unlock --stack stale');
    const refused = await cli(stack, 'unlock');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('--yes');
    const unlocked = await cli(stack, 'unlock', '--yes');
    expect(unlocked.code, unlocked.stderr).toBe(0);
    expect(unlocked.stdout).toContain('Removed the lock of stack "stale" (held by gone@host (pid 1))');
    expect((await collect(client.botUsers.list())).filter((u) => u.name.startsWith('gatehouse-lock.'))).toEqual([]);
    expect((await collect(client.ipPolicies.list())).filter((p) => String(p.metadata ?? '').startsWith('gatehouse-lock:'))).toEqual([]);
    const again = await cli(stack, 'unlock', '--yes');
    expect(again.stdout).toContain('is not locked');
  });

  it('an apply whose lock is removed while it runs (unlock) stops writing at its next renewal and fails naming why', async () => {
    const stack = 'lost';
    const proxy = await renewalProxy(server.url);
    try {
      // A short lease (tests only): renewals every 300 ms. One write at a time, the first rule held.
      const apply = spawnCli(['apply', repoOf(stack), '--yes', '--parallelism', '1'], {
        env: { ...env(stack), GATEHOUSE_API_URL: proxy.url, GATEHOUSE_TEST_LOCK_LEASE_SECONDS: '0.9' },
      });
      await Promise.race([proxy.held, apply.exited.then((r) => Promise.reject(new Error(`apply ended first: ${r.code} ${r.stdout}${r.stderr}`)))]);
      const unlocked = await cli(stack, 'unlock', '--yes');
      expect(unlocked.code, unlocked.stderr).toBe(0);
      await proxy.lossSeen;
      proxy.release();
      const result = await apply.exited;
      expect(result.code, result.stdout + result.stderr).toBe(1);
      expect(result.stderr).toMatch(
        /lost the lock of stack "lost" while applying: its bot user gatehouse-lock\.lost \(\S+\) was removed; nothing more was written/,
      );
      expect(result.stderr).toMatch(/\d+ changes? done, \d+ not started/);
    } finally {
      await proxy.close();
    }
    // Nothing was written after the loss: the held rule was the last write (40 policies, 120 rules).
    const rules = [...(await markerCounts(stack)).keys()].filter((k) => k.startsWith('ipr_'));
    expect(rules.length).toBeLessThanOrEqual(1);
    expect((await collect(client.botUsers.list())).filter((u) => u.name === 'gatehouse-lock.lost')).toEqual([]);
  });
});

/**
 * An HTTP proxy to `target` that holds the first rule create until `release()` (`held` resolves
 * when it arrives), and resolves `lossSeen` when a lock renewal's bot user read answers 404.
 */
async function renewalProxy(target: string) {
  const upstream = new URL(target);
  let onHeld!: () => void;
  let onLoss!: () => void;
  let release!: () => void;
  const held = new Promise<void>((resolve) => (onHeld = resolve));
  const lossSeen = new Promise<void>((resolve) => (onLoss = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  let holding = false;
  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer) => {
    const out = request(
      { hostname: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host } },
      (answer) => {
        if (req.method === 'GET' && req.url?.startsWith('/bot_users/') && answer.statusCode === 404) onLoss();
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    out.on('error', () => res.destroy());
    out.end(body);
  };
  const proxy: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (req.method === 'POST' && req.url === '/ip_policy_rules' && !holding) {
        holding = true;
        onHeld();
        void released.then(() => forward(req, res, body));
        return;
      }
      forward(req, res, body);
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const { port } = proxy.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    held,
    lossSeen,
    release,
    close: () =>
      new Promise<void>((resolve) => {
        proxy.closeAllConnections();
        proxy.close(() => resolve());
      }),
  };
}
