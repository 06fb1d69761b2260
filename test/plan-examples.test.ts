/**
 * `gatehouse plan` (the built CLI) on examples/basic against a fresh `gatehouse serve`
 * process: every declared object is a create, in all three formats, each naming the target on
 * its first line; --detailed-exitcode, --out, connection variables, the embedded default, and
 * the request budget of an empty account.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_SECRETS, readManifests } from './plan-fixtures.js';
import { REPO_ROOT, runCli, startServe, tempDir, type ServeProcess, besideUsage } from './helpers/cli.js';

const KEY = 'plan-examples-key-0123456789';
const EXAMPLES = join(REPO_ROOT, 'examples/basic');
let server: ServeProcess;
let dir: ReturnType<typeof tempDir>;

beforeAll(async () => {
  dir = tempDir();
  server = await startServe(['--port', '0', '--db', join(dir.path, 'server.db'), '--api-key', KEY]);
});
afterAll(async () => {
  await server?.stop();
  dir?.cleanup();
});

const connection = () => ({ ...EXAMPLE_SECRETS, GATEHOUSE_API_URL: server.url, GATEHOUSE_API_KEY: KEY });
const plan = (args: string[], env: Record<string, string> = connection()) => runCli(['plan', 'examples/basic', ...args], { env });

/** `Kind/name` of every top-level manifest of the examples. */
const declared = () => readManifests(EXAMPLES).map((m) => `${m.kind}/${m.name}`);

describe('gatehouse plan against a fresh server', () => {
  it('json: every declared object, rule and route is a create', async () => {
    const result = await plan(['--format', 'json']);
    expect(besideUsage(result.stderr)).toBe('');
    expect(result.code).toBe(0);
    const json = JSON.parse(result.stdout);
    expect(json.format_version).toBe(1);
    expect(json.target).toEqual({ url: server.url, embedded: false });
    expect(json.stack).toBe('default');
    const addresses: string[] = json.changes.map((c: { address: string }) => c.address);
    for (const address of declared()) expect(addresses).toContain(address);
    const manifests = readManifests(EXAMPLES);
    const rules = manifests.filter((m) => m.kind === 'IPPolicy').flatMap((m) => m.spec.rules ?? []).length;
    const routes = manifests.filter((m) => m.kind === 'HTTPSEdge').flatMap((m) => m.spec.routes ?? []).length;
    // ...and the stack's bot user registry (bot-registry/registry.ts), made with the bot users.
    expect(json.changes).toHaveLength(declared().length + rules + routes + 1);
    expect(json.changes.filter((c: { cause?: string }) => c.cause === 'registry').map((c: { address: string }) => c.address)).toEqual([
      'BotUserRegistry/default',
    ]);
    expect(new Set(json.changes.map((c: { action: string }) => c.action))).toEqual(new Set(['create']));
    expect(json.summary).toMatchObject({ create: json.changes.length, update: 0, delete: 0, replace: 0, unchanged: 0 });
    // Secrets are masked in every change.
    for (const secret of Object.values(EXAMPLE_SECRETS)) expect(result.stdout).not.toContain(secret);
    expect(result.stdout).toContain('(sensitive: env OIDC_CLIENT_SECRET)');
    // An empty account costs one list request per collection: no request per object.
    expect(json.requests).toBeGreaterThan(0);
    expect(json.requests).toBeLessThanOrEqual(20);
  });

  it('text: Terraform-like, target on the first line, a summary line, no colour when piped', async () => {
    const result = await plan([]);
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toContain(server.url);
    expect(lines[0]).toContain('stack "default"');
    expect(result.stdout).toMatch(/^ {2}\+ +IPPolicy office$/m);
    expect(result.stdout).toMatch(/^ {2}\+ +HTTPSEdge api$/m);
    expect(result.stdout).toMatch(/client_secret: \(sensitive: env [A-Z_]+\)/);
    expect(result.stdout).toMatch(/^Plan: \d+ to create, 0 to update, 0 to replace, 0 to delete, 0 unchanged\.$/m);
    expect(result.stdout).not.toMatch(/\u001b\[/);
  });

  it('text: colour when asked for (FORCE_COLOR stands in for a terminal), none with NO_COLOR', async () => {
    const coloured = await plan([], { ...connection(), NO_COLOR: '', FORCE_COLOR: '1' });
    expect(coloured.stdout).toMatch(/\u001b\[32m\+ +IPPolicy office/);
    const plain = await plan([], { ...connection(), NO_COLOR: '1', FORCE_COLOR: '1' });
    expect(plain.stdout).not.toMatch(/\u001b\[/);
  });

  it('markdown: target first, a summary table and one collapsible section per change', async () => {
    const [md, json] = await Promise.all([plan(['--format', 'markdown']), plan(['--format', 'json'])]);
    expect(md.code).toBe(0);
    expect(md.stdout.split('\n')[0]).toContain(server.url);
    const count = JSON.parse(json.stdout).changes.length;
    expect(md.stdout).toContain(`| \`+\` create | ${count} |`);
    expect(md.stdout.match(/<details>/g)).toHaveLength(count);
    expect(md.stdout.length).toBeLessThan(65_000);
  });

  it('--detailed-exitcode exits 2 with changes; --out saves the JSON plan', async () => {
    const out = join(dir.path, 'nested', 'plan.json');
    const result = await plan(['--detailed-exitcode', '--out', out, '--format', 'json']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`Saved the plan to ${out}`);
    const saved = JSON.parse(readFileSync(out, 'utf8'));
    expect(saved).toEqual(JSON.parse(result.stdout));
    expect(saved.manifest_checksum).toMatch(/\S/);
  });

  it('takes the connection from flags as well as the environment, and never prints the key', async () => {
    const result = await runCli(['plan', 'examples/basic', '--api-url', server.url, '--api-key', KEY, '--stack', 'team-a'], { env: EXAMPLE_SECRETS });
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n')[0]).toContain('stack "team-a"');
    expect(result.stdout + result.stderr).not.toContain(KEY);
  });

  it('fails with exit 1 and a clear message on a wrong key', async () => {
    const result = await plan([], { ...connection(), GATEHOUSE_API_KEY: 'wrong-key-0123456789' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/401/);
    expect(result.stderr).not.toContain('wrong-key-0123456789');
  });

  it('exits 1, never 2, on a usage mistake (2 means "changes" to CI jobs)', async () => {
    for (const args of [['--format', 'yaml'], ['--bogus'], ['--detailed-exitcode', '--format']]) {
      const result = await plan(args);
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stdout).toBe('');
    }
  });

  it('fails with exit 1 when the API cannot be reached', async () => {
    const result = await plan([], { ...connection(), GATEHOUSE_API_URL: 'http://127.0.0.1:1' });
    expect(result.code).toBe(1);
    // oclif wraps long error lines, so the code may be on the next line.
    expect(result.stderr).toMatch(/the API failed: [\s\S]*connection_refused/);
    expect(result.stdout).toBe('');
  });

  it('fails with exit 1 and every problem when the manifests are broken, before any request', async () => {
    const result = await runCli(['plan', 'examples/broken'], { env: connection() });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^examples\/broken\/ip-policies\.yaml:\d+:\d+: .*\[unknown_field\]$/m);
    expect(result.stdout).toBe('');
  });
});

describe('gatehouse plan with no API URL outside CI: the embedded default', () => {
  it('plans against the reference server in-process over .gatehouse/server.db', async () => {
    const cwd = tempDir();
    try {
      // CI="" is "not in CI" (test/target-e2e.test.ts covers CI set).
      const result = await runCli(['plan', EXAMPLES, '--detailed-exitcode'], { env: { ...EXAMPLE_SECRETS, CI: '' }, cwd: cwd.path });
      expect(result.code, result.stderr).toBe(2);
      expect(result.stdout.split('\n')[0]).toMatch(/^gatehouse plan for http:\/\/127\.0\.0\.1:\d+ \(embedded reference server, \.gatehouse\/server\.db\)/);
      expect(existsSync(join(cwd.path, '.gatehouse', 'server.db'))).toBe(true);
    } finally {
      cwd.cleanup();
    }
  });
});
