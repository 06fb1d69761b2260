/**
 * Stacks do not collide (plan/stacks.ts), in-process against the in-memory API: the same
 * manifests under a second stack fail with one problem per top-level object and write
 * nothing; objects move between stacks only with `fromStack`; renames within a stack.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { manifestDirs } from '../testing/manifest-dirs.js';
import { applyPlan } from '../apply/apply.js';
import { MemoryLiveApi } from '../apply/memory-api.js';
import { computePlan } from '../engine.js';
import { parseMarker } from '../identity/marker.js';
import { LiveApiError } from '../ports.js';
import { ManifestProblems, type Problem } from '../problems.js';

const { manifests, cleanup } = manifestDirs('gatehouse-stacks-');
afterEach(cleanup);

const SET = `kind: IPPolicy
name: office
spec:
  description: Office
  rules:
    - {cidr: 203.0.113.0/24, action: allow}
    - {cidr: 198.51.100.0/24, action: allow}
---
kind: IPRestriction
name: dashboard
spec: {type: dashboard, enforced: true, ip_policies: [office]}
---
kind: Backend
name: web
spec: {type: tunnel_group, labels: {app: web}}
---
kind: HTTPSEdge
name: api
spec:
  hostports: ["api.example.com:443"]
  routes:
    - {match_type: path_prefix, match: /, backend: {backend: web}}
`;

const run = (api: MemoryLiveApi, dir: string, stack: string, fromStack?: string) =>
  applyPlan({ api, stack, paths: [dir], env: {}, ...(fromStack !== undefined ? { fromStack } : {}) });
const plan = (api: MemoryLiveApi, dir: string, stack: string, extra: { fromStack?: string; onWarning?: (w: Problem) => void } = {}) =>
  computePlan({ paths: [dir], env: {}, api, stack, ...extra });
const problemsOf = async (promise: Promise<unknown>): Promise<Problem[]> => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ManifestProblems);
  return (error as ManifestProblems).problems;
};
const stackOf = (api: MemoryLiveApi, path: string) => api.objects(path).map((o) => parseMarker(o.metadata).marker?.stack);
const count = (api: MemoryLiveApi) => [...api.collections.values()].reduce((n, c) => n + c.length, 0);

describe('collisions', () => {
  it('the same manifests under another stack: one problem per top-level object, at its document, naming the owner; nothing written', async () => {
    const api = new MemoryLiveApi();
    const dir = manifests(SET);
    expect((await run(api, dir, 'default')).ok).toBe(true);
    const objects = count(api);
    api.log.length = 0;

    const problems = await problemsOf(plan(api, dir, 'platform'));
    const policy = api.objects('/ip_policies')[0]!;
    expect(problems.map((p) => [p.code, p.at?.line])).toEqual([
      ['owned_by_other_stack', 2], // IPPolicy/office: its name
      ['adoption_required', 11], // the dashboard type, held by default's restriction
      ['owned_by_other_stack', 14], // Backend/web
      ['adoption_required', 20], // the hostport, held by default's edge
    ]);
    expect(problems[0]!.message).toBe(
      `IPPolicy/office would duplicate the live IP policy ${String(policy.id)} of stack "default" (same kind and name); to move it into this stack, add "adopt: ${String(policy.id)}" to this manifest and run with --from-stack default (--from-stack default alone moves every object of that stack the manifests declare), or give this manifest another name`,
    );
    expect(problems[1]!.message).toMatch(
      /owned by stack "default"; to move it into this stack, add "adopt: ipx_\d+" to this manifest and run with --from-stack default/,
    );
    // Apply fails the same way and writes nothing.
    await problemsOf(run(api, dir, 'platform'));
    expect(api.log).toEqual([]);
    expect(count(api)).toBe(objects);
  });

  it('an edge with several hostports another stack holds is one problem, not one per hostport', async () => {
    const api = new MemoryLiveApi();
    const dir = manifests(SET.replace('hostports: ["api.example.com:443"]', 'hostports: ["api.example.com:443", "www.example.com:443"]'));
    await run(api, dir, 'default');
    const problems = await problemsOf(plan(api, dir, 'platform'));
    expect(problems.filter((p) => p.message.includes('HTTPS edge'))).toHaveLength(1);
  });

  it("adopt: of another stack's object needs --from-stack; its children are not reported again", async () => {
    const api = new MemoryLiveApi();
    const dir = manifests(SET);
    await run(api, dir, 'default');
    const id = String(api.objects('/ip_policies')[0]!.id);
    const other = manifests(`kind: IPPolicy\nname: corp\nadopt: ${id}\nspec:\n  description: Office\n  rules:\n    - {cidr: 203.0.113.0/24, action: allow}\n`);
    const problems = await problemsOf(plan(api, other, 'platform'));
    expect(problems).toEqual([
      expect.objectContaining({
        code: 'owned_by_other_stack',
        at: expect.objectContaining({ line: 3, col: 8 }),
        message: expect.stringMatching(/^adopt: ipp_\d+ names a live IP policy that is owned by stack "default"; taking it over needs --from-stack default/),
      }),
    ]);
    // With --from-stack naming yet another stack, it is still refused.
    expect((await problemsOf(plan(api, other, 'platform', { fromStack: 'team-c' }))).map((p) => p.code)).toEqual(['owned_by_other_stack']);
  });

  it('a child another stack owns, inside a parent this stack adopts from nobody, is a problem at the child', async () => {
    const api = new MemoryLiveApi();
    const policy = await api.create('/ip_policies', { description: 'by hand', metadata: '' });
    await api.create('/ip_policy_rules', {
      ip_policy_id: policy.id,
      cidr: '10.0.0.0/8',
      action: 'allow',
      metadata: 'gatehouse:v1 {"stack":"team-b","name":"x/10.0.0.0/8","hash":""}',
    });
    const dir = manifests(
      `kind: IPPolicy\nname: hand\nadopt: ${String(policy.id)}\nspec:\n  description: by hand\n  rules:\n    - {cidr: 10.0.0.0/8, action: allow}\n`,
    );
    const problems = await problemsOf(plan(api, dir, 'default'));
    expect(problems.map((p) => [p.code, p.at?.line])).toEqual([['owned_by_other_stack', 7]]);
    expect(problems[0]!.message).toMatch(
      /^the live IP policy rule ipr_\d+ \(under IPPolicy\/hand\) is owned by stack "team-b"; taking it over needs --from-stack team-b/,
    );
    const moved = await plan(api, dir, 'default', { fromStack: 'team-b' });
    expect(moved.changes.map((c) => [c.address, c.reason])).toEqual([
      ['IPPolicy/hand', 'adopted into stack "default"'],
      ['IPPolicyRule/hand/10.0.0.0/8', 'moved from stack "team-b"'],
    ]);
  });
});

describe('moving objects between stacks', () => {
  it('adopt: with --from-stack moves one object with its children; the old stack then sees the new owner, never a deletion', async () => {
    const api = new MemoryLiveApi();
    const dir = manifests(SET);
    await run(api, dir, 'default');
    const policy = api.objects('/ip_policies')[0]!;
    const office = SET.split('---\n')[0]!.replace('name: office\n', `name: office\nadopt: ${String(policy.id)}\n`);
    const platform = manifests(office);

    const planned = await plan(api, platform, 'platform', { fromStack: 'default' });
    expect(planned.from_stack).toBe('default');
    expect(planned.changes.map((c) => [c.address, c.action, c.reason])).toEqual([
      ['IPPolicy/office', 'update', 'moved from stack "default"'],
      ['IPPolicyRule/office/198.51.100.0/24', 'update', 'moved from stack "default"'],
      ['IPPolicyRule/office/203.0.113.0/24', 'update', 'moved from stack "default"'],
    ]);
    api.log.length = 0;
    expect((await run(api, platform, 'platform', 'default')).ok).toBe(true);
    expect(api.log.map((r) => r.method)).toEqual(['PATCH', 'PATCH', 'PATCH']);
    expect(stackOf(api, '/ip_policies')).toEqual(['platform']);
    expect(stackOf(api, '/ip_policy_rules')).toEqual(['platform', 'platform']);

    // adopt: is removed afterwards: the marker identifies it now.
    writeFileSync(join(platform, 'main.yaml'), office.replace(/adopt: .*\n/, ''));
    expect((await plan(api, platform, 'platform')).changes).toEqual([]);
    // The old stack's manifests still declare it: the collision names the new owner.
    const problems = await problemsOf(plan(api, dir, 'default'));
    expect(problems.map((p) => p.code)).toEqual(['owned_by_other_stack']);
    expect(problems[0]!.message).toContain(`${String(policy.id)} of stack "platform"`);
    // Once they do not: nothing to delete, listed as unmanaged (stack platform).
    writeFileSync(
      join(dir, 'main.yaml'),
      SET.split('---\n')
        .slice(1)
        .join('---\n')
        .replace('ip_policies: [office]', `ip_policies: [{id: ${String(policy.id)}}]`),
    );
    const old = await plan(api, dir, 'default');
    // (The restriction's reference is now written as an id: its recorded hash is refreshed.)
    expect(old.changes.map((c) => [c.address, c.cause])).toEqual([['IPRestriction/dashboard', 'marker']]);
    expect(old.unmanaged).toContainEqual({ kind: 'IPPolicy', id: policy.id, label: 'office (stack platform)' });
  });

  it("a rule the moved policy's new manifest leaves out stays with the old stack, which never deletes it from the new owner's policy", async () => {
    const api = new MemoryLiveApi();
    const dir = manifests(SET);
    await run(api, dir, 'default');
    const policy = api.objects('/ip_policies')[0]!;
    const office = SET.split('---\n')[0]!
      .replace('name: office\n', `name: office\nadopt: ${String(policy.id)}\n`)
      .replace(/ *- \{cidr: 198.51.100.0\/24.*\n/, '');
    expect((await run(api, manifests(office), 'platform', 'default')).ok).toBe(true);
    expect(stackOf(api, '/ip_policy_rules').sort()).toEqual(['default', 'platform']);
    // The old stack's manifests no longer declare the policy (nor the restriction using it):
    // its rule left inside the policy that platform owns now is listed, never deleted, even
    // with --prune.
    writeFileSync(join(dir, 'main.yaml'), SET.split('---\n').slice(2).join('---\n'));
    const old = await computePlan({ paths: [dir], env: {}, api, stack: 'default', prune: true });
    expect(old.changes.filter((c) => c.action === 'delete').map((c) => c.address)).toEqual(['IPRestriction/dashboard']);
    expect(old.unmanaged.map((u) => u.kind)).toContain('IPPolicyRule');
  });

  it('a move cut short is finished by the same command; until then the children left behind ask for --from-stack', async () => {
    const api = new MemoryLiveApi();
    const dir = manifests(SET);
    await run(api, dir, 'default');
    api.intercept = (request) => {
      if (request.path.startsWith('/ip_policy_rules/')) throw new LiveApiError('400 refused', 400, 'invalid', false);
      return undefined;
    };
    expect((await run(api, dir, 'platform', 'default')).ok).toBe(false);
    api.intercept = undefined;
    expect(stackOf(api, '/ip_policies')).toEqual(['platform']);
    expect(stackOf(api, '/ip_policy_rules')).toEqual(['default', 'default']);
    const problems = await problemsOf(plan(api, dir, 'platform'));
    expect(problems.map((p) => [p.code, p.at?.line])).toEqual([
      ['owned_by_other_stack', 6],
      ['owned_by_other_stack', 7],
    ]);
    expect((await run(api, dir, 'platform', 'default')).ok).toBe(true);
    expect(stackOf(api, '/ip_policy_rules')).toEqual(['platform', 'platform']);
    expect((await plan(api, dir, 'platform')).changes).toEqual([]);
  });

  it('renames a whole stack with --from-stack alone; both stacks replan as expected', async () => {
    const api = new MemoryLiveApi();
    const dir = manifests(SET);
    await run(api, dir, 'default');
    const objects = count(api);
    const warnings: Problem[] = [];
    const planned = await plan(api, dir, 'platform', { fromStack: 'default', onWarning: (w) => warnings.push(w) });
    expect(warnings).toEqual([]);
    expect(planned.summary).toMatchObject({ create: 0, update: 7, delete: 0 });
    expect(planned.changes.every((c) => c.reason === 'moved from stack "default"')).toBe(true);
    expect((await run(api, dir, 'platform', 'default')).ok).toBe(true);
    expect(count(api)).toBe(objects);
    expect(new Set([...api.collections.values()].flat().map((o) => parseMarker(o.metadata).marker?.stack))).toEqual(new Set(['platform']));
    expect((await plan(api, dir, 'platform')).changes).toEqual([]);
    // Rerunning the move: nothing to do, and a warning that the old stack owns nothing.
    const again = await plan(api, dir, 'platform', { fromStack: 'default', onWarning: (w) => warnings.push(w) });
    expect(again.changes).toEqual([]);
    expect(warnings.map((w) => w.code)).toEqual(['from_stack_empty']);
    expect(warnings[0]!.message).toContain('stack "default" owns no live object');
  });

  it('a saved plan keeps its --from-stack: applying it without the flag uses it, with another one fails', async () => {
    const api = new MemoryLiveApi();
    const dir = manifests(SET);
    await run(api, dir, 'default');
    const saved = await plan(api, dir, 'platform', { fromStack: 'default' });
    api.log.length = 0;
    // Refused as the saved plan's own: before live state is read (it would only collide there).
    await expect(applyPlan({ api, stack: 'platform', paths: [dir], env: {}, saved, fromStack: 'team-c' })).rejects.toThrow(
      /the saved plan was made with --from-stack default, not with --from-stack team-c/,
    );
    expect(api.log).toEqual([]);
    expect((await applyPlan({ api, stack: 'platform', paths: [dir], env: {}, saved })).ok).toBe(true);
    expect((await plan(api, dir, 'platform')).changes).toEqual([]);
  });
});

describe('renaming an object within a stack', () => {
  it('adopt: <id> under the new name rewrites the marker (no replace); then adopt: is removed', async () => {
    const api = new MemoryLiveApi();
    const dir = manifests(SET);
    await run(api, dir, 'default');
    const backend = api.objects('/backends/tunnel_group')[0]!;
    const renamed = SET.replace('name: web\nspec', `name: web-v2\nadopt: ${String(backend.id)}\nspec`).replace('{backend: web}', '{backend: web-v2}');
    writeFileSync(join(dir, 'main.yaml'), renamed);
    const planned = await plan(api, dir, 'default');
    expect(planned.changes.map((c) => [c.address, c.action, c.reason])).toEqual([
      ['Backend/web-v2', 'update', 'ownership marker refresh: records the manifest name "web-v2" (renamed from "web")'],
      // The route names the backend by its new name: the hash its marker records changes.
      ['HTTPSEdgeRoute/api//', 'update', 'ownership marker refresh: records the hash of the spec as applied'],
    ]);
    api.log.length = 0;
    await run(api, dir, 'default');
    expect(api.log.map((r) => r.method)).toEqual(['PATCH', 'PATCH']);
    expect(api.log[0]!.path).toBe(`/backends/tunnel_group/${String(backend.id)}`);
    writeFileSync(join(dir, 'main.yaml'), renamed.replace(/adopt: .*\n/, ''));
    expect((await plan(api, dir, 'default')).changes).toEqual([]);
    expect(api.objects('/backends/tunnel_group')).toHaveLength(1);
  });
});
