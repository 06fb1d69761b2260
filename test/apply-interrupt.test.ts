/**
 * Ctrl-C during apply (issue 8, part 7), through the built CLI against `gatehouse serve`:
 * the first SIGINT starts nothing new, lets the requests in flight finish, prints the summary
 * (done, cancelled, not started) and what to run next, exit 130; a second one exits at once.
 * A client-side rate limit keeps the apply slow enough to be interrupted half-way.
 */
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { collect, type GatehouseClient } from '@gatehouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_SECRETS } from './plan-fixtures.js';
import { REPO_ROOT, runCli, spawnCli, type ServeProcess, type tempDir } from './helpers/cli.js';
import { serveWithClient } from './helpers/served.js';

const KEY = 'apply-interrupt-key-0123456789';
let server: ServeProcess;
let dir: ReturnType<typeof tempDir>;
let client: GatehouseClient;
let close: (() => Promise<void>) | undefined;
let repo: string;

beforeAll(async () => {
  ({ dir, server, client, close } = await serveWithClient(KEY));
  repo = join(dir.path, 'manifests');
  cpSync(join(REPO_ROOT, 'examples/basic'), repo, { recursive: true });
});
afterAll(async () => {
  await close?.();
});

const env = () => ({ ...EXAMPLE_SECRETS, GATEHOUSE_API_URL: server.url, GATEHOUSE_API_KEY: KEY, GATEHOUSE_RATE_LIMIT: '4/1s' });

describe('Ctrl-C during apply', { timeout: 120_000 }, () => {
  it('first SIGINT: nothing new starts, the summary counts done and not started, exit 130', async () => {
    const apply = spawnCli(['apply', repo, '--yes', '--parallelism', '2'], { env: env() });
    await apply.waitFor(/^done /m);
    apply.child.kill('SIGINT');
    const result = await apply.exited;
    expect(result.code, result.stderr).toBe(130);
    expect(result.stderr).toMatch(/Interrupted: starting nothing new; waiting up to 30 s/);
    const summary = /Apply interrupted: (\d+) done, 0 failed, 0 cancelled \(.*\), (\d+) not started\. Run gatehouse plan .* the same apply command again/.exec(
      result.stdout,
    );
    expect(summary, result.stdout).not.toBeNull();
    const [done, notStarted] = [Number(summary![1]), Number(summary![2])];
    expect(done).toBeGreaterThan(0);
    expect(notStarted).toBeGreaterThan(0);
    expect(result.stdout + result.stderr).not.toMatch(/\n\s+at /); // no stack trace
    // What was reported done is what is live: one IP policy per done IP policy create.
    const policiesDone = (result.stdout.match(/^done +create +IPPolicy\//gm) ?? []).length;
    expect((await collect(client.ipPolicies.list())).length).toBe(policiesDone);
  });

  it('a second SIGINT exits at once; apply again then finishes the job', async () => {
    const apply = spawnCli(['apply', repo, '--yes', '--parallelism', '2'], { env: env() });
    await apply.waitFor(/^done /m);
    apply.child.kill('SIGINT');
    await apply.waitFor(/Interrupted: starting nothing new/);
    apply.child.kill('SIGINT');
    const result = await apply.exited;
    expect(result.code).toBe(130);
    expect(result.stderr).toMatch(/Exiting at once/);

    const again = await runCli(['apply', repo, '--yes'], { env: { ...EXAMPLE_SECRETS, GATEHOUSE_API_URL: server.url, GATEHOUSE_API_KEY: KEY } });
    expect(again.code, again.stderr).toBe(0);
    const plan = await runCli(['plan', repo, '--detailed-exitcode'], { env: { ...EXAMPLE_SECRETS, GATEHOUSE_API_URL: server.url, GATEHOUSE_API_KEY: KEY } });
    expect(plan.code, plan.stdout).toBe(0);
  });
});
