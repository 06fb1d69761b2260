/**
 * The executor against an in-memory API: order, concurrency, failures, lost answers, saved
 * plans and the safety rails. Manifests are real files in a temporary directory.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { manifestDirs } from '../testing/manifest-dirs.js';
import { parseMarker } from '../identity/marker.js';
import { LiveApiError } from '../ports.js';
import { ManifestProblems } from '../problems.js';
import { applyPlan, type ApplyOptions } from './apply.js';
import { MemoryLiveApi, type WriteRequest } from './memory-api.js';
import { isRegistryObject } from '../bot-registry/records.js';
import { ApplyRefused, type ApplyResult } from './model.js';
import { prepareApply } from './prepare.js';

const { manifests, rewrite, cleanup } = manifestDirs('gatehouse-apply-');
afterEach(cleanup);

const apply = (api: MemoryLiveApi, dir: string, options: Partial<ApplyOptions> = {}): Promise<ApplyResult> =>
  applyPlan({ api, stack: 'default', paths: [dir], env: {}, ...options });

const POLICIES = `
kind: IPPolicy
name: office
spec:
  description: Office
  rules:
    - {cidr: 203.0.113.0/24, action: allow}
    - {cidr: 198.51.100.0/24, action: allow}
---
kind: IPPolicy
name: vpn
spec:
  description: VPN
  rules:
    - {cidr: 192.0.2.0/25, action: allow}
---
kind: IPRestriction
name: dashboard
spec: {type: dashboard, enforced: true, ip_policies: [office, vpn]}
`;

const EDGES = `
kind: Backend
name: web
spec: {type: tunnel_group, labels: {app: web}}
---
kind: HTTPSEdge
name: api
spec:
  hostports: ["api.example.com:443"]
  routes:
    - match_type: path_prefix
      match: /
      backend: {backend: web}
`;

const writes = (api: MemoryLiveApi, method?: string) => api.log.filter((r) => !method || r.method === method);
const indexOf = (log: WriteRequest[], test: (r: WriteRequest) => boolean) => log.findIndex(test);
const status = (result: ApplyResult, address: string) => result.steps.find((s) => s.address === address);

describe('order', () => {
  it('creates parents first and resolves the ids they get for their dependents', async () => {
    const api = new MemoryLiveApi();
    const result = await apply(api, manifests(POLICIES + '---' + EDGES));
    expect(result.ok).toBe(true);
    expect(result.summary).toMatchObject({ done: 9, failed: 0, skipped: 0 });
    const log = writes(api);
    const office = api.objects('/ip_policies').find((p) => p.description === 'Office')!;
    const rules = api.objects('/ip_policy_rules').filter((r) => (r.ip_policy as { id: string }).id === office.id);
    expect(rules.map((r) => r.cidr).sort()).toEqual(['198.51.100.0/24', '203.0.113.0/24']);
    const restriction = log.find((r) => r.path === '/ip_restrictions')!;
    expect((restriction.body!.ip_policy_ids as string[]).sort()).toEqual(
      api
        .objects('/ip_policies')
        .map((p) => p.id)
        .sort(),
    );
    for (const policy of log.filter((r) => r.path === '/ip_policies')) {
      expect(log.indexOf(policy)).toBeLessThan(log.indexOf(restriction));
    }
    const backend = indexOf(log, (r) => r.path === '/backends/tunnel_group');
    const edge = indexOf(log, (r) => r.path === '/edges/https');
    const route = indexOf(log, (r) => r.path.endsWith('/routes'));
    expect(backend).toBeLessThan(route);
    expect(edge).toBeLessThan(route);
    const created = api.objects('/edges/https')[0]!.routes as { backend: { backend: { id: string } } }[];
    expect(created[0]!.backend.backend.id).toBe(api.objects('/backends/tunnel_group')[0]!.id);
  });

  it('writes the ownership marker with the applied hash, and a second apply has nothing to do', async () => {
    const api = new MemoryLiveApi();
    const dir = manifests(POLICIES);
    await apply(api, dir);
    for (const rule of api.objects('/ip_policy_rules')) {
      const { marker } = parseMarker(rule.metadata);
      expect(marker).toMatchObject({ stack: 'default' });
      expect(marker!.hash).toMatch(/^[0-9a-f]{16}$/);
    }
    const count = api.log.length;
    const again = await apply(api, dir);
    expect(again.steps).toEqual([]);
    expect(api.log.length).toBe(count);
  });

  it('deletes children before parents, only with --prune, and reports what was not pruned', async () => {
    const api = new MemoryLiveApi();
    const dir = manifests(POLICIES);
    await apply(api, dir);
    rewrite(dir, `kind: BotUser\nname: deploy\nspec: {active: true}\n`);
    const kept = await apply(api, dir);
    expect(kept.ok).toBe(true);
    expect(kept.summary.not_pruned).toBe(6);
    expect(writes(api, 'DELETE')).toEqual([]);

    const pruned = await apply(api, dir, { prune: true, force: true });
    expect(pruned.ok).toBe(true);
    const log = writes(api, 'DELETE');
    expect(log).toHaveLength(6);
    const restriction = indexOf(log, (r) => r.path.startsWith('/ip_restrictions/'));
    for (const [i, r] of log.entries()) {
      if (r.path.startsWith('/ip_policies/')) {
        expect(i).toBeGreaterThan(restriction);
        const id = r.path.split('/').pop();
        // every rule of this policy went before it
        for (const [j, rule] of log.entries()) if (rule.path.startsWith('/ip_policy_rules/') && j > i) expect(rule.path).not.toContain(id);
      }
    }
    // The stack's bot user registry (a record, not a user's policy) is all that is left.
    expect(api.objects('/ip_policies').filter((p) => !isRegistryObject('IPPolicy', p))).toEqual([]);
  });

  it('make before break: a rule whose CIDR changed is created before the old one is deleted', async () => {
    const api = new MemoryLiveApi();
    const dir = manifests(POLICIES);
    await apply(api, dir);
    rewrite(dir, POLICIES.replace('192.0.2.0/25', '192.0.2.128/25'));
    const result = await apply(api, dir, { prune: true, force: true });
    expect(result.ok).toBe(true);
    const log = api.log.filter((r) => r.path.startsWith('/ip_policy_rules'));
    const created = indexOf(log, (r) => r.method === 'POST' && r.body!.cidr === '192.0.2.128/25');
    const deleted = indexOf(log, (r) => r.method === 'DELETE');
    expect(created).toBeGreaterThanOrEqual(0);
    expect(created).toBeLessThan(deleted);
  });

  it('refuses to delete every rule of a policy a dashboard restriction uses, before any request', async () => {
    const api = new MemoryLiveApi();
    const dir = manifests(POLICIES);
    await apply(api, dir);
    const before = api.log.length;
    const withoutVpnRules = POLICIES.replace('    - {cidr: 192.0.2.0/25, action: allow}\n', '').replace(
      '  description: VPN\n  rules:\n',
      '  description: VPN\n',
    );
    rewrite(dir, withoutVpnRules);
    const refused = apply(api, dir, { prune: true, force: true });
    await expect(refused).rejects.toMatchObject({
      problems: [expect.objectContaining({ code: 'last_child_in_use', message: expect.stringContaining('IPPolicy/vpn') })],
    });
    expect(api.log.length).toBe(before);
    // the same manifests without the dashboard restriction's use of vpn apply
    rewrite(dir, withoutVpnRules.replace('[office, vpn]', '[office]'));
    expect((await apply(api, dir, { prune: true, force: true })).ok).toBe(true);
  });

  it("creates the reservations an edge's hostports name before the edge, sends the assigned address, and replans empty", async () => {
    const api = new MemoryLiveApi();
    const dir = manifests(`
kind: ReservedDomain
name: wildcard
spec: {domain: "*.example.com", region: eu}
---
kind: ReservedTCPAddress
name: ssh
spec: {region: eu}
---
kind: Backend
name: db
spec: {type: static, address: "10.0.0.5:5432", tls: {enabled: true}}
---
kind: Backend
name: cache
spec: {type: static_address, address: "10.0.0.6:6379", tls: {}}
---
kind: TLSEdge
name: db
spec:
  hostports: ["db.example.com:443"]
  backend: {backend: db}
  tls_termination: {terminate_at: upstream}
---
kind: TCPEdge
name: ssh
spec: {hostports: [{reserved_tcp_address: ssh}], backend: {backend: db}}
---
kind: HTTPSEdge
name: api
spec: {hostports: ["api.example.com:443"]}
`);
    const result = await apply(api, dir);
    expect(result.ok).toBe(true);
    const log = writes(api, 'POST');
    const at = (path: string) => indexOf(log, (r) => r.path === path);
    expect(at('/reserved_domains')).toBeLessThan(at('/edges/tls'));
    expect(at('/reserved_domains')).toBeLessThan(at('/edges/https'));
    expect(at('/reserved_addrs')).toBeLessThan(at('/edges/tcp'));
    // The deprecated region is sent on create; the address is the service's, sent to the edge.
    expect(log.find((r) => r.path === '/reserved_domains')!.body).toMatchObject({ region: 'eu' });
    expect(log.find((r) => r.path === '/reserved_addrs')!.body).not.toHaveProperty('addr');
    const [assigned] = api.objects('/reserved_addrs');
    expect(log.find((r) => r.path === '/edges/tcp')!.body).toMatchObject({ hostports: [assigned!.addr] });
    // Both spellings of the static type reach the service's path; `tls: {}` is disabled.
    expect(log.filter((r) => r.path === '/backends/static').map((r) => r.body)).toEqual([
      expect.objectContaining({ address: '10.0.0.5:5432', tls: { enabled: true } }),
      expect.objectContaining({ address: '10.0.0.6:6379', tls: { enabled: false } }),
    ]);
    expect((await apply(api, dir)).steps).toEqual([]);
    // The region of a domain is not updated (the service cannot): a change there is no change.
    rewrite(dir, readFileSync(join(dir, 'main.yaml'), 'utf8').replace('region: eu}', 'region: us}'));
    expect((await apply(api, dir)).steps).toEqual([]);
  });

  it('never deletes objects this stack does not own', async () => {
    const api = new MemoryLiveApi();
    await api.create('/ip_policies', { description: 'someone else' });
    await api.create('/ip_policies', { description: 'other stack', metadata: 'gatehouse:v1 {"stack":"other","name":"x","hash":""}' });
    api.log.length = 0;
    const result = await apply(api, manifests(`kind: BotUser\nname: b\nspec: {}\n`), { prune: true });
    expect(result.ok).toBe(true);
    expect(writes(api, 'DELETE')).toEqual([]);
    // Both policies stay; the third is the stack's bot user registry.
    expect(api.objects('/ip_policies').filter((p) => !isRegistryObject('IPPolicy', p))).toHaveLength(2);
  });
});

describe('concurrency and failures', () => {
  it('starts a step as soon as its own dependencies finish, with at most `parallelism` at once', async () => {
    const api = new MemoryLiveApi();
    let release!: () => void;
    const held = new Promise<undefined>((resolve) => (release = () => resolve(undefined)));
    const seen: string[] = [];
    api.intercept = (request) => {
      seen.push(`${request.method} ${request.path} ${String(request.body?.cidr ?? request.body?.description ?? '')}`);
      if (request.body?.description === 'Office') return held;
      // vpn's rule was sent while office's create is still held: release office then.
      if (request.body?.cidr === '192.0.2.0/25') setImmediate(release);
      return undefined;
    };
    const result = await apply(api, manifests(POLICIES), { parallelism: 2 });
    expect(result.ok).toBe(true);
    expect(seen.indexOf('POST /ip_policy_rules 192.0.2.0/25')).toBeLessThan(seen.indexOf('POST /ip_policy_rules 203.0.113.0/24'));
    expect(api.maxInFlight).toBeLessThanOrEqual(2);
  });

  it('skips and reports the dependents of a failed step, and finishes the rest', async () => {
    const api = new MemoryLiveApi();
    api.intercept = (request) => {
      if (request.body?.description === 'Office') throw new LiveApiError('POST /ip_policies: 400 invalid', 400, 'invalid', false);
      return undefined;
    };
    const dir = manifests(POLICIES);
    const result = await apply(api, dir);
    expect(result.ok).toBe(false);
    expect(status(result, 'IPPolicy/office')).toMatchObject({ status: 'failed', reason: { code: 'api_failure' } });
    for (const address of ['IPPolicyRule/office/203.0.113.0/24', 'IPPolicyRule/office/198.51.100.0/24', 'IPRestriction/dashboard']) {
      expect(status(result, address)).toMatchObject({
        status: 'skipped',
        reason: { code: 'dependency_failed', message: expect.stringContaining('IPPolicy/office') },
      });
    }
    expect(status(result, 'IPPolicyRule/vpn/192.0.2.0/25')).toMatchObject({ status: 'done' });
    expect(result.summary).toMatchObject({ done: 2, failed: 1, skipped: 3 });
    // Running it again finishes the job.
    api.intercept = undefined;
    const again = await apply(api, dir);
    expect(again.ok).toBe(true);
    expect(again.summary.done).toBe(4);
  });

  it('finds a create whose answer was lost instead of creating it twice', async () => {
    const api = new MemoryLiveApi();
    let lost = 0;
    api.intercept = (request) => (request.method === 'POST' && lost++ < 3 ? 'lost' : undefined);
    const result = await apply(api, manifests(POLICIES));
    expect(result.ok).toBe(true);
    expect(api.objects('/ip_policies')).toHaveLength(2);
    expect(api.objects('/ip_policy_rules')).toHaveLength(3);
    expect(api.objects('/ip_restrictions')).toHaveLength(1);
    expect(writes(api, 'POST')).toHaveLength(6);
  });

  it('retries a create that failed before it was carried out, once it is sure nothing was made', async () => {
    const api = new MemoryLiveApi();
    let failures = 0;
    api.intercept = (request) => {
      if (request.path === '/ip_restrictions' && failures++ < 2) throw new LiveApiError('503 unavailable', 503, 'service_unavailable', true);
      return undefined;
    };
    const result = await apply(api, manifests(POLICIES));
    expect(result.ok).toBe(true);
    expect(api.objects('/ip_restrictions')).toHaveLength(1);
  });
});

describe('replace', () => {
  it('creates the new object first, re-points what references it, then deletes the old one', async () => {
    const api = new MemoryLiveApi();
    const dir = manifests(
      `kind: Backend\nname: a\nspec: {type: tunnel_group, labels: {app: a}}\n---\nkind: Backend\nname: fo\nspec: {type: failover, backends: [a]}\n`,
    );
    await apply(api, dir);
    const old = api.objects('/backends/tunnel_group')[0]!.id as string;
    api.log.length = 0;
    rewrite(
      dir,
      `kind: Backend\nname: a\nspec: {type: http_response, status_code: 503}\n---\nkind: Backend\nname: fo\nspec: {type: failover, backends: [a]}\n`,
    );
    // The plan shows the re-point as a change of its own (plan = apply).
    const prepared = await prepareApply({ api, stack: 'default', paths: [dir], env: {} });
    expect(prepared.plan.changes.map((c) => [c.address, c.action, c.cause])).toEqual([
      ['Backend/a', 'replace', undefined],
      ['Backend/fo', 'update', 'repoint'],
    ]);
    const result = await apply(api, dir);
    expect(result.ok).toBe(true);
    const fresh = api.objects('/backends/http_response')[0]!.id as string;
    expect(api.log.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /backends/http_response',
      `PATCH /backends/failover/${String(api.objects('/backends/failover')[0]!.id)}`,
      `DELETE /backends/tunnel_group/${old}`,
    ]);
    expect(api.objects('/backends/failover')[0]!.backends).toEqual([fresh]);
    expect(status(result, 'Backend/a')).toMatchObject({ action: 'replace', id: fresh, status: 'done' });
    expect(status(result, 'Backend/fo')).toMatchObject({
      action: 'update',
      status: 'done',
      note: 'references Backend/a, which is replaced: pointed at the new object',
    });
  });

  it('deletes first when a unique key forbids two at once (a rule whose action changes)', async () => {
    const api = new MemoryLiveApi();
    const dir = manifests(`kind: IPPolicy\nname: p\nspec:\n  rules: [{cidr: 10.0.0.0/8, action: allow}]\n`);
    await apply(api, dir);
    api.log.length = 0;
    rewrite(dir, `kind: IPPolicy\nname: p\nspec:\n  rules: [{cidr: 10.0.0.0/8, action: deny}]\n`);
    expect((await apply(api, dir)).ok).toBe(true);
    expect(api.log.map((r) => r.method)).toEqual(['DELETE', 'POST']);
  });
});

describe('saved plans', () => {
  it('refuses a stale change without writing it, skips its dependents and applies the rest', async () => {
    const api = new MemoryLiveApi();
    const dir = manifests(POLICIES);
    await apply(api, dir);
    rewrite(
      dir,
      POLICIES.replace('description: Office', 'description: Office v2')
        .replace('description: VPN', 'description: VPN v2')
        .replace('enforced: true', 'enforced: false'),
    );
    const saved = (await prepareApply({ api, stack: 'default', paths: [dir], env: {} })).plan;
    expect(saved.changes.map((c) => c.address).sort()).toEqual(['IPPolicy/office', 'IPPolicy/vpn', 'IPRestriction/dashboard']);
    // Someone changes office outside gatehouse after the plan was saved.
    const office = api.objects('/ip_policies').find((p) => p.description === 'Office')!;
    office.description = 'edited by hand';
    api.log.length = 0;
    const result = await apply(api, dir, { saved });
    expect(result.ok).toBe(false);
    expect(status(result, 'IPPolicy/office')).toMatchObject({
      status: 'failed',
      reason: { code: 'stale_object', message: expect.stringContaining('IPPolicy/office') },
    });
    expect(status(result, 'IPRestriction/dashboard')).toMatchObject({
      status: 'skipped',
      reason: { message: expect.stringContaining('IPPolicy/office, which it depends on, is stale') },
    });
    expect(status(result, 'IPPolicy/vpn')).toMatchObject({ status: 'done' });
    expect(api.log.map((r) => r.path)).toEqual([`/ip_policies/${String(api.objects('/ip_policies').find((p) => p.description === 'VPN v2')!.id)}`]);
    expect(office.description).toBe('edited by hand');
  });

  it('re-running a partly applied saved plan skips the changes already done and applies the rest', async () => {
    const api = new MemoryLiveApi();
    const dir = manifests(POLICIES);
    await apply(api, dir);
    rewrite(dir, POLICIES.replace('description: Office', 'description: Office v2').replace('description: VPN', 'description: VPN v2'));
    const saved = (await prepareApply({ api, stack: 'default', paths: [dir], env: {} })).plan;
    expect(saved.changes.map((c) => c.address).sort()).toEqual(['IPPolicy/office', 'IPPolicy/vpn']);
    // The first run stopped after the office policy (a crash, Ctrl-C, a timeout).
    let calls = 0;
    api.intercept = () => {
      calls += 1;
      if (calls > 1) throw new LiveApiError('bad gateway', 400, 'bad_request', false);
      return undefined;
    };
    const first = await apply(api, dir, { saved, parallelism: 1 });
    expect(first.summary).toMatchObject({ done: 1, failed: 1 });
    api.intercept = undefined;
    api.log.length = 0;
    const again = await apply(api, dir, { saved });
    expect(again.ok).toBe(true);
    expect(again.summary).toMatchObject({ done: 1, failed: 0, already_done: 1 });
    expect(api.log).toHaveLength(1);
    expect(
      api
        .objects('/ip_policies')
        .map((p) => p.description)
        .sort(),
    ).toEqual(['Office v2', 'VPN v2']);
  });

  it('checks {id: ...} references against the live objects read: a missing or wrong-kind id is a problem at its place, before any write', async () => {
    const api = new MemoryLiveApi();
    const policy = await api.create('/ip_policies', { description: 'not managed' });
    api.log.length = 0;
    const dir = manifests(
      `kind: Backend\nname: fo\nspec: {type: failover, backends: [{id: bkdtg_doesnotexist}]}\n---\nkind: Backend\nname: fo2\nspec: {type: failover, backends: [{id: ${String(policy.id)}}]}\n`,
    );
    const error = await apply(api, dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ManifestProblems);
    const problems = (error as ManifestProblems).problems;
    expect(problems.map((p) => [p.code, p.at?.line, p.at?.col])).toEqual([
      ['reference_id_missing', 3, 35],
      ['reference_id_wrong_kind', 7, 35],
    ]);
    expect(problems[0]!.message).toContain('bkdtg_doesnotexist');
    expect(api.log).toEqual([]);
  });

  it("refuses the whole plan when a file's documents changed since, naming it, writing nothing", async () => {
    const api = new MemoryLiveApi();
    const dir = manifests(POLICIES);
    const saved = (await prepareApply({ api, stack: 'default', paths: [dir], env: {} })).plan;
    expect(saved.manifest_files).toEqual({ [join(dir, 'main.yaml')]: expect.stringMatching(/^[0-9a-f]{64}$/) });
    rewrite(dir, POLICIES.replace('Office', 'Office!'));
    const error = await apply(api, dir, { saved }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApplyRefused);
    expect((error as ApplyRefused).refusals).toEqual([
      { code: 'stale_manifests', message: `${join(dir, 'main.yaml')} changed since the saved plan was made; run gatehouse plan again and review the new plan` },
    ]);
    // A file added beside it is named too.
    writeFileSync(join(dir, 'more.yaml'), 'kind: BotUser\nname: ci\nspec: {}\n');
    const again = (await apply(api, dir, { saved }).catch((e: unknown) => e)) as ApplyRefused;
    expect(again.refusals[0]!.message).toMatch(/^\S+main\.yaml, \S+more\.yaml \(added\) changed since the saved plan was made/);
    expect(api.log).toEqual([]);
  });

  it('applies a saved plan after edits that change no document: comments, formatting, key order', async () => {
    const api = new MemoryLiveApi();
    const dir = manifests(POLICIES);
    const saved = (await prepareApply({ api, stack: 'default', paths: [dir], env: {} })).plan;
    const reformatted = `# reviewed in PR 42\n${POLICIES.replace('spec: {type: dashboard, enforced: true, ip_policies: [office, vpn]}', 'spec:\n  ip_policies: [office, vpn]   # both\n  enforced: true\n  type: dashboard')}`;
    rewrite(dir, reformatted);
    const result = await apply(api, dir, { saved });
    expect(result.ok).toBe(true);
    expect(result.summary.done).toBe(saved.changes.length);
  });

  it('judges a plan saved before files were recorded by its checksum, as before', async () => {
    const api = new MemoryLiveApi();
    const dir = manifests(POLICIES);
    const { manifest_files: _files, ...older } = (await prepareApply({ api, stack: 'default', paths: [dir], env: {} })).plan;
    expect((await prepareApply({ api, stack: 'default', paths: [dir], env: {}, saved: older })).refusals).toEqual([]);
    rewrite(dir, `# a comment\n${POLICIES}`);
    const prepared = await prepareApply({ api, stack: 'default', paths: [dir], env: {}, saved: older });
    expect(prepared.refusals).toEqual([
      {
        code: 'stale_manifests',
        message: `the manifests under ${dir} changed since the saved plan was made; run gatehouse plan again and review the new plan`,
      },
    ]);
  });

  it('refuses a plan saved for another stack whole, with stale_plan_stack alone, before it reads live state', async () => {
    const api = new MemoryLiveApi();
    const dir = manifests(POLICIES);
    await apply(api, dir); // stack default owns the policies now
    const saved = (await prepareApply({ api, stack: 'default', paths: [dir], env: {} })).plan;
    api.log.length = 0;
    const error = await prepareApply({ api, stack: 'team-b', paths: [dir], env: {}, saved }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApplyRefused);
    expect((error as ApplyRefused).refusals).toEqual([
      { code: 'stale_plan_stack', message: 'the saved plan is for stack "default", not "team-b"; pass --stack default or plan again' },
    ]);
    expect(api.log).toEqual([]);
  });

  it('refuses a plan saved for one environment when applied for another, or for none', async () => {
    const api = new MemoryLiveApi();
    const dir = manifests(POLICIES);
    const environment = (name: string) => ({ name, overlays: [], vars: { environment: name, values: {}, locate: () => undefined } });
    const saved = (await prepareApply({ api, stack: 'default', paths: [dir], env: {}, environment: environment('staging') })).plan;
    expect(saved.environment).toBe('staging');
    expect(saved.manifest_files).toHaveProperty(['variables of environment staging']);
    for (const other of [environment('production'), undefined]) {
      const refused = await prepareApply({ api, stack: 'default', paths: [dir], env: {}, saved, environment: other }).catch((e: unknown) => e);
      expect((refused as ApplyRefused).refusals.map((r) => r.code)).toContain('stale_plan_environment');
    }
    const same = await prepareApply({ api, stack: 'default', paths: [dir], env: {}, saved, environment: environment('staging') });
    expect(same.refusals).toEqual([]);
  });
});

describe('safety rails', () => {
  it('prevent_destroy refuses a replace, and a delete after the manifest is gone (recorded in the marker)', async () => {
    const api = new MemoryLiveApi();
    const dir = manifests(`kind: IPPolicy\nname: p\nlifecycle: {prevent_destroy: true}\nspec:\n  rules: [{cidr: 10.0.0.0/8, action: allow}]\n`);
    await apply(api, dir);
    expect(parseMarker(api.objects('/ip_policies')[0]!.metadata).marker?.preventDestroy).toBe(true);
    api.log.length = 0;

    rewrite(dir, `kind: IPPolicy\nname: p\nlifecycle: {prevent_destroy: true}\nspec:\n  rules: [{cidr: 10.0.0.0/8, action: deny}]\n`);
    const replace = await apply(api, dir).catch((e: unknown) => e);
    expect((replace as ApplyRefused).refusals).toEqual([expect.objectContaining({ code: 'prevent_destroy', address: 'IPPolicyRule/p/10.0.0.0/8' })]);

    rewrite(dir, `kind: BotUser\nname: b\nspec: {}\n`);
    const remove = await apply(api, dir, { prune: true, force: true }).catch((e: unknown) => e);
    expect((remove as ApplyRefused).refusals.map((r) => r.address).sort()).toEqual(['IPPolicy/p', 'IPPolicyRule/p/10.0.0.0/8']);
    expect((remove as ApplyRefused).message).toContain('prevent_destroy: false');
    expect(api.log).toEqual([]);
  });

  it('needs --force to delete more than 30% of what the stack owns (when it owns more than 10)', async () => {
    const api = new MemoryLiveApi();
    const policy = (i: number) => `---\nkind: IPPolicy\nname: p${i}\nspec: {description: p${i}}\n`;
    const keep = (n: number) => rewrite(dir, Array.from({ length: n }, (_, i) => policy(i)).join(''));
    const dir = manifests('');
    keep(20);
    await apply(api, dir);
    keep(15);
    expect((await apply(api, dir, { prune: true })).ok).toBe(true); // 5 of 20: 25%
    keep(10);
    const refused = await apply(api, dir, { prune: true }).catch((e: unknown) => e); // 5 of 15: 33%
    expect((refused as ApplyRefused).refusals).toEqual([expect.objectContaining({ code: 'delete_threshold', message: expect.stringContaining('--force') })]);
    expect(api.objects('/ip_policies')).toHaveLength(15);
    // Without --prune nothing is deleted, so nothing needs --force.
    expect((await apply(api, dir)).summary.not_pruned).toBe(5);
    expect((await apply(api, dir, { prune: true, force: true })).summary.done).toBe(5);
    expect(api.objects('/ip_policies')).toHaveLength(10);
    // Per kind as well: 7 of the 10 IP policies is more than 30% of that kind, whatever the total.
    keep(3);
    const perKind = await apply(api, dir, { prune: true }).catch((e: unknown) => e);
    expect((perKind as ApplyRefused).refusals).toEqual([
      expect.objectContaining({ code: 'delete_threshold', message: expect.stringContaining('7 of the 10 IPPolicy objects') }),
    ]);
    expect((await apply(api, dir, { prune: true, force: true })).summary.done).toBe(7);
    // A kind of which the stack owns 3 or fewer may lose them all.
    keep(0);
    rewrite(dir, 'kind: BotUser\nname: b\nspec: {}\n');
    // 3 deletes, the bot user's create and the registry's.
    expect((await apply(api, dir, { prune: true })).summary.done).toBe(5);
  });
});
