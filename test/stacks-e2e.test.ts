/**
 * Stacks do not collide (issue 8, point 5) against a real `gatehouse serve`, with the built CLI:
 * the same manifests applied as `default` and then planned or applied as `platform` fail with
 * one problem per top-level object and create nothing; one object moves between stacks with
 * `adopt:` and `--from-stack`; a whole stack is renamed with `--from-stack`; both stacks replan
 * empty afterwards, and the old stack's plan and drift name the new owner instead of planning a
 * create or calling the object "deleted outside gatehouse". Also the flag's mistakes and a
 * stack name with control characters (printed escaped).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GatehouseClient } from '@gatehouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type ServeProcess, type tempDir } from './helpers/cli.js';
import { serveWithClient } from './helpers/served.js';

const KEY = 'stacks-e2e-key-0123456789abcdef';
let server: ServeProcess;
let dir: ReturnType<typeof tempDir>;
let client: GatehouseClient;
let close: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ dir, server, client, close } = await serveWithClient(KEY));
});
afterAll(async () => {
  await close?.();
});

const cli = (stack: string, ...args: string[]) => runCli(args, { env: { GATEHOUSE_API_URL: server.url, GATEHOUSE_API_KEY: KEY, GATEHOUSE_STACK: stack } });

const OFFICE = `kind: IPPolicy
name: office
spec:
  description: Office
  rules:
    - {cidr: 203.0.113.0/24, action: allow}
    - {cidr: 198.51.100.0/24, action: allow}
`;
const VPN = `kind: IPPolicy
name: vpn
spec:
  description: VPN
  rules:
    - {cidr: 192.0.2.0/25, action: allow}
`;
const EDGE = `kind: Backend
name: web
spec: {type: tunnel_group, labels: {app: web}}
---
kind: ReservedDomain
name: api
spec: {domain: api.example.com}
---
kind: HTTPSEdge
name: api
spec:
  hostports: ["api.example.com:443"]
  routes:
    - {match_type: path_prefix, match: /, backend: {backend: web}}
`;

/** Writes `files` into the manifests directory `name` (replacing what it held); returns its path. */
function manifests(name: string, files: Record<string, string>): string {
  const path = join(dir.path, name);
  rmSync(path, { recursive: true, force: true });
  mkdirSync(path, { recursive: true });
  for (const [file, text] of Object.entries(files)) writeFileSync(join(path, file), text);
  return path;
}

const COLLECTIONS = [
  ['/ip_policies', 'ip_policies'],
  ['/ip_policy_rules', 'ip_policy_rules'],
  ['/backends/tunnel_group', 'backends'],
  ['/reserved_domains', 'reserved_domains'],
  ['/edges/https', 'https_edges'],
] as const;

/** Every live object (routes too) as `id -> stack of its marker` ('' when it has none). */
async function owners(): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  const stackOf = (metadata: unknown) => {
    const line = String(metadata ?? '')
      .split('\n')
      .at(-1)!;
    return line.startsWith('gatehouse:v1 ') ? (JSON.parse(line.slice('gatehouse:v1 '.length)) as { stack: string }).stack : '';
  };
  for (const [path, key] of COLLECTIONS) {
    for await (const o of client.list<{ id: string; metadata?: string; routes?: { id: string; metadata?: string }[] }>(path, key)) {
      found.set(o.id, stackOf(o.metadata));
      for (const route of o.routes ?? []) found.set(route.id, stackOf(route.metadata));
    }
  }
  return found;
}
const stacksOf = (m: Map<string, string>) => [...new Set(m.values())].sort();

async function expectNoChanges(stack: string, repo: string) {
  const plan = await cli(stack, 'plan', repo, '--detailed-exitcode');
  expect(plan.code, plan.stdout + plan.stderr).toBe(0);
  expect(plan.stdout).toContain('No changes.');
}

describe('stacks do not collide', { timeout: 180_000 }, () => {
  it('the same manifests as another stack: exit 1, one problem per top-level object, nothing created; moves and renames with --from-stack', async () => {
    const repo = manifests('default', { 'office.yaml': OFFICE, 'vpn.yaml': VPN, 'edge.yaml': EDGE });
    const first = await cli('default', 'apply', repo, '--yes');
    expect(first.code, first.stderr).toBe(0);
    const applied = await owners();
    expect(applied.size).toBe(9); // 2 policies, 3 rules, backend, domain, edge, route
    expect(stacksOf(applied)).toEqual(['default']);

    // 1. The case: the same manifests with GATEHOUSE_STACK=platform.
    const plan = await cli('platform', 'plan', repo, '--detailed-exitcode');
    expect(plan.code).toBe(1);
    const problems = plan.stderr.split('\n').filter((l) => /^\s*\S+\.yaml:\d+:\d+: /.test(l));
    expect(problems, plan.stderr).toHaveLength(5); // office, vpn, web, the domain, the edge: no rule, no route
    expect(plan.stderr).toMatch(
      new RegExp(
        `office\\.yaml:2:7: IPPolicy/office would duplicate the live IP policy ipp_\\w+ of stack "default" \\(same kind and name\\); to move it into this stack, add "adopt: ipp_\\w+" to this manifest and run with --from-stack default .*\\[owned_by_other_stack\\]`,
      ),
    );
    expect(plan.stderr).toMatch(
      /edge\.yaml:\d+:\d+: hostport:api\.example\.com:443 is held by the live HTTPS edge edghts_\w+, owned by stack "default"; .*--from-stack default.*\[adoption_required\]/,
    );
    const apply = await cli('platform', 'apply', repo, '--yes');
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain('[owned_by_other_stack]');
    expect(await owners()).toEqual(applied);

    // 2. Move one object: vpn goes to stack team-net with adopt: and --from-stack default.
    const vpnId = await vpnPolicyId();
    const teamNet = manifests('team-net', { 'vpn.yaml': VPN.replace('name: vpn\n', `name: vpn\nadopt: ${vpnId}\n`) });
    const refused = await cli('team-net', 'plan', teamNet);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      new RegExp(`vpn\\.yaml:3:8: adopt: ${vpnId} names a live IP policy that is owned by stack "default"; taking it over needs --from-stack default`),
    );
    const movePlan = await cli('team-net', 'plan', teamNet, '--from-stack', 'default', '--format', 'json');
    expect(movePlan.code, movePlan.stderr).toBe(0);
    const moveDoc = JSON.parse(movePlan.stdout) as { from_stack: string; changes: { address: string; action: string; reason: string }[] };
    expect(moveDoc.from_stack).toBe('default');
    expect(moveDoc.changes.map((c) => [c.address, c.action, c.reason])).toEqual([
      ['IPPolicy/vpn', 'update', 'moved from stack "default"'],
      ['IPPolicyRule/vpn/192.0.2.0/25', 'update', 'moved from stack "default"'],
    ]);
    const moved = await cli('team-net', 'apply', teamNet, '--from-stack', 'default', '--yes');
    expect(moved.code, moved.stderr).toBe(0);
    const afterMove = await owners();
    expect(afterMove.size).toBe(9);
    expect([...afterMove].filter(([, s]) => s === 'team-net')).toHaveLength(2);
    // adopt: removed, the marker identifies it.
    manifests('team-net', { 'vpn.yaml': VPN });
    await expectNoChanges('team-net', teamNet);

    // The old stack still declaring it: plan and drift name the new owner (never a create, never "deleted outside").
    const old = await cli('default', 'plan', repo);
    expect(old.code).toBe(1);
    expect(old.stderr).toMatch(new RegExp(`vpn\\.yaml:2:7: IPPolicy/vpn would duplicate the live IP policy ${vpnId} of stack "team-net"`));
    const drift = await cli('default', 'drift', repo);
    expect(drift.code).toBe(1);
    expect(drift.stdout + drift.stderr).toContain('[owned_by_other_stack]');
    expect(drift.stdout + drift.stderr).not.toContain('deleted outside');
    // Once its manifests no longer declare it: no changes, no drift; listed as team-net's.
    manifests('default', { 'office.yaml': OFFICE, 'edge.yaml': EDGE });
    await expectNoChanges('default', repo);
    const quiet = await cli('default', 'drift', repo);
    expect(quiet.code, quiet.stdout + quiet.stderr).toBe(0);
    expect(quiet.stdout).toMatch(/vpn \(stack team-net\)/);

    // 3. Rename the stack default to platform.
    const rename = await cli('platform', 'apply', repo, '--from-stack', 'default', '--yes');
    expect(rename.code, rename.stderr).toBe(0);
    const renamed = await owners();
    expect(renamed.size).toBe(9); // nothing created, nothing deleted
    expect(stacksOf(renamed)).toEqual(['platform', 'team-net']);
    await expectNoChanges('platform', repo);
    await expectNoChanges('team-net', teamNet);
    // The old name now owns nothing: the same command again moves nothing and says so.
    const again = await cli('platform', 'plan', repo, '--from-stack', 'default', '--detailed-exitcode');
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('warning: --from-stack default: stack "default" owns no live object, so nothing moves from it');
  });

  it('refuses --from-stack that is empty or the stack itself; names nothing moved for a stack that owns nothing', async () => {
    const repo = manifests('flags', { 'p.yaml': OFFICE.replace('name: office', 'name: flags-office') });
    const same = await cli('flags', 'plan', repo, '--from-stack', 'flags');
    expect(same.code).toBe(1);
    expect(same.stderr).toContain('--from-stack names the stack being planned ("flags")');
    const empty = await cli('flags', 'apply', repo, '--from-stack', '', '--yes');
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain('--from-stack is empty');
    const nobody = await cli('flags', 'plan', repo, '--from-stack', 'nobody', '--format', 'json');
    expect(nobody.code, nobody.stderr).toBe(0);
    expect(nobody.stderr).toContain('stack "nobody" owns no live object');
    expect(JSON.parse(nobody.stdout).summary.create).toBe(3);
  });

  it('a stack name with control characters: refused as --stack; a marker that holds one is not one gatehouse wrote, so the object is not owned', async () => {
    const evil = 'evil\u001b]0;pwned\u0007\u001b[2J';
    const repo = manifests('evil', { 'p.yaml': OFFICE.replace('name: office', 'name: shared') });
    const refused = await cli(evil, 'apply', repo, '--yes');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('--stack (or GATEHOUSE_STACK) holds control characters');
    expect(refused.stderr).not.toMatch(/[\u0007\u001b]/);
    // A marker written by anyone with an API key: no stack gatehouse runs as holds control
    // characters, so it counts as no marker (issue 42): the object is neither another stack's
    // nor this one's, and its text never reaches the output.
    const planted = await client.ipPolicies.create({
      description: 'planted',
      metadata: `gatehouse:v1 ${JSON.stringify({ stack: evil, name: 'shared', hash: '' })}`,
    });
    for (const format of ['text', 'json']) {
      const result = await cli('default', 'plan', repo, '--format', format);
      expect(result.code, result.stderr).toBe(0);
      const output = result.stdout + result.stderr;
      expect(output).not.toContain('owned_by_other_stack');
      expect(output).toContain(planted.id);
      expect(output).not.toMatch(/[\u0007\u001b]/);
    }
  });
});

async function vpnPolicyId(): Promise<string> {
  for await (const p of client.list<{ id: string; metadata?: string }>('/ip_policies', 'ip_policies'))
    if (String(p.metadata).includes('"name":"vpn"')) return p.id;
  throw new Error('no vpn policy');
}
