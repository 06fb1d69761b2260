/**
 * `gatehouse export` (the built CLI) against a real `gatehouse serve` process after
 * `gatehouse apply` of examples/basic (every kind and route module): each object goes back to
 * the file its marker records, so the exported tree plans as no changes at all; secrets are
 * placeholders whose variables are listed; files export did not write are not replaced unless
 * asked; `--all` brings objects this stack does not own, ready to be adopted.
 */
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type GatehouseClient } from '@gatehouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_SECRETS } from './plan-fixtures.js';
import { REPO_ROOT, runCli, type tempDir, type ServeProcess } from './helpers/cli.js';
import { serveWithClient } from './helpers/served.js';

const KEY = 'export-e2e-key-0123456789abcdef';
const EXAMPLES = join(REPO_ROOT, 'examples/basic');
/** Which example secret each exported placeholder stands for, by the field holding it. */
const SECRET_BY_PATH: Record<string, string> = {
  'oidc.client_secret': EXAMPLE_SECRETS.OIDC_CLIENT_SECRET,
  'webhook_verification.secret': EXAMPLE_SECRETS.GITHUB_WEBHOOK_SECRET,
  'oauth.provider.github.client_secret': EXAMPLE_SECRETS.GITHUB_OAUTH_CLIENT_SECRET,
  // Write-only (never returned): the value to set is the one last sent, which the ownership
  // marker's digest checks (another one plans as a changed secret).
  'target.kinesis.auth.creds.aws_secret_access_key': EXAMPLE_SECRETS.AUDIT_STREAM_SECRET_KEY,
};
let server: ServeProcess;
let dir: ReturnType<typeof tempDir>;
let client: GatehouseClient;
let close: (() => Promise<void>) | undefined;

const env = (extra: Record<string, string> = {}) => ({ GATEHOUSE_API_URL: server.url, GATEHOUSE_API_KEY: KEY, ...extra });
/** Every file under `out`, relative to it, sorted. */
const filesUnder = (out: string) => (readdirSync(out, { recursive: true, encoding: 'utf8' }) as string[]).filter((f) => /\.ya?ml$/.test(f)).sort();
const readAll = (out: string) =>
  filesUnder(out)
    .map((f) => readFileSync(join(out, f), 'utf8'))
    .join('\n');
/** Where examples/basic's files are, as the markers record them (relative to this repository's root). */
const BASIC = 'examples/basic';

/** The variables listed at the end of an export run, with the value each stands for. */
function variables(stdout: string): Record<string, string> {
  const listed = [...stdout.matchAll(/^ {2}([A-Z_][A-Z0-9_]*) +\S+: (\S+)$/gm)];
  return Object.fromEntries(listed.map(([, variable, path]) => [variable!, SECRET_BY_PATH[path!] ?? 'unknown']));
}

beforeAll(async () => {
  ({ dir, server, client, close } = await serveWithClient(KEY));
  const applied = await runCli(['apply', EXAMPLES, '--yes'], { env: env(EXAMPLE_SECRETS) });
  if (applied.code !== 0) throw new Error(`apply failed:\n${applied.stdout}\n${applied.stderr}`);
});
afterAll(async () => {
  await close?.();
});

describe('gatehouse export', () => {
  it('round trip: each object goes back to the file it was applied from, and the export plans as no changes', async () => {
    const out = join(dir.path, 'exported');
    const result = await runCli(['export', '--out', out], { env: env() });
    expect(result.code, result.stderr).toBe(0);
    // The example's own files, at the paths their markers record (bot users by the stack's
    // registry: they carry no marker, and a plain export keeps them).
    const applied = readdirSync(EXAMPLES)
      .filter((f) => f.endsWith('.yaml'))
      .sort();
    expect(filesUnder(out)).toEqual(applied.map((f) => join(BASIC, f)));
    for (const file of applied) expect(result.stdout).toContain(`  ${join(out, BASIC, file)}  (`);
    expect(result.stdout).toMatch(/Exported \d+ objects of stack "default"/);

    const text = readAll(out);
    for (const secret of Object.values(EXAMPLE_SECRETS)) {
      expect(text).not.toContain(secret);
      expect(result.stdout).not.toContain(secret);
    }
    expect(text).not.toContain('gatehouse:v1');
    const listed = variables(result.stdout);
    // Every secret is listed, write-only ones too.
    for (const secret of Object.values(SECRET_BY_PATH)) expect(Object.values(listed)).toContain(secret);
    for (const variable of Object.keys(listed)) expect(text).toContain(`\${env:${variable}}`);

    // Every marker records the path its object now has: nothing to write, not even a marker.
    const plan = await runCli(['plan', out, '--format', 'json', '--detailed-exitcode'], { env: env(listed) });
    expect(plan.code, plan.stderr).toBe(0);
    expect(JSON.parse(plan.stdout).changes).toEqual([]);
    const drift = await runCli(['drift', out], { env: env(listed) });
    expect(drift.code, drift.stdout + drift.stderr).toBe(0);
  });

  it('to standard output: one stream, and one summary line for it on stderr', async () => {
    const result = await runCli(['export', '--out', '-'], { env: env() });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('kind: IPPolicy');
    const lines = result.stderr.split('\n').filter((l) => l.includes('standard output'));
    expect(lines).toEqual([
      expect.stringMatching(/^Exported \d+ objects of stack "default" .*to standard output:$/),
      expect.stringMatching(/^ {2}standard output {2}\(\d+ IPPolicy, \d+ IPRestriction, .* manifests\)$/),
    ]);
  });

  it('writes references by name and leaves server defaults out', async () => {
    const out = join(dir.path, 'exported');
    const text = readAll(out);
    expect(text).toMatch(/ip_policies:\n\s+- blocklist\n\s+- office\n\s+- vpn/);
    expect(text).not.toMatch(/: null$/m);
    // (a static address backend's `tls: {enabled: true}` is a choice, not the default)
    expect(text.replace(/tls:\n\s+enabled: true/g, '')).not.toContain('enabled: true');
    expect(text).not.toContain('request_signing_certificate_pem');
  });

  it('never replaces a file it did not write, unless asked; its own files it replaces', async () => {
    const out = join(dir.path, 'mine');
    mkdirSync(out);
    mkdirSync(join(out, BASIC), { recursive: true });
    const policies = join(out, BASIC, 'ip-policies.yaml');
    writeFileSync(policies, 'kind: IPPolicy\nname: hand-written\nspec: {}\n');
    const refused = await runCli(['export', '--out', out], { env: env() });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('refusing to replace files that gatehouse export did not write');
    expect(readFileSync(policies, 'utf8')).toContain('hand-written');
    expect(existsSync(join(out, BASIC, 'backends.yaml'))).toBe(false);

    const forced = await runCli(['export', '--out', out, '--overwrite'], { env: env() });
    expect(forced.code, forced.stderr).toBe(0);
    expect(readFileSync(policies, 'utf8')).not.toContain('hand-written');
    const again = await runCli(['export', '--out', out], { env: env() });
    expect(again.code, again.stderr).toBe(0);
    expect((readdirSync(out, { recursive: true, encoding: 'utf8' }) as string[]).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('with --all: objects this stack does not own too, adopted by the next apply', async () => {
    const policy = await client.ipPolicies.create({ description: 'Made by hand', metadata: 'ticket-42' });
    const out = join(dir.path, 'all');
    const result = await runCli(['export', '--all', '--out', out], { env: env() });
    expect(result.code, result.stderr).toBe(0);
    // Not the stack's: no recorded path, so the file of its kind, beside the stack's own files.
    const policies = readFileSync(join(out, 'ip-policies.yaml'), 'utf8');
    expect(policies).toContain(`name: made-by-hand\nadopt: ${policy.id}\nspec:\n  description: Made by hand\n  metadata: ticket-42`);
    expect(readFileSync(join(out, BASIC, 'bot-users.yaml'), 'utf8')).toContain('name: deploy-bot');

    const plan = await runCli(['plan', out, '--format', 'json'], { env: env(variables(result.stdout)) });
    expect(plan.code, plan.stderr).toBe(0);
    const json = JSON.parse(plan.stdout);
    expect(json.changes.map((c: { address: string; action: string; fields: unknown[] }) => [c.address, c.action, c.fields])).toEqual([
      ['IPPolicy/made-by-hand', 'update', []],
    ]);
    const applied = await runCli(['apply', out, '--yes'], { env: env(variables(result.stdout)) });
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    const adopted = await client.ipPolicies.get(policy.id);
    expect(adopted.metadata).toMatch(/^ticket-42\ngatehouse:v1 /);
  });

  it('into a directory under a repository root, takes the recorded paths under it without its prefix', async () => {
    const repo = join(dir.path, 'repo');
    mkdirSync(join(repo, '.git'), { recursive: true });
    mkdirSync(join(repo, 'manifests', 'access'), { recursive: true });
    writeFileSync(
      join(repo, 'manifests', 'access', 'policies.yaml'),
      'kind: IPPolicy\nname: partners\nspec:\n  rules: [{cidr: 198.51.100.0/24, action: allow}]\n',
    );
    const stack = ['--stack', 'subdirectory'];
    const applied = await runCli(['apply', join(repo, 'manifests'), '--yes', ...stack], { env: env() });
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    rmSync(join(repo, 'manifests'), { recursive: true });
    const result = await runCli(['export', '--out', join(repo, 'manifests'), ...stack], { env: env() });
    expect(result.code, result.stderr).toBe(0);
    expect(filesUnder(join(repo, 'manifests'))).toEqual([join('access', 'policies.yaml')]);
    const plan = await runCli(['plan', join(repo, 'manifests'), '--detailed-exitcode', ...stack], { env: env() });
    expect([plan.code, plan.stdout]).toEqual([0, expect.stringContaining('No changes.')]);
  });

  it('exits 1 when the API cannot be reached', async () => {
    const result = await runCli(['export', '--out', join(dir.path, 'never')], { env: env({ GATEHOUSE_API_URL: 'http://127.0.0.1:9' }) });
    expect(result.code).toBe(1);
    expect(result.stderr + result.stdout).not.toContain(KEY);
    expect(existsSync(join(dir.path, 'never'))).toBe(false);
  });
});
