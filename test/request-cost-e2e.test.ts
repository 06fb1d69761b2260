/**
 * What each command costs in requests, counted by the server (its request log), not by the CLI:
 *
 * - A load, validation or policy failure costs 0 requests and takes no lock, in every command
 *   that reads manifests (validate, plan, apply, drift), in every environment at once with
 *   `--env all`, and in export when gatehouse.yaml is broken.
 * - An apply costs its writes, the listing, and at most 4 requests for the lock; its last line
 *   says how many, and the share of the budget they were.
 * - `plan --env all` reads environments on different targets at the same time, and those on
 *   one target one after another (their requests never overlap on the server).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startServe, tempDir, type ServeProcess } from './helpers/cli.js';

const KEY = 'request-cost-e2e-key-0123456789abcdef';
const OTHER_KEY = 'request-cost-e2e-other-0123456789abcdef';
let dir: ReturnType<typeof tempDir>;
let serve: ServeProcess;
let other: ServeProcess;

beforeAll(async () => {
  dir = tempDir();
  // A network's delay, so that requests of different processes overlap only when sent together.
  [serve, other] = await Promise.all([
    startServe(['--port', '0', '--db', ':memory:', '--api-key', KEY, '--api-key', OTHER_KEY, '--latency', '100ms']),
    startServe(['--port', '0', '--db', ':memory:', '--api-key', KEY, '--latency', '100ms']),
  ]);
});
afterAll(async () => {
  await Promise.all([serve?.stop(), other?.stop()]);
  dir?.cleanup();
});

interface Logged {
  method: string;
  path: string;
  status: number;
  /** When the server received it and when it answered (ms). */
  start: number;
  end: number;
}

/** The requests `server` has logged so far. */
function logged(server: ServeProcess): Logged[] {
  return server
    .stdout()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { msg?: string; method: string; path: string; status: number; time: number; duration_ms: number })
    .filter((record) => record.msg === 'request')
    .map((r) => ({ method: r.method, path: r.path, status: r.status, start: r.time - r.duration_ms, end: r.time }));
}

/** Runs gatehouse in `cwd` and returns its result with the requests each server logged meanwhile. */
async function counted(args: string[], cwd: string, env: Record<string, string> = {}) {
  const before = [logged(serve).length, logged(other).length];
  // With --env, the environments name their targets (a GATEHOUSE_API_URL would be refused).
  const target: Record<string, string> = args.includes('--env') ? {} : { GATEHOUSE_API_URL: serve.url, GATEHOUSE_API_KEY: KEY };
  const result = await runCli(args, { cwd, env: { ...target, ...env } });
  // The log line of the last answer may follow the answer by a moment.
  await new Promise((resolve) => setTimeout(resolve, 50));
  return { result, requests: logged(serve).slice(before[0]), otherRequests: logged(other).slice(before[1]) };
}

function project(name: string, files: Record<string, string>): string {
  const path = join(dir.path, name);
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(join(path, file, '..'), { recursive: true });
    writeFileSync(join(path, file), text);
  }
  return path;
}

const policy = (name: string) => `---\nkind: IPPolicy\nname: ${name}\nspec: {description: ${name}}\n`;
const USAGE = /^(\d+) requests? \((\d+)% of one minute's budget of 120\)$/m;

describe('what a failure before the API costs: nothing', { timeout: 120_000 }, () => {
  it('a YAML error: validate, plan, apply and drift send no request and take no lock', async () => {
    const cwd = project('broken', { 'main.yaml': `${policy('office')}---\nkind: IPPolicy\nname: home\nspec: {description: [unclosed\n` });
    for (const args of [
      ['validate', '.'],
      ['plan', '.'],
      ['apply', '.', '--yes'],
      ['drift', '.'],
      ['plan', '.', '--format', 'json'],
    ]) {
      const { result, requests } = await counted(args, cwd);
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(1);
      expect(result.stderr).toContain('[yaml_syntax]');
      expect(requests, args.join(' ')).toEqual([]);
    }
  });

  it('a schema problem and a policy rule the manifests break: no request', async () => {
    const cwd = project('invalid', {
      'main.yaml': `---\nkind: IPPolicy\nname: office\nspec: {descripton: typo}\n`,
      'other/main.yaml': `---\nkind: IPPolicy\nname: everyone\nspec: {rules: [{cidr: 0.0.0.0/0, action: allow}]}\n`,
      'policies/rules.yaml': `- name: no-everyone\n  kind: IPPolicyRule\n  require: "!rule.cidr.endsWith('/0')"\n  severity: error\n  message: "rule {rule.cidr} allows everyone"\n`,
    });
    for (const args of [
      ['plan', 'main.yaml'],
      ['apply', 'main.yaml', '--yes'],
      ['drift', 'main.yaml'],
    ]) {
      const { result, requests } = await counted(args, cwd);
      expect(result.code, args.join(' ')).toBe(1);
      expect(requests, args.join(' ')).toEqual([]);
    }
    const { result, requests } = await counted(['plan', 'other'], cwd);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('the manifests break 1 policy rule (no-everyone); nothing was planned (no request was sent)');
    expect(requests).toEqual([]);
  });

  it('with --env all, a problem in one environment costs no request in any', async () => {
    const cwd = project('environments', {
      'gatehouse.yaml':
        'manifests: [manifests]\nenvironments:\n  staging:\n    api_url: ${env:A_URL}\n    api_key: ${env:A_KEY}\n    overlays: [envs/staging]\n  production:\n    api_url: ${env:B_URL}\n    api_key: ${env:B_KEY}\n    overlays: [envs/production]\n',
      'manifests/main.yaml': policy('office'),
      'envs/staging/main.yaml': policy('lab'),
      'envs/production/main.yaml': '---\nkind: IPPolicy\nname: broken\nspec: {description: [unclosed\n',
    });
    const env = { A_URL: serve.url, A_KEY: KEY, B_URL: other.url, B_KEY: KEY };
    for (const args of [
      ['plan', '--env', 'all'],
      ['drift', '--env', 'all'],
    ]) {
      const { result, requests, otherRequests } = await counted(args, cwd, env);
      expect(result.code, result.stderr).toBe(1);
      expect(result.stderr).toMatch(/the problem is in environment production/);
      expect([...requests, ...otherRequests], args.join(' ')).toEqual([]);
    }
  });

  it('export with a broken gatehouse.yaml sends nothing', async () => {
    const cwd = project('export', { 'gatehouse.yaml': 'manifests: [manifests\n' });
    const { result, requests } = await counted(['export', '--out', 'out'], cwd);
    expect(result.code).toBe(1);
    expect(requests).toEqual([]);
  });
});

describe('what an apply costs', { timeout: 120_000 }, () => {
  it('its writes, the listing and at most 4 requests for the lock; its last line says so', async () => {
    const cwd = project('apply', { 'main.yaml': Array.from({ length: 12 }, (_, i) => policy(`p${i}`)).join('') });
    const plan = await runCli(['plan', '.', '--format', 'json'], { cwd, env: { GATEHOUSE_API_URL: serve.url, GATEHOUSE_API_KEY: OTHER_KEY } });
    const listing = (JSON.parse(plan.stdout) as { requests: number }).requests;
    const { result, requests } = await counted(['apply', '.', '--yes'], cwd, { GATEHOUSE_API_KEY: OTHER_KEY });
    expect(result.code, result.stderr).toBe(0);
    const writes = 12;
    const lock = requests.length - writes - listing;
    expect(lock).toBeGreaterThanOrEqual(0);
    expect(lock).toBeLessThanOrEqual(4);
    expect(requests.filter((r) => r.status === 429)).toEqual([]);
    // The last line counts what the server saw, against the budget in use.
    const last = result.stdout.trimEnd().split('\n').at(-1)!;
    expect(last).toMatch(USAGE);
    expect(Number(USAGE.exec(last)![1])).toBe(requests.length);
    expect(Number(USAGE.exec(last)![2])).toBe(Math.round((requests.length / 120) * 100));
    // The JSON says the same.
    const again = await counted(['apply', '.', '--yes', '--format', 'json'], cwd, { GATEHOUSE_API_KEY: OTHER_KEY });
    const json = JSON.parse(again.result.stdout) as {
      api_requests: { total: number; by_method: Record<string, number>; rate_limited: number; budget: unknown; budget_share: number };
    };
    expect(json.api_requests).toEqual({
      total: again.requests.length,
      by_method: { GET: listing, POST: 2, PATCH: 0, PUT: 0, DELETE: 2 },
      rate_limited: 0,
      budget: { requests: 120, window_seconds: 60 },
      budget_share: Math.round((again.requests.length / 120) * 1000) / 1000,
    });
    expect(again.result.stderr).toMatch(USAGE);
  });
});

describe('environments at once', { timeout: 120_000 }, () => {
  const overlapping = (a: Logged[], b: Logged[]) => a.some((x) => b.some((y) => x.start < y.end && y.start < x.end));

  it("on different targets their requests overlap; on one target they do not; the output keeps gatehouse.yaml's order", async () => {
    const files = (second: string) => ({
      'gatehouse.yaml': `manifests: [manifests]\nenvironments:\n  first:\n    api_url: \${env:A_URL}\n    api_key: \${env:A_KEY}\n    stack: first\n  second:\n    api_url: \${env:${second}_URL}\n    api_key: \${env:${second}_KEY}\n    stack: second\n`,
      'manifests/main.yaml': policy('office'),
    });
    const env = { A_URL: serve.url, A_KEY: KEY, B_URL: other.url, B_KEY: KEY, C_URL: serve.url, C_KEY: KEY };
    const apart = await counted(['plan', '--env', 'all', '--format', 'json'], project('targets-apart', files('B')), env);
    expect(apart.result.code, apart.result.stderr).toBe(0);
    expect(Object.keys((JSON.parse(apart.result.stdout) as { environments: object }).environments)).toEqual(['first', 'second']);
    expect(overlapping(apart.requests, apart.otherRequests)).toBe(true);
    expect(apart.result.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(/^first: \d+ requests/), expect.stringMatching(/^second: \d+ requests/)]);

    const shared = await counted(['plan', '--env', 'all', '--format', 'json'], project('target-shared', files('C')), env);
    expect(shared.result.code, shared.result.stderr).toBe(0);
    expect(shared.otherRequests).toEqual([]);
    // Every request of the first environment was answered before the second's first arrived.
    const half = shared.requests.length / 2;
    const [first, second] = [shared.requests.slice(0, half), shared.requests.slice(half)];
    expect(Math.max(...first.map((r) => r.end))).toBeLessThanOrEqual(Math.min(...second.map((r) => r.start)));
  });
});
