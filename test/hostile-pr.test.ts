/**
 * A hostile pull request against a pipeline that runs gatehouse (issue 42): the GitHub
 * Action's plan step (`action/main.mjs run`, as action.yml runs it, with the built CLI on the
 * PATH) on a pull request that tries each trust boundary, against a `gatehouse serve` holding
 * the configuration of the default branch. Checked each time: the comment the step writes for
 * the pull request and the job summary (never a secret of the runner), the step's exit code,
 * and that nothing was written (the live objects are as they were; a refused plan saves
 * nothing).
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiHeaders, CLI, REPO_ROOT, runCli, tempDir } from './helpers/cli.js';
import { serveWithClient, type ServedApi } from './helpers/served.js';

const KEY = 'gh_hostile_pr_key_0123456789abcdef';
/** Another secret of the runner (a cloud credential, say), which the pull request tries to publish. */
const RUNNER_SECRET = 'AKIA-runner-secret-0123456789';

let api: ServedApi;
const env = () => ({ GATEHOUSE_API_URL: api.server.url, GATEHOUSE_API_KEY: KEY });

/** What the default branch declares, applied before the pull request. */
const BASE = {
  'manifests/ip-policies.yaml':
    'kind: IPPolicy\nname: office\nspec:\n  description: office egress\n  rules:\n    - {cidr: 10.0.0.0/8, action: allow}\n---\nkind: IPPolicy\nname: lab\nspec:\n  description: lab\n',
  'manifests/backends.yaml': 'kind: Backend\nname: web\nspec:\n  type: tunnel_group\n  labels: {app: web}\n',
};

function write(root: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

/** Every collection the pull request could write to, as the API lists it. */
async function liveState(): Promise<string> {
  const paths = ['/ip_policies', '/ip_policy_rules', '/backends/tunnel_group', '/edges/https', '/bot_users'];
  const lists = await Promise.all(paths.map(async (path) => (await fetch(`${api.server.url}${path}`, { headers: apiHeaders(KEY) })).text()));
  return lists.join('\n');
}

interface StepRun {
  code: number | null;
  outputs: Record<string, string>;
  comment: string;
  summary: string;
  log: string;
}

/** `node action/main.mjs run` for `plan` in `workspace`, with `gatehouse` on the PATH and the runner's variables. */
async function planStep(workspace: string, extraEnv: Record<string, string> = {}): Promise<StepRun> {
  const runner = tempDir('gatehouse-runner-');
  const bin = join(runner.path, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'gatehouse'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
  chmodSync(join(bin, 'gatehouse'), 0o755);
  const files = { output: join(runner.path, 'output'), summary: join(runner.path, 'summary'), event: join(runner.path, 'event.json') };
  writeFileSync(files.output, '');
  writeFileSync(files.summary, '');
  writeFileSync(files.event, JSON.stringify({ pull_request: { number: 7, head: { sha: 'c0ffee' } } }));
  const childEnv = {
    PATH: `${bin}:${process.env.PATH ?? ''}`,
    HOME: runner.path,
    CI: 'true',
    NO_COLOR: '1',
    RUNNER_TEMP: runner.path,
    GITHUB_OUTPUT: files.output,
    GITHUB_STEP_SUMMARY: files.summary,
    GITHUB_EVENT_PATH: files.event,
    INPUT_COMMAND: 'plan',
    INPUT_PATH: 'manifests',
    INPUT_ENV: '',
    INPUT_PLAN_FILE: 'gatehouse-plan.json',
    INPUT_PRUNE: 'false',
    INPUT_TARGETS: '',
    RUNNER_SECRET,
    ...env(),
    ...extraEnv,
  };
  try {
    const { code, log } = await new Promise<{ code: number | null; log: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [join(REPO_ROOT, 'action/main.mjs'), 'run'], { cwd: workspace, env: childEnv, stdio: 'pipe' });
      let log = '';
      child.stdout.on('data', (chunk: Buffer) => (log += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
      child.on('error', reject);
      child.on('close', (exit) => resolve({ code: exit, log }));
    });
    const outputs = Object.fromEntries(
      readFileSync(files.output, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
    const comment = outputs['comment-file'] ? readFileSync(outputs['comment-file'], 'utf8') : '';
    return { code, outputs, comment, summary: readFileSync(files.summary, 'utf8'), log };
  } finally {
    runner.cleanup();
  }
}

beforeAll(async () => {
  api = await serveWithClient(KEY, ['--no-reservation-check']);
  const base = tempDir('gatehouse-base-');
  write(base.path, BASE);
  const applied = await runCli(['apply', 'manifests', '--yes'], { cwd: base.path, env: env() });
  base.cleanup();
  if (applied.code !== 0) throw new Error(`apply failed:\n${applied.stdout}\n${applied.stderr}`);
});
afterAll(async () => {
  await api?.close();
});

describe("a hostile pull request, through the Action's plan step", () => {
  it('that tries to print the API key through every kind of field, hang CI with a policy and delete through a kind typo is refused whole: each attempt at its line, no key, nothing written', async () => {
    const before = await liveState();
    const pr = tempDir('gatehouse-pr-');
    write(pr.path, {
      // The key through every kind of field.
      'manifests/ip-policies.yaml': [
        'kind: IPPolicy',
        'name: office',
        'spec:',
        '  description: "key=${env:GATEHOUSE_API_KEY}"',
        '  metadata: "${env:GATEHOUSE_API_KEY}"',
        '  rules:',
        '    - {cidr: 10.0.0.0/8, action: allow, description: "${env:DEPLOY_TOKEN}"}',
        '---',
        // A kind typo: planned with --prune, IPPolicy/lab would have been deleted.
        'knd: IPPolicy',
        'name: lab',
        'spec:',
        '  description: lab',
        '',
      ].join('\n'),
      'manifests/backends.yaml': 'kind: Backend\nname: web\nspec:\n  type: tunnel_group\n  labels: {app: web, key: "${env:GATEHOUSE_API_KEY}"}\n',
      'manifests/edges.yaml': [
        'kind: HTTPSEdge',
        'name: api',
        'spec:',
        '  hostports: ["api.example.com:443"]',
        '  routes:',
        '    - match_type: path_prefix',
        '      match: /',
        '      backend: {backend: web}',
        '      request_headers: {add: {x-key: "${env:GATEHOUSE_API_KEY}"}}',
        '      traffic_policy:',
        '        value: \'{"on_http_request":[{"actions":[{"type":"add-headers","config":{"headers":{"x-key":"${env:GATEHOUSE_API_KEY}"}}}]}]}\'',
        '',
      ].join('\n'),
      // Another tool's file beside the manifests.
      'manifests/deployment.yaml': 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n',
      // A policy that would run 10^9 steps.
      'policies/hang.yaml': `- name: hang\n  kind: IPPolicy\n  require: "${'[1,2,3,4,5,6,7,8,9,10].all(a, '.repeat(9)}a > 0${')'.repeat(9)}"\n`,
    });
    const started = Date.now();
    // DEPLOY_TOKEN holds the same key under another name.
    const run = await planStep(pr.path, { DEPLOY_TOKEN: KEY });
    expect(Date.now() - started).toBeLessThan(60_000);

    expect(run.code, run.log).toBe(1);
    expect(run.outputs.exitcode).toBe('1');
    expect(run.comment).toContain('**`gatehouse validate` failed** (exit 1); nothing can be applied until it passes.');
    const problems = [...run.comment.matchAll(/^(\S+):(\d+):\d+: .*\[(\w+)\]$/gm)].map((m) => `${m[3]}@${m[1]}:${m[2]}`);
    expect(problems).toEqual(
      expect.arrayContaining([
        'env_credential@manifests/ip-policies.yaml:4',
        'env_credential@manifests/ip-policies.yaml:5',
        'env_credential@manifests/ip-policies.yaml:7',
        'unknown_kind@manifests/ip-policies.yaml:9',
        'env_credential@manifests/backends.yaml:5',
        'env_credential@manifests/edges.yaml:9',
        'env_credential@manifests/edges.yaml:11',
        'unknown_kind@manifests/deployment.yaml:2',
        'policy_expression@policies/hang.yaml:3',
      ]),
    );
    for (const text of [run.comment, run.summary, run.log]) {
      expect(text).not.toContain(KEY);
      expect(text).not.toContain(RUNNER_SECRET);
    }
    // Nothing written: no saved plan to apply, the live objects as they were.
    expect(existsSync(join(pr.path, 'gatehouse-plan.json'))).toBe(false);
    expect(run.outputs['plan-file']).toBeUndefined();
    expect(await liveState()).toBe(before);
    pr.cleanup();
  });

  it('that reads another secret of the runner is planned with it masked everywhere: the comment, the summary, the saved plan', async () => {
    const before = await liveState();
    const pr = tempDir('gatehouse-pr-');
    write(pr.path, {
      ...BASE,
      'manifests/ip-policies.yaml': BASE['manifests/ip-policies.yaml'].replace('description: office egress', 'description: "token ${env:RUNNER_SECRET}"'),
      'manifests/backends.yaml': 'kind: Backend\nname: web\nspec:\n  type: tunnel_group\n  labels: {app: web, token: "${env:RUNNER_SECRET}"}\n',
      'manifests/edges.yaml': [
        'kind: HTTPSEdge',
        'name: api',
        'spec:',
        '  hostports: ["api.example.com:443"]',
        '  routes:',
        '    - match_type: path_prefix',
        '      match: /',
        '      backend: {backend: web}',
        '      request_headers: {add: {x-token: "${env:RUNNER_SECRET}"}}',
        '      traffic_policy:',
        '        value: \'{"on_http_request":[{"actions":[{"type":"add-headers","config":{"headers":{"x-token":"${env:RUNNER_SECRET}"}}}]}]}\'',
        '',
      ].join('\n'),
      // A policy whose condition probes the value and whose message would print it.
      'policies/probe.yaml':
        '- name: probe\n  kind: IPPolicy\n  severity: warning\n  when: "policy.name == \'office\'"\n  require: "policy.description.contains(\'AKIA\')"\n  message: "description is {policy.description}"\n',
    });
    const run = await planStep(pr.path);
    // The step succeeds; plan's exit code 2 says there are changes.
    expect(run.code, run.log).toBe(0);
    expect(run.outputs).toMatchObject({ exitcode: '2', 'has-changes': 'true', 'plan-file': 'gatehouse-plan.json' });
    expect(run.comment).toContain('description: (sensitive: env RUNNER_SECRET, changed)');
    expect(run.comment).toContain('labels.token: (sensitive: env RUNNER_SECRET)');
    // The rule saw the mask, not the value: its probe fails and its message prints the mask.
    expect(run.comment).toContain('description is (sensitive: env RUNNER_SECRET)');
    const saved = readFileSync(join(pr.path, 'gatehouse-plan.json'), 'utf8');
    for (const text of [run.comment, run.summary, run.log, saved]) {
      expect(text).not.toContain(RUNNER_SECRET);
      expect(text).not.toContain(KEY);
    }
    expect(await liveState()).toBe(before);
    pr.cleanup();
  });
});
