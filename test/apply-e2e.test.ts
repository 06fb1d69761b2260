/**
 * `gatehouse apply` (the built CLI) against a real `gatehouse serve` process, on a copy of
 * examples/basic (every kind, backend type and route module): refuses without a terminal and
 * without --yes; applies from empty; plan right after says no changes; an edit re-applies;
 * deletes only with --prune; a stale saved plan is refused change by change and a plan whose
 * manifests changed is refused whole; prevent_destroy and the delete threshold hold.
 * The tests run in order on one server, each starting from the state the previous one left.
 */
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type GatehouseClient, collect } from '@gatehouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_SECRETS, readManifests } from './plan-fixtures.js';
import { REPO_ROOT, runCli, type tempDir, type ServeProcess, besideUsage } from './helpers/cli.js';
import { serveWithClient } from './helpers/served.js';

const KEY = 'apply-e2e-key-0123456789abcdef';
let server: ServeProcess;
let dir: ReturnType<typeof tempDir>;
let repo: string;
let client: GatehouseClient;
let close: (() => Promise<void>) | undefined;
/** API objects the examples declare: manifests plus their inline rules and routes. */
let declared: number;

beforeAll(async () => {
  ({ dir, server, client, close } = await serveWithClient(KEY));
  repo = join(dir.path, 'manifests');
  cpSync(join(REPO_ROOT, 'examples/basic'), repo, { recursive: true });
  const manifests = readManifests(repo);
  declared = manifests.length + manifests.reduce((n, m) => n + (m.spec.rules?.length ?? 0) + (m.spec.routes?.length ?? 0), 0);
});
afterAll(async () => {
  await close?.();
});

const env = () => ({ ...EXAMPLE_SECRETS, GATEHOUSE_API_URL: server.url, GATEHOUSE_API_KEY: KEY });
const apply = (...args: string[]) => runCli(['apply', repo, ...args], { env: env() });
async function applyJson(...args: string[]) {
  const result = await runCli(['apply', repo, '--yes', '--format', 'json', ...args], { env: env() });
  return { result, json: result.stdout ? JSON.parse(result.stdout) : undefined };
}
async function planJson(...args: string[]) {
  const result = await runCli(['plan', repo, '--format', 'json', ...args], { env: env() });
  expect(besideUsage(result.stderr)).toBe('');
  return JSON.parse(result.stdout);
}
const edit = (file: string, from: string, to: string) => {
  const path = join(repo, file);
  const text = readFileSync(path, 'utf8');
  expect(text).toContain(from);
  writeFileSync(path, text.replace(from, to));
};
/** The IP policies of the manifests: the stack's bot user registry (an IP policy's metadata) left out. */
const policies = async () => (await collect(client.ipPolicies.list())).filter((p) => !String(p.metadata ?? '').startsWith('gatehouse-bots:'));

// Each test runs the built CLI several times (node start-up each), slow on a busy machine.
describe('gatehouse apply', { timeout: 180_000 }, () => {
  it('refuses without a terminal and without --yes, writing nothing', async () => {
    const result = await apply();
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('pass --yes');
    expect(await policies()).toEqual([]);
  });

  it('applies the examples from empty: every kind and module, one line per step', async () => {
    const result = await apply('--yes');
    expect(besideUsage(result.stderr)).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n').filter((l) => /^(done|failed|skipped)\s/.test(l));
    // Every declared object, and the stack's bot user registry that records the bot users.
    expect(lines).toHaveLength(declared + 1);
    // (the registry's line ends with why it is written)
    expect(lines.filter((l) => !/^done\s+create\s+\S+\s+\S+_\S+\s+\d+ ms$/.test(l))).toEqual([
      expect.stringMatching(/^done\s+create\s+BotUserRegistry\/default\s+ipp_\S+\s+\d+ ms \(records which bot users stack "default" manages: .*\)$/),
    ]);
    expect(result.stdout).toContain(`Apply complete: ${declared + 1} done`);
    expect(await policies()).toHaveLength(3);
    // --yes: the plan as one line per kind, not every change with its fields.
    expect(result.stdout).toMatch(/^ {2}IPPolicy +\+ 3 to create$/m);
    expect(result.stdout).toContain(`Plan: ${declared + 1} to create, 0 to update`);
    expect(result.stdout).not.toMatch(/^ {2}\+ {3}IPPolicy /m);
  });

  it('prints the full plan with --yes --show-plan', async () => {
    edit('ip-policies.yaml', 'description: Corporate VPN exit nodes', 'description: VPN exits (shown)');
    const result = await apply('--yes', '--show-plan');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^ {2}~ {3}IPPolicy \S+/m);
    expect(result.stdout).toContain('VPN exits (shown)');
    edit('ip-policies.yaml', 'description: VPN exits (shown)', 'description: Corporate VPN exit nodes');
    expect((await apply('--yes')).code).toBe(0);
  });

  it('leaves nothing to change: plan says no changes for every kind and module', async () => {
    const plan = await planJson('--detailed-exitcode');
    expect(plan.changes, JSON.stringify(plan.changes, null, 2)).toEqual([]);
    expect(plan.summary).toEqual({ create: 0, update: 0, delete: 0, replace: 0, unchanged: declared });
    expect(plan.unmanaged).toEqual([]);
    const { result, json } = await applyJson();
    expect(result.code).toBe(0);
    expect(json).toMatchObject({ ok: true, steps: [], summary: { done: 0, failed: 0, skipped: 0 } });
  });

  it('applies an edit (update, create, module change) and plans no changes after', async () => {
    edit('ip-policies.yaml', 'description: Office egress addresses', 'description: Office egress (v2)');
    edit('ip-policies.yaml', '    - cidr: 203.0.113.0/24', '    - cidr: 203.0.114.0/24\n      action: deny\n    - cidr: 203.0.113.0/24');
    edit('ip-restrictions.yaml', 'enforced: false', 'enforced: true');
    edit('https-edges.yaml', 'X-Frame-Options: DENY', 'X-Frame-Options: SAMEORIGIN');
    const { result, json } = await applyJson();
    expect(result.code).toBe(0);
    expect(json.steps.map((s: { address: string; action: string }) => `${s.action} ${s.address}`).sort()).toEqual([
      'create IPPolicyRule/office/203.0.114.0/24',
      'update HTTPSEdgeRoute/api//',
      'update IPPolicy/office',
      'update IPRestriction/api',
    ]);
    expect((await planJson()).changes).toEqual([]);
  });

  it('replaces a referenced backend create-first: referrers are re-pointed before the old one goes', async () => {
    const old = (await collect(client.backends.tunnelGroup.list())).find((b) => b.labels.app === 'web')!;
    edit(
      'backends.yaml',
      'type: tunnel_group\n  description: Web frontends in both regions\n  labels:\n    app: web',
      'type: http_response\n  description: Web frontends in both regions\n  status_code: 200\n  body: hello',
    );
    const { result, json } = await applyJson();
    expect(result.code, result.stderr).toBe(0);
    const replaced = json.steps.find((s: { address: string }) => s.address === 'Backend/web');
    expect(replaced).toMatchObject({ action: 'replace', status: 'done' });
    expect(replaced.id).toMatch(/^bkdhr_/);
    // Every object that referenced the old backend now references the new one.
    const failover = (await collect(client.backends.failover.list()))[0]!;
    expect(failover.backends).toContain(replaced.id);
    expect(JSON.stringify(await collect(client.backends.failover.list()))).not.toContain(old.id);
    expect(await client.backends.tunnelGroup.get(old.id).catch((e: { status: number }) => e.status)).toBe(404);
    expect((await planJson()).changes).toEqual([]);
  });

  it('deletes only with --prune, and reports the deletes it did not do', async () => {
    rmSync(join(repo, 'tcp-edges.yaml'));
    const without = await applyJson();
    expect(without.result.code).toBe(0);
    expect(without.json.not_pruned).toEqual([expect.objectContaining({ address: 'TCPEdge/ssh' })]);
    expect(await collect(client.tcpEdges.list())).toHaveLength(1);
    const text = await apply('--yes');
    expect(text.stdout).toContain('1 delete was not done (pass --prune to delete): TCPEdge/ssh');
    // The plan shows it as such, and counts it apart from the deletes that run.
    const shown = await runCli(['plan', repo, '--detailed-exitcode'], { env: env() });
    expect(shown.code).toBe(2);
    expect(shown.stdout).toMatch(/- +TCPEdge ssh .*# would be deleted with --prune/);
    expect(shown.stdout).toContain('0 to delete, 1 would be deleted with --prune');

    const pruned = await applyJson('--prune');
    expect(pruned.result.code).toBe(0);
    expect(pruned.json.steps).toEqual([expect.objectContaining({ address: 'TCPEdge/ssh', action: 'delete', status: 'done' })]);
    expect(await collect(client.tcpEdges.list())).toEqual([]);
    expect((await planJson()).changes).toEqual([]);
  });

  it('refuses the stale change of a saved plan, naming it, and applies the rest', async () => {
    edit('ip-restrictions.yaml', 'description: Dashboard only from the office and the VPN', 'description: Dashboard (reviewed)');
    edit('ip-policies.yaml', 'description: Corporate VPN exit nodes', 'description: VPN exits (reviewed)');
    const planFile = join(dir.path, 'plan.json');
    const planned = await runCli(['plan', repo, '--out', planFile], { env: env() });
    expect(planned.code).toBe(0);
    expect(JSON.parse(readFileSync(planFile, 'utf8')).manifest_paths).toEqual([repo]);

    const dashboard = (await collect(client.ipRestrictions.list())).find((r) => r.type === 'dashboard')!;
    await client.ipRestrictions.update(dashboard.id, { enforced: false });
    const result = await runCli(['apply', '--plan', planFile, '--yes', '--format', 'json'], { env: env() });
    expect(result.code).toBe(1);
    const json = JSON.parse(result.stdout);
    expect(json.steps).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          address: 'IPRestriction/dashboard',
          status: 'failed',
          reason: { code: 'stale_object', message: expect.stringContaining('IPRestriction/dashboard is stale') },
        }),
        expect.objectContaining({ address: 'IPPolicy/vpn', status: 'done' }),
      ]),
    );
    const after = await client.ipRestrictions.get(dashboard.id);
    expect(after).toMatchObject({ enforced: false, description: 'Dashboard only from the office and the VPN' });
    // The summary says what the failed line says: plan again (this plan stops there every time).
    const again = await runCli(['apply', '--plan', planFile, '--yes'], { env: env() });
    expect(again.code).toBe(1);
    expect(again.stdout).toContain('A change of the saved plan is stale: run gatehouse plan again, review the new plan and apply that one');
    expect(again.stdout).not.toContain('continues where');
  });

  it('refuses a saved plan whole when the manifests changed since it was made', async () => {
    const planFile = join(dir.path, 'plan2.json');
    expect((await runCli(['plan', repo, '--out', planFile], { env: env() })).code).toBe(0);
    edit('ip-restrictions.yaml', 'description: Dashboard (reviewed)', 'description: Dashboard (edited after review)');
    const result = await runCli(['apply', '--plan', planFile, '--yes'], { env: env() });
    expect(result.code).toBe(1);
    // The file that changed is named.
    expect(result.stderr).toContain(
      `refused: ${join(repo, 'ip-restrictions.yaml')} changed since the saved plan was made; run gatehouse plan again and review the new plan [stale_manifests]`,
    );
    expect(result.stderr).toContain('nothing was written');
    const dashboard = (await collect(client.ipRestrictions.list())).find((r) => r.type === 'dashboard')!;
    expect(dashboard.description).toBe('Dashboard only from the office and the VPN');
    expect((await apply('--yes')).code).toBe(0);
  });

  it('applies a saved plan after an edit that changes no document (a comment, a reformatting)', async () => {
    const planFile = join(dir.path, 'plan3.json');
    edit('ip-restrictions.yaml', 'description: Dashboard (edited after review)', 'description: Dashboard (reviewed twice)');
    expect((await runCli(['plan', repo, '--out', planFile], { env: env() })).code).toBe(0);
    const file = join(repo, 'ip-restrictions.yaml');
    writeFileSync(file, `# Reviewed in the pull request.\n${readFileSync(file, 'utf8').replace(/\n/g, '\n\n')}`);
    const result = await runCli(['apply', '--plan', planFile, '--yes'], { env: env() });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stderr).not.toContain('stale');
  });

  it('refuses a saved plan applied under another stack with stale_plan_stack alone, writing nothing', async () => {
    const planFile = join(dir.path, 'plan4.json');
    edit('ip-restrictions.yaml', 'description: Dashboard (reviewed twice)', 'description: Dashboard (for another stack)');
    expect((await runCli(['plan', repo, '--out', planFile], { env: env() })).code).toBe(0);
    const result = await runCli(['apply', '--plan', planFile, '--yes', '--stack', 'team-b'], { env: env() });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('refused: the saved plan is for stack "default", not "team-b"; pass --stack default or plan again [stale_plan_stack]');
    expect(result.stderr).not.toContain('owned_by_other_stack');
    expect(result.stderr.match(/^refused: /gm)).toHaveLength(1);
    expect((await apply('--yes')).code).toBe(0);
  });

  it('honours prevent_destroy, also after the manifest is removed', async () => {
    const keep = 'kind: IPPolicy\nname: keep\nlifecycle: {prevent_destroy: PD}\nspec:\n  rules: [{cidr: 10.9.0.0/16, action: allow}]\n';
    writeFileSync(join(repo, 'keep.yaml'), keep.replace('PD', 'true'));
    expect((await apply('--yes')).code).toBe(0);
    rmSync(join(repo, 'keep.yaml'));
    const refused = await apply('--yes', '--prune');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('IPPolicy/keep was applied with lifecycle.prevent_destroy');
    expect(refused.stderr).toContain('[prevent_destroy]');
    expect((await policies()).length).toBe(4);
    // Lifting it is an apply of prevent_destroy: false (it rewrites the marker); then it can go.
    writeFileSync(join(repo, 'keep.yaml'), keep.replace('PD', 'false'));
    expect((await apply('--yes')).code).toBe(0);
    rmSync(join(repo, 'keep.yaml'));
    expect((await apply('--yes', '--prune')).code).toBe(0);
    expect((await policies()).length).toBe(3);
  });

  it('plans adding prevent_destroy as the marker write apply makes (exit 2), and nothing after it', async () => {
    const pd = 'kind: IPPolicy\nname: pd\nlifecycle: {prevent_destroy: PD}\nspec: {description: pd}\n';
    writeFileSync(join(repo, 'pd.yaml'), pd.replace('PD', 'false'));
    expect((await apply('--yes')).code).toBe(0);
    writeFileSync(join(repo, 'pd.yaml'), pd.replace('PD', 'true'));
    const planned = await runCli(['plan', repo, '--detailed-exitcode'], { env: env() });
    expect(planned.code).toBe(2);
    expect(planned.stdout).toMatch(/~ +IPPolicy pd .*# ownership marker refresh: records lifecycle\.prevent_destroy: true/);
    const applied = await applyJson();
    expect(applied.json.steps).toEqual([expect.objectContaining({ address: 'IPPolicy/pd', action: 'update', status: 'done', requests: 1 })]);
    expect((await runCli(['plan', repo, '--detailed-exitcode'], { env: env() })).code).toBe(0);
    writeFileSync(join(repo, 'pd.yaml'), pd.replace('PD', 'false'));
    expect((await apply('--yes')).code).toBe(0);
    rmSync(join(repo, 'pd.yaml'));
    expect((await apply('--yes', '--prune')).code).toBe(0);
  });

  it("needs --force to delete more than 30% of the stack's objects", async () => {
    // Keep only the bot users (which are never deleted): everything else the stack owns goes.
    const bots = readFileSync(join(repo, 'bot-users.yaml'), 'utf8');
    rmSync(repo, { recursive: true });
    mkdirSync(repo);
    writeFileSync(join(repo, 'bot-users.yaml'), bots);
    const edges = (await collect(client.httpsEdges.list())).length;
    expect(edges).toBeGreaterThan(0);
    const refused = await apply('--yes', '--prune');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('[delete_threshold]');
    expect(refused.stderr).toContain('--force');
    expect(await collect(client.httpsEdges.list())).toHaveLength(edges);
    const forced = await applyJson('--prune', '--force');
    expect(forced.result.code, forced.result.stdout + forced.result.stderr).toBe(0);
    expect(forced.json.summary.done).toBeGreaterThan(10);
    expect(await collect(client.httpsEdges.list())).toEqual([]);
    expect(await policies()).toEqual([]);
    expect((await planJson()).changes).toEqual([]);
  });
});
