/**
 * Duplicates and interrupted replaces (steps/duplicates.ts) through plan and apply against the
 * in-memory API: apply keeps one object per address, re-points every reference to it and
 * deletes the others, without --prune and without --force; a second plan is empty.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { computePlan } from '../engine.js';
import { detectDrift } from '../drift/detect.js';
import type { ApiObject } from '../ports.js';
import { applyPlan } from './apply.js';
import { MemoryLiveApi } from './memory-api.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function manifests(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-dup-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'main.yaml'), text);
  return dir;
}
const apply = (api: MemoryLiveApi, dir: string, prune = false) => applyPlan({ api, stack: 'default', paths: [dir], env: {}, delay: async () => {}, prune });
const plan = (api: MemoryLiveApi, dir: string) => computePlan({ api, stack: 'default', paths: [dir], env: {} });

const MANIFESTS = `
kind: IPPolicy
name: office
spec:
  description: Office
  rules:
    - {cidr: 203.0.113.0/24, action: allow}
---
kind: IPRestriction
name: dashboard
spec: {type: dashboard, enforced: true, ip_policies: [office]}
---
kind: Backend
name: web
spec: {type: tunnel_group, labels: {app: web}}
---
kind: Backend
name: fo
spec: {type: failover, backends: [web]}
`;

/** A copy of a live object made outside gatehouse (same metadata, so same marker), newer. */
function copy(api: MemoryLiveApi, path: string, object: ApiObject, id: string, changes: ApiObject = {}): ApiObject {
  const twin = { ...structuredClone(object), id, ...changes };
  api.collections.get(path)!.push(twin);
  return twin;
}

describe('duplicates', () => {
  it('a duplicate made by hand is resolved: the oldest kept, every reference re-pointed, the copy deleted without --prune', async () => {
    const api = new MemoryLiveApi();
    const dir = manifests(MANIFESTS);
    expect((await apply(api, dir)).ok).toBe(true);
    const [office] = api.objects('/ip_policies');
    const [rule] = api.objects('/ip_policy_rules');
    const [web] = api.objects('/backends/tunnel_group');
    const officeCopy = copy(api, '/ip_policies', office!, 'ipp_900');
    copy(api, '/ip_policy_rules', rule!, 'ipr_901', { ip_policy: { id: 'ipp_900' } });
    const webCopy = copy(api, '/backends/tunnel_group', web!, 'bkdtg_902');
    // The references point at the copies.
    api.objects('/ip_restrictions')[0]!.ip_policies = [{ id: officeCopy.id }];
    api.objects('/backends/failover')[0]!.backends = [webCopy.id];

    const shown = await plan(api, dir);
    const deletes = shown.changes.filter((c) => c.action === 'delete');
    expect(deletes.map((c) => [c.address, c.duplicate?.keep])).toEqual(
      expect.arrayContaining([
        ['IPPolicy/office#ipp_900', office!.id],
        ['IPPolicyRule/office/203.0.113.0/24#ipr_901', office!.id],
        ['Backend/web#bkdtg_902', web!.id],
      ]),
    );
    // Re-pointing is an update the plan shows, and the deletes wait for it.
    const restriction = shown.changes.find((c) => c.address === 'IPRestriction/dashboard')!;
    expect(restriction.action).toBe('update');
    expect(shown.changes.find((c) => c.address === 'IPPolicy/office#ipp_900')!.dependsOn).toContain('IPRestriction/dashboard');
    expect(shown.changes.find((c) => c.address === 'Backend/web#bkdtg_902')!.dependsOn).toContain('Backend/fo');
    const drift = await detectDrift({ api, stack: 'default', paths: [dir], env: {} });
    expect(drift.summary.duplicate).toBe(3);

    const result = await apply(api, dir);
    expect(result.ok).toBe(true);
    expect(api.objects('/ip_policies').map((o) => o.id)).toEqual([office!.id]);
    expect(api.objects('/ip_policy_rules').map((o) => o.id)).toEqual([rule!.id]);
    expect(api.objects('/backends/tunnel_group').map((o) => o.id)).toEqual([web!.id]);
    expect(api.objects('/ip_restrictions')[0]!.ip_policies).toEqual([{ id: office!.id }]);
    expect(api.objects('/backends/failover')[0]!.backends).toEqual([web!.id]);
    // Re-pointed before deleting.
    const log = api.log.map((r) => `${r.method} ${r.path}`);
    expect(log.indexOf(`DELETE /ip_policies/ipp_900`)).toBeGreaterThan(log.findIndex((l) => l.startsWith('PATCH /ip_restrictions/')));
    expect((await plan(api, dir)).changes).toEqual([]);
  });

  it('an interrupted replace (old and new object, same marker) is finished by a plain rerun', async () => {
    const api = new MemoryLiveApi();
    const dir = manifests(MANIFESTS);
    expect((await apply(api, dir)).ok).toBe(true);
    const [web] = api.objects('/backends/tunnel_group');
    // The manifests change an immutable field; apply creates the replacement and is killed
    // before deleting the old one: both carry the marker, the new one the new hash.
    writeFileSync(join(dir, 'main.yaml'), MANIFESTS.replace('{type: tunnel_group, labels: {app: web}}', '{type: http_response, body: gone, status_code: 410}'));
    api.intercept = (request) => {
      if (request.method === 'DELETE') throw new Error('killed');
      return undefined;
    };
    await apply(api, dir).catch(() => undefined);
    api.intercept = undefined;
    expect(api.objects('/backends/tunnel_group')).toHaveLength(1);
    const [replacement] = api.objects('/backends/http_response');
    expect(replacement).toBeDefined();

    const shown = await plan(api, dir);
    const leftover = shown.changes.find((c) => c.id === web!.id)!;
    expect(leftover).toMatchObject({ action: 'delete', duplicate: { keep: replacement!.id, cause: 'interrupted_replace' } });
    const result = await apply(api, dir);
    expect(result.ok).toBe(true);
    expect(result.summary.not_pruned).toBe(0);
    expect(api.objects('/backends/tunnel_group')).toEqual([]);
    expect(api.objects('/backends/failover')[0]!.backends).toEqual([replacement!.id]);
    expect((await plan(api, dir)).changes).toEqual([]);
  });
});
