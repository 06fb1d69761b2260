/**
 * Duplicates and interrupted replaces (plan/duplicates.ts) through plan and apply against the
 * in-memory API: apply keeps one object per address, re-points every reference to it and
 * deletes the others, without --prune and without --force; a second plan is empty.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { manifestDirs } from '../testing/manifest-dirs.js';
import { computePlan } from '../engine.js';
import { detectDrift } from '../drift/detect.js';
import type { ApiObject } from '../ports.js';
import { applyPlan } from './apply.js';
import { composeMetadata } from '../identity/marker.js';
import { renderJson, renderKindSummary, renderMarkdown, renderText } from '../render/index.js';
import { renderDriftText } from '../drift/index.js';
import { MemoryLiveApi } from './memory-api.js';

const { manifests, cleanup } = manifestDirs('gatehouse-dup-');
afterEach(cleanup);
const apply = (api: MemoryLiveApi, dir: string, prune = false) => applyPlan({ api, stack: 'default', paths: [dir], env: {}, prune });
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

  it("a duplicate that another stack's or an unmanaged object references is not deleted: plan, apply and drift say what references it and what to do", async () => {
    const api = new MemoryLiveApi();
    const dir = manifests(MANIFESTS);
    expect((await apply(api, dir)).ok).toBe(true);
    const [office] = api.objects('/ip_policies');
    const [rule] = api.objects('/ip_policy_rules');
    const [web] = api.objects('/backends/tunnel_group');
    const officeCopy = copy(api, '/ip_policies', office!, 'ipp_900');
    copy(api, '/ip_policy_rules', rule!, 'ipr_901', { ip_policy: { id: 'ipp_900' } });
    const webCopy = copy(api, '/backends/tunnel_group', web!, 'bkdtg_902');
    // This stack's restriction uses the copy (re-pointed as before); another stack's restriction
    // and a failover backend nobody manages use the copies too.
    api.objects('/ip_restrictions')[0]!.ip_policies = [{ id: officeCopy.id }];
    api.collections.get('/ip_restrictions')!.push({
      id: 'ipx_950',
      type: 'api',
      enforced: false,
      ip_policies: [{ id: officeCopy.id }],
      metadata: composeMetadata(undefined, { stack: 'payments', name: 'api', hash: '0'.repeat(16) }),
    });
    api.collections.get('/backends/failover')!.push({ id: 'bkdfo_951', backends: [webCopy.id], description: 'made by hand' });

    const shown = await plan(api, dir);
    // Neither copy, nor the copy's rule, is deleted; this stack's restriction is still re-pointed.
    expect(shown.changes.filter((c) => c.action === 'delete')).toEqual([]);
    expect(shown.changes.find((c) => c.address === 'IPRestriction/dashboard')!.action).toBe('update');
    expect(shown.held_duplicates).toEqual([
      expect.objectContaining({
        address: 'Backend/web#bkdtg_902',
        id: 'bkdtg_902',
        keep: web!.id,
        referenced_by: [{ kind: 'Backend', id: 'bkdfo_951', owner: 'not managed by gatehouse' }],
      }),
      expect.objectContaining({
        address: 'IPPolicy/office#ipp_900',
        id: 'ipp_900',
        keep: office!.id,
        referenced_by: [{ kind: 'IPRestriction', id: 'ipx_950', owner: 'stack "payments"' }],
      }),
    ]);
    const sentence = `IPPolicy ipp_900 duplicates ${office!.id} (same stack and address), but is not deleted: IPRestriction ipx_950 (stack "payments") references it, and gatehouse does not change it here. Re-point it to ${office!.id}, then run apply again: it deletes the duplicate then`;
    expect(shown.held_duplicates![1]!.message).toBe(sentence);
    for (const rendered of [renderText(shown), renderKindSummary(shown), renderMarkdown(shown)]) {
      expect(rendered).toContain('Duplicate not deleted: IPPolicy ipp_900 duplicates');
      expect(rendered).toContain('Backend bkdfo_951 (not managed by gatehouse)');
    }
    expect(JSON.parse(renderJson(shown)).held_duplicates).toHaveLength(2);
    const drift = await detectDrift({ api, stack: 'default', paths: [dir], env: {} });
    expect(drift.summary.duplicate).toBe(2);
    expect(drift.objects.find((o) => o.id === 'ipp_900')).toMatchObject({ drift: 'duplicate', message: sentence });
    expect(renderDriftText(drift)).toContain('IPRestriction ipx_950 (stack "payments") references it');

    // Apply changes this stack's objects and leaves the copies (and what uses them) alone.
    const result = await apply(api, dir, true);
    expect(result.ok).toBe(true);
    expect(api.objects('/ip_policies').map((o) => o.id)).toEqual([office!.id, 'ipp_900']);
    expect(api.objects('/ip_policy_rules').map((o) => o.id)).toEqual([rule!.id, 'ipr_901']);
    expect(api.objects('/backends/tunnel_group').map((o) => o.id)).toEqual([web!.id, 'bkdtg_902']);
    expect(api.objects('/ip_restrictions')[0]!.ip_policies).toEqual([{ id: office!.id }]);
    expect(api.log.filter((r) => r.path.includes('ipx_950') || r.path.includes('bkdfo_951'))).toEqual([]);

    // Once they are re-pointed (by their owners), the next apply deletes the copies.
    api.objects('/ip_restrictions').find((r) => r.id === 'ipx_950')!.ip_policies = [{ id: office!.id }];
    api.objects('/backends/failover').find((b) => b.id === 'bkdfo_951')!.backends = [web!.id];
    expect((await plan(api, dir)).held_duplicates).toBeUndefined();
    expect((await apply(api, dir)).ok).toBe(true);
    expect(api.objects('/ip_policies').map((o) => o.id)).toEqual([office!.id]);
    expect(api.objects('/ip_policy_rules').map((o) => o.id)).toEqual([rule!.id]);
    expect(api.objects('/backends/tunnel_group').map((o) => o.id)).toEqual([web!.id]);
    expect((await plan(api, dir)).changes).toEqual([]);
  });
});
