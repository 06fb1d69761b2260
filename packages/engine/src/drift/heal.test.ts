/**
 * `selectHealable` against an in-memory API: each cause of drift runs only with the permission
 * that covers it, deletes need prune, and the rails are checked on what runs.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { manifestDirs } from '../testing/manifest-dirs.js';
import { MemoryLiveApi } from '../apply/memory-api.js';
import { applyPlan, executeApply } from '../apply/apply.js';
import { planApply, readForApply } from '../apply/prepare.js';
import { observe } from '../plan/observe.js';
import { parseMarker } from '../identity/marker.js';
import { classifyDrift } from './detect.js';
import { selectHealable, type HealPermissions } from './heal.js';

const { manifests, rewrite, cleanup } = manifestDirs('gatehouse-heal-');
afterEach(cleanup);

const MANIFESTS = `
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
---
kind: IPPolicy
name: lab
spec:
  description: Lab
---
kind: IPRestriction
name: dashboard
spec: {type: dashboard, enforced: true, ip_policies: [office]}
`;

async function prepared(api: MemoryLiveApi, dir: string, prune = true) {
  const read = await readForApply({ stack: 'default', paths: [dir], env: {} });
  const prepared = planApply({ api, stack: 'default', paths: [dir], prune }, read, await observe(api));
  const report = classifyDrift({ matching: prepared.matching, desired: read.read.desired, stack: 'default', target: api.target, requests: 0 });
  return { prepared, report };
}

/** Applied, then: the restriction changed outside, a rule deleted outside, vpn edited in git, lab removed from git. */
async function drifted() {
  const api = new MemoryLiveApi();
  const dir = manifests(MANIFESTS);
  expect((await applyPlan({ api, stack: 'default', paths: [dir], env: {} })).ok).toBe(true);
  const restriction = api.objects('/ip_restrictions')[0]!;
  await api.update(`/ip_restrictions/${String(restriction.id)}`, { enforced: false });
  const rule = api.objects('/ip_policy_rules').find((r) => r.cidr === '198.51.100.0/24')!;
  await api.remove(`/ip_policy_rules/${String(rule.id)}`);
  rewrite(dir, MANIFESTS.replace('description: VPN', 'description: VPN (new)').replace(/---\nkind: IPPolicy\nname: lab\nspec:\n {2}description: Lab\n/, ''));
  return { api, dir };
}

const addresses = (selection: ReturnType<typeof selectHealable>) => selection.selected.map((s) => `${s.cause} ${s.address}`).sort();

describe('selectHealable', () => {
  const cases: [string, HealPermissions, string[]][] = [
    [
      '--self-heal: only what changed or was deleted outside',
      { outside: true, git: false, prune: false },
      ['outside IPPolicyRule/office/198.51.100.0/24', 'outside IPRestriction/dashboard'],
    ],
    ["--apply-git: only the manifests' changes, no delete", { outside: false, git: true, prune: false }, ['git IPPolicy/vpn']],
    ['--apply-git --prune: the removal from git too', { outside: false, git: true, prune: true }, ['git IPPolicy/lab', 'git IPPolicy/vpn']],
    [
      '--self-heal --prune: still no delete from git',
      { outside: true, git: false, prune: true },
      ['outside IPPolicyRule/office/198.51.100.0/24', 'outside IPRestriction/dashboard'],
    ],
  ];
  it.each(cases)('%s', async (_title, allow, expected) => {
    const { api, dir } = await drifted();
    const { prepared: all, report } = await prepared(api, dir);
    const selection = selectHealable(all, report, allow);
    expect(addresses(selection)).toEqual(expected);
    expect(selection.prepared.refusals).toEqual([]);
    const held = new Map(selection.held.map((h) => [h.address, h.needs]));
    if (!allow.git) expect(held.get('IPPolicy/vpn')).toEqual(['--apply-git']);
    if (!allow.prune) expect(held.get('IPPolicy/lab')).toContain('--prune');
  });

  it('healing runs only the selected changes; a second selection on the new state finds nothing outside', async () => {
    const { api, dir } = await drifted();
    const first = await prepared(api, dir);
    const selection = selectHealable(first.prepared, first.report, { outside: true, git: false, prune: false });
    const result = await executeApply(selection.prepared, api, {});
    expect(result.ok).toBe(true);
    expect(result.steps.map((s) => s.address).sort()).toEqual(['IPPolicyRule/office/198.51.100.0/24', 'IPRestriction/dashboard']);
    expect(api.objects('/ip_restrictions')[0]!.enforced).toBe(true);
    // vpn kept its live description; lab is still there.
    expect(api.objects('/ip_policies').find((p) => parseMarker(p.metadata).marker?.name === 'vpn')!.description).toBe('VPN');
    expect(api.objects('/ip_policies').some((p) => parseMarker(p.metadata).marker?.name === 'lab')).toBe(true);
    const again = await prepared(api, dir);
    expect(selectHealable(again.prepared, again.report, { outside: true, git: false, prune: false }).selected).toEqual([]);
  });

  it('an object changed outside whose manifests changed too waits for --apply-git', async () => {
    const api = new MemoryLiveApi();
    const dir = manifests(MANIFESTS);
    await applyPlan({ api, stack: 'default', paths: [dir], env: {} });
    const restriction = api.objects('/ip_restrictions')[0]!;
    await api.update(`/ip_restrictions/${String(restriction.id)}`, { enforced: false });
    rewrite(dir, MANIFESTS.replace('spec: {type: dashboard, enforced: true', 'spec: {type: dashboard, description: new, enforced: true'));
    const { prepared: all, report } = await prepared(api, dir);
    expect(report.objects[0]).toMatchObject({ drift: 'changed_outside', manifests_changed: true });
    const selection = selectHealable(all, report, { outside: true, git: false, prune: false });
    expect(selection.selected).toEqual([]);
    expect(selection.held).toEqual([{ address: 'IPRestriction/dashboard', cause: 'outside', needs: ['--apply-git'] }]);
  });

  it('a top-level object deleted outside is missing without evidence, and deleted outside when the previous reading saw it live', async () => {
    const api = new MemoryLiveApi();
    const dir = manifests(MANIFESTS);
    await applyPlan({ api, stack: 'default', paths: [dir], env: {} });
    const lab = api.objects('/ip_policies').find((p) => parseMarker(p.metadata).marker?.name === 'lab')!;
    await api.remove(`/ip_policies/${String(lab.id)}`);
    const read = await readForApply({ stack: 'default', paths: [dir], env: {} });
    const all = planApply({ api, stack: 'default', paths: [dir], prune: true }, read, await observe(api));
    const classify = (seenLive?: ReadonlySet<string>) =>
      classifyDrift({
        matching: all.matching,
        desired: read.read.desired,
        stack: 'default',
        target: api.target,
        requests: 0,
        ...(seenLive ? { seenLive } : {}),
      });
    expect(classify().objects).toEqual([expect.objectContaining({ address: 'IPPolicy/lab', drift: 'missing' })]);
    const seen = classify(new Set(['IPPolicy/lab']));
    expect(seen.objects).toEqual([
      expect.objectContaining({ address: 'IPPolicy/lab', drift: 'deleted_outside', message: 'deleted outside gatehouse: it was live at the previous reading' }),
    ]);
    expect(selectHealable(all, seen, { outside: true, git: false, prune: false }).selected).toEqual([{ address: 'IPPolicy/lab', cause: 'outside' }]);
  });
});
