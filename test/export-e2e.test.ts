/**
 * `gatehouse export` (the built CLI) against a real `gatehouse serve` process after
 * `gatehouse apply` of examples/basic (every kind and route module): the exported manifests
 * plan as no changes; secrets are placeholders whose variables are listed; files export did
 * not write are not replaced unless asked; `--all` brings objects this stack does not own,
 * ready to be adopted.
 */
import { existsSync, readFileSync, readdirSync, writeFileSync, mkdirSync } from 'node:fs';
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
};
let server: ServeProcess;
let dir: ReturnType<typeof tempDir>;
let client: GatehouseClient;
let close: (() => Promise<void>) | undefined;

const env = (extra: Record<string, string> = {}) => ({ GATEHOUSE_API_URL: server.url, GATEHOUSE_API_KEY: KEY, ...extra });
const readAll = (out: string) => readdirSync(out).sort().map((f) => readFileSync(join(out, f), 'utf8')).join('\n');

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
  it('round trip: the exported manifests plan as no changes', async () => {
    const out = join(dir.path, 'exported');
    const result = await runCli(['export', '--out', out], { env: env() });
    expect(result.code, result.stderr).toBe(0);
    // One file per kind the examples declare; bot users too, though they carry no marker
    // (a plain export keeps them, so that the round trip does not drop them).
    expect(readdirSync(out).sort()).toEqual([
      'backends.yaml', 'bot-users.yaml', 'certificate-authorities.yaml', 'event-destinations.yaml', 'event-subscriptions.yaml',
      'https-edges.yaml', 'ip-policies.yaml', 'ip-restrictions.yaml', 'reserved-domains.yaml', 'reserved-tcp-addresses.yaml',
      'tcp-edges.yaml', 'tls-edges.yaml',
    ]);
    expect(result.stdout).toMatch(/Exported \d+ objects of stack "default"/);

    const text = readAll(out);
    for (const secret of Object.values(EXAMPLE_SECRETS)) {
      expect(text).not.toContain(secret);
      expect(result.stdout).not.toContain(secret);
    }
    expect(text).not.toContain('gatehouse:v1');
    const listed = variables(result.stdout);
    // Every readable secret is listed; the others are write-only (the API never returns them).
    for (const secret of Object.values(SECRET_BY_PATH)) expect(Object.values(listed)).toContain(secret);
    for (const variable of Object.keys(listed)) expect(text).toContain(`\${env:${variable}}`);

    // The exported files are new files: each object's marker is refreshed to record the file it
    // is now applied from (the prune scope), and nothing else differs.
    const plan = await runCli(['plan', out, '--format', 'json'], { env: env(listed) });
    expect(plan.code, plan.stderr).toBe(0);
    const changes = JSON.parse(plan.stdout).changes as { cause?: string; reason?: string; fields: unknown[] }[];
    expect(changes.length).toBeGreaterThan(0);
    for (const change of changes) {
      // The bot user registry records its bot users' manifest paths the same way.
      if (change.cause === 'registry') expect(change.reason).toMatch(/manages: records the manifest path of "[^"]+"(, "[^"]+")*$/);
      else expect(change).toMatchObject({ cause: 'marker', fields: [], reason: expect.stringMatching(/^ownership marker refresh: records the manifest path \S+\.yaml$/) });
    }
    expect((await runCli(['apply', out, '--yes'], { env: env(listed) })).code).toBe(0);
    const again = await runCli(['plan', out, '--detailed-exitcode'], { env: env(listed) });
    expect(again.stdout + again.stderr).toContain('No changes.');
    expect(again.code).toBe(0);
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
    writeFileSync(join(out, 'ip-policies.yaml'), 'kind: IPPolicy\nname: hand-written\nspec: {}\n');
    const refused = await runCli(['export', '--out', out], { env: env() });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('refusing to replace files that gatehouse export did not write');
    expect(readFileSync(join(out, 'ip-policies.yaml'), 'utf8')).toContain('hand-written');
    expect(existsSync(join(out, 'backends.yaml'))).toBe(false);

    const forced = await runCli(['export', '--out', out, '--overwrite'], { env: env() });
    expect(forced.code, forced.stderr).toBe(0);
    expect(readFileSync(join(out, 'ip-policies.yaml'), 'utf8')).not.toContain('hand-written');
    const again = await runCli(['export', '--out', out], { env: env() });
    expect(again.code, again.stderr).toBe(0);
    expect(readdirSync(out).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('with --all: objects this stack does not own too, adopted by the next apply', async () => {
    const policy = await client.ipPolicies.create({ description: 'Made by hand', metadata: 'ticket-42' });
    const out = join(dir.path, 'all');
    const result = await runCli(['export', '--all', '--out', out], { env: env() });
    expect(result.code, result.stderr).toBe(0);
    const policies = readFileSync(join(out, 'ip-policies.yaml'), 'utf8');
    expect(policies).toContain(`name: made-by-hand\nadopt: ${policy.id}\nspec:\n  description: Made by hand\n  metadata: ticket-42`);
    expect(readFileSync(join(out, 'bot-users.yaml'), 'utf8')).toContain('name: deploy-bot');

    const plan = await runCli(['plan', out, '--format', 'json'], { env: env(variables(result.stdout)) });
    expect(plan.code, plan.stderr).toBe(0);
    const json = JSON.parse(plan.stdout);
    expect(json.changes.filter((c: { cause?: string }) => c.cause !== 'marker' && c.cause !== 'registry').map((c: { address: string; action: string; fields: unknown[] }) => [c.address, c.action, c.fields])).toEqual([
      ['IPPolicy/made-by-hand', 'update', []],
    ]);
    const applied = await runCli(['apply', out, '--yes'], { env: env(variables(result.stdout)) });
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    const adopted = await client.ipPolicies.get(policy.id);
    expect(adopted.metadata).toMatch(/^ticket-42\ngatehouse:v1 /);
  });

  it('exits 1 when the API cannot be reached', async () => {
    const result = await runCli(['export', '--out', join(dir.path, 'never')], { env: env({ GATEHOUSE_API_URL: 'http://127.0.0.1:9' }) });
    expect(result.code).toBe(1);
    expect(result.stderr + result.stdout).not.toContain(KEY);
    expect(existsSync(join(dir.path, 'never'))).toBe(false);
  });
});
