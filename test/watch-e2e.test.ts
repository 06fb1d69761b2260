/**
 * `gatehouse watch` (the built CLI) against one `gatehouse serve` process shared by every case
 * (each case its own stack and policy), with 1 s intervals and a little latency on every answer
 * so that a cycle lasts long enough to be interrupted: drift appears in the metrics within one
 * cycle, --self-heal sets it back and the gauge returns to 0, the webhook hears once per event;
 * two watchers heal once; an ignored field is neither drift nor healed; SIGTERM in the middle
 * of a heal exits 0 and leaves no lock; a failed git pull skips the cycle.
 */
import { createServer, type Server } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GatehouseClient } from '@gatehouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, spawnCli, type RunningCli } from './helpers/cli.js';
import { serveWithClient, type ServedApi } from './helpers/served.js';

const KEY = 'watch-e2e-key-0123456789abcdef';
let served: ServedApi;
let client: GatehouseClient;
const env = () => ({ GATEHOUSE_API_URL: served.server.url, GATEHOUSE_API_KEY: KEY });

beforeAll(async () => {
  served = await serveWithClient(KEY, ['--no-reservation-check', '--latency', '40ms']);
  client = served.client;
});
afterAll(async () => {
  await served?.close();
});

// --- helpers ---------------------------------------------------------------------------------

/** A manifest directory of one IP policy (with a rule), applied under `stack`. */
async function appliedPolicy(stack: string, extra = ''): Promise<{ dir: string; id: string }> {
  const dir = mkdtempSync(join(served.dir.path, `${stack}-`));
  writeFileSync(
    join(dir, 'policy.yaml'),
    `kind: IPPolicy\nname: ${stack}-office\n${extra}spec:\n  description: Office of ${stack}\n  rules:\n    - {cidr: 203.0.113.0/24, action: allow}\n`,
  );
  const applied = await runCli(['apply', dir, '--yes', '--stack', stack], { env: env() });
  if (applied.code !== 0) throw new Error(`apply failed:\n${applied.stdout}\n${applied.stderr}`);
  for await (const policy of client.ipPolicies.list()) if (policy.description === `Office of ${stack}`) return { dir, id: policy.id };
  throw new Error('the applied policy is not listed');
}

interface Watcher {
  process: RunningCli;
  metricsUrl: string;
  /** The cycle lines printed so far, parsed. */
  cycles(): Record<string, unknown>[];
  /** Resolves with the first cycle line numbered above `after` that `test` accepts. */
  cycle(test: (line: Record<string, unknown>) => boolean, after?: number): Promise<Record<string, unknown>>;
  metric(series: string): Promise<number | undefined>;
  stop(): Promise<{ code: number | null; stdout: string; stderr: string }>;
}

const watchers: Watcher[] = [];
afterAll(async () => {
  for (const watcher of watchers) if (watcher.process.child.exitCode === null) watcher.process.child.kill('SIGKILL');
});

async function startWatcher(dir: string, stack: string, flags: string[] = []): Promise<Watcher> {
  // The server has no rate limit: the client's pacing to the service's budget is off (docs/rate-limits.md).
  const process = spawnCli(['watch', dir, '--stack', stack, '--interval', '1s', '--metrics-addr', '127.0.0.1:0', '--rate-limit', 'off', ...flags], {
    env: env(),
  });
  await Promise.race([
    process.waitFor(/"msg":"watching"/),
    process.exited.then((r) => Promise.reject(new Error(`watch exited ${r.code}:\n${r.stdout}\n${r.stderr}`))),
  ]);
  const metricsUrl = /"metrics":"([^"]+)"/.exec(process.stderr())![1]!;
  const cycles = () =>
    process
      .stdout()
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  const watcher: Watcher = {
    process,
    metricsUrl,
    cycles,
    async cycle(test, after = 0) {
      for (;;) {
        const found = cycles().find((line) => (line.cycle as number) > after && test(line));
        if (found) return found;
        if (process.child.exitCode !== null) throw new Error(`watch exited:\n${process.stdout()}\n${process.stderr()}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    async metric(series) {
      const text = await (await fetch(metricsUrl)).text();
      const line = text.split('\n').find((l) => l.startsWith(`${series} `));
      return line === undefined ? undefined : Number(line.slice(series.length + 1));
    },
    async stop() {
      process.child.kill('SIGTERM');
      const result = await process.exited;
      return { code: result.code, stdout: result.stdout, stderr: result.stderr };
    },
  };
  watchers.push(watcher);
  return watcher;
}

const lastCycle = (watcher: Watcher) => (watcher.cycles().at(-1)?.cycle as number | undefined) ?? 0;

/** A local receiver for --notify-webhook: every JSON body it was sent. */
async function webhookReceiver(): Promise<{ url: string; messages: Record<string, unknown>[]; close(): Promise<void> }> {
  const messages: Record<string, unknown>[] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      messages.push(JSON.parse(body) as Record<string, unknown>);
      response.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return { url: `http://127.0.0.1:${address.port}/hooks/secret-path`, messages, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

const description = async (id: string) => (await client.ipPolicies.get(id)).description;
const driftSeries = 'gatehouse_drift_objects{environment="default",kind="IPPolicy",cause="changed_outside"}';

// --- cases -----------------------------------------------------------------------------------

describe('gatehouse watch', () => {
  it('shows an out-of-band change within one cycle; --self-heal sets it back, the gauge returns to 0, the webhook hears once per event', async () => {
    const { dir, id } = await appliedPolicy('watch-heal');
    const reporter = await startWatcher(dir, 'watch-heal');
    await reporter.cycle((line) => line.drifted === 0);
    await client.ipPolicies.update(id, { description: 'edited by hand' });
    const patchedAt = lastCycle(reporter);
    // The first cycle that starts after the change reports it (within one cycle).
    const seen = await reporter.cycle(() => true, patchedAt + 1);
    expect(seen).toMatchObject({ msg: 'cycle', outcome: 'success', drifted: 1, drift: { changed_outside: 1 }, level: 'warn' });
    expect(await reporter.metric(driftSeries)).toBe(1);
    expect(await description(id)).toBe('edited by hand');
    // 17 requests a second is far over the service's budget: said once, on stderr.
    expect(reporter.process.stderr().match(/choose a longer --interval/g)).toHaveLength(1);

    const hook = await webhookReceiver();
    try {
      const healer = await startWatcher(dir, 'watch-heal', ['--self-heal', '--notify-webhook', hook.url]);
      const healed = await healer.cycle((line) => line.heal === 'done');
      expect(healed).toMatchObject({ drifted: 1, healed: 1, level: 'info' });
      expect(await description(id)).toBe('Office of watch-heal');
      expect(await healer.metric(driftSeries)).toBe(0);
      expect(await healer.metric('gatehouse_healed_objects_total{environment="default",kind="IPPolicy",cause="changed_outside"}')).toBe(1);
      expect(await healer.metric('gatehouse_applies_total{environment="default",outcome="done"}')).toBe(1);
      // The reporter's gauge returns to 0 at its next cycle.
      const after = lastCycle(reporter);
      await reporter.cycle((line) => line.drifted === 0, after);
      expect(await reporter.metric(driftSeries)).toBe(0);
      // More cycles in sync: no more messages.
      await healer.cycle(() => true, (healed.cycle as number) + 2);
      expect(hook.messages.map((m) => m.event)).toEqual(['drift_detected', 'drift_healed']);
      expect(hook.messages[0]).toMatchObject({
        environment: 'default',
        stack: 'watch-heal',
        objects: [{ address: 'IPPolicy/watch-heal-office', kind: 'IPPolicy', cause: 'changed_outside', fields: ['description'] }],
        text: expect.stringContaining('`IPPolicy/watch-heal-office` changed outside gatehouse'),
      });
      // No value of the object is sent (the description is someone's text).
      expect(JSON.stringify(hook.messages)).not.toContain('edited by hand');
      const stopped = await healer.stop();
      expect(stopped.code).toBe(0);
      expect(stopped.stderr).not.toContain('secret-path');
      const health = await (await fetch(`${reporter.metricsUrl.replace(/\/metrics$/, '')}/healthz`)).json();
      expect(health).toMatchObject({ status: 'ok', healthy: true });
    } finally {
      await hook.close();
    }
    expect((await reporter.stop()).code).toBe(0);
  });

  it('an object deleted by hand that the previous cycle saw live is deleted outside, and --self-heal creates it again', async () => {
    // A top-level policy nothing references: only the watcher's own previous reading shows it was applied.
    const { dir, id } = await appliedPolicy('watch-deleted');
    const healer = await startWatcher(dir, 'watch-deleted', ['--self-heal']);
    await healer.cycle((line) => line.drifted === 0);
    await client.ipPolicies.delete(id);
    const healed = await healer.cycle((line) => line.heal === 'done');
    expect(healed).toMatchObject({ drifted: 2, drift: { deleted_outside: 2 }, healed: 2 });
    const policies: string[] = [];
    for await (const policy of client.ipPolicies.list()) if (policy.description === 'Office of watch-deleted') policies.push(policy.id);
    expect(policies).toHaveLength(1);
    expect(policies[0]).not.toBe(id);
    expect((await healer.stop()).code).toBe(0);
  });

  it('two watchers of one stack heal a change once', async () => {
    const { dir, id } = await appliedPolicy('watch-twice');
    const [a, b] = await Promise.all([startWatcher(dir, 'watch-twice', ['--self-heal']), startWatcher(dir, 'watch-twice', ['--self-heal'])]);
    await Promise.all([a.cycle((l) => l.drifted === 0), b.cycle((l) => l.drifted === 0)]);
    await client.ipPolicies.update(id, { description: 'edited by hand' });
    const [fromA, fromB] = [lastCycle(a), lastCycle(b)];
    await Promise.all([a.cycle(() => true, fromA + 2), b.cycle(() => true, fromB + 2)]);
    expect(await description(id)).toBe('Office of watch-twice');
    const sum = async (series: string) => ((await a.metric(series)) ?? 0) + ((await b.metric(series)) ?? 0);
    expect(await sum('gatehouse_applies_total{environment="default",outcome="done"}')).toBe(1);
    expect(await sum(`gatehouse_api_requests_total{api="${served.server.url}",method="PATCH",code="200"}`)).toBe(1);
    expect([(await a.stop()).code, (await b.stop()).code]).toEqual([0, 0]);
  });

  it('an ignored field changed outside is neither drift nor healed', async () => {
    const { dir, id } = await appliedPolicy('watch-ignore', 'lifecycle: {ignore_changes: [description]}\n');
    const watcher = await startWatcher(dir, 'watch-ignore', ['--self-heal']);
    await watcher.cycle((l) => l.drifted === 0);
    await client.ipPolicies.update(id, { description: 'owned by another team' });
    const after = lastCycle(watcher);
    const line = await watcher.cycle(() => true, after + 2);
    expect(line).toMatchObject({ drifted: 0, ignored_fields: 1, level: 'info' });
    expect(line.heal).toBeUndefined();
    expect(await description(id)).toBe('owned by another team');
    expect(await watcher.metric(`gatehouse_api_requests_total{api="${served.server.url}",method="PATCH",code="200"}`)).toBeUndefined();
    expect((await watcher.stop()).code).toBe(0);
    // plan says the same, and names the field it left alone.
    const plan = await runCli(['plan', dir, '--stack', 'watch-ignore'], { env: env() });
    expect(plan.stdout).toContain('No changes.');
    expect(plan.stdout).toMatch(/IPPolicy watch-ignore-office: 1 field \(description\)/);
  });

  it('SIGTERM in the middle of a heal finishes, releases the lock and exits 0', async () => {
    const { dir, id } = await appliedPolicy('watch-term');
    const watcher = await startWatcher(dir, 'watch-term', ['--self-heal']);
    await watcher.cycle((l) => l.drifted === 0);
    const lockHeld = async () => {
      for await (const bot of client.botUsers.list()) if (bot.name === 'gatehouse-lock.watch-term') return true;
      return false;
    };
    // Change it outside and signal as soon as the heal holds the lock (again if a heal slipped by).
    let signalled = false;
    for (let attempt = 0; attempt < 5 && !signalled; attempt++) {
      await client.ipPolicies.update(id, { description: `edited by hand ${attempt}` });
      for (let polls = 0; polls < 100 && !signalled; polls++) {
        if (await lockHeld()) {
          watcher.process.child.kill('SIGTERM');
          signalled = true;
        } else if ((await description(id)) === 'Office of watch-term') break;
      }
    }
    expect(signalled).toBe(true);
    const result = await watcher.process.exited;
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('SIGTERM: finishing the request in flight');
    // The signal came while the heal held the lock: its cycle says how the heal ended.
    const last = JSON.parse(result.stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
    expect(['interrupted', 'done']).toContain(last.heal);
    expect(await lockHeld()).toBe(false);
    const records: string[] = [];
    for await (const policy of client.ipPolicies.list()) if (String(policy.metadata ?? '').startsWith('gatehouse-lock:')) records.push(policy.id);
    expect(records).toEqual([]);
  });

  it('a failed git pull skips the cycle, saying why; SIGTERM between cycles exits 0', async () => {
    const { dir } = await appliedPolicy('watch-git');
    const outside = mkdtempSync(join(tmpdir(), 'gatehouse-not-a-repo-'));
    writeFileSync(join(outside, 'policy.yaml'), (await import('node:fs')).readFileSync(join(dir, 'policy.yaml')));
    const watcher = await startWatcher(outside, 'watch-git', ['--git-pull']);
    const line = await watcher.cycle(() => true);
    expect(line).toMatchObject({
      outcome: 'skipped',
      level: 'warn',
      requests: 0,
      error: expect.stringMatching(/^git pull failed, cycle skipped: .*not a git repository/),
    });
    expect(await watcher.metric('gatehouse_cycles_total{environment="default",outcome="skipped"}')).toBeGreaterThanOrEqual(1);
    expect((await watcher.stop()).code).toBe(0);
  });
});
