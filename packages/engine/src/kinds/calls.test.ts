/** The API calls each descriptor turns a change into: apply executes exactly these. */
import { expect, test } from 'vitest';
import { descriptor } from './index.js';
import type { CallContext } from './types.js';

const ids: Record<string, string> = { 'IPPolicy/office': 'ipp_1', 'Backend/web': 'bkdtg_1', 'Backend/sorry': 'bkdhr_1' };
const ctx = (extra: Partial<CallContext> = {}): CallContext => ({ resolve: (t) => ids[t] ?? t, ...extra });

test('IP restriction create: ids for references, metadata with the marker', () => {
  const d = descriptor('IPRestriction');
  const normal = d.fromManifest({ type: 'api', ip_policies: ['IPPolicy/office', 'ipp_x'] }, 'r');
  expect(d.calls.create(normal, ctx({ metadata: 'MARK' }))).toEqual([
    { method: 'POST', path: '/ip_restrictions', body: { description: '', metadata: 'MARK', type: 'api', enforced: false, ip_policy_ids: ['ipp_1', 'ipp_x'] } },
  ]);
});

test('IP policy rule create names its policy', () => {
  const d = descriptor('IPPolicyRule');
  const [call] = d.calls.create(d.fromManifest({ cidr: '10.0.0.0/8', action: 'deny' }, 'p'), ctx({ parentId: 'ipp_1', metadata: 'M' }));
  expect(call).toEqual({
    method: 'POST',
    path: '/ip_policy_rules',
    body: { description: '', metadata: 'M', cidr: '10.0.0.0/8', action: 'deny', ip_policy_id: 'ipp_1' },
  });
});

test('route update: PATCH plain fields, PUT changed modules, DELETE removed ones', () => {
  const d = descriptor('HTTPSEdgeRoute');
  const before = d.fromManifest({ match_type: 'path_prefix', match: '/', compression: {}, backend: { backend: 'Backend/web' } }, 'e');
  const after = d.fromManifest({ match_type: 'exact_path', match: '/', backend: { backend: 'Backend/sorry' } }, 'e');
  const calls = d.calls.update(before, after, ['backend', 'compression', 'match_type'], ctx({ id: 'rt_1', parentId: 'edg_1' }));
  expect(calls).toEqual([
    { method: 'PATCH', path: '/edges/https/edg_1/routes/rt_1', body: { match_type: 'exact_path' } },
    { method: 'PUT', path: '/edges/https/edg_1/routes/rt_1/backend', body: { enabled: true, backend_id: 'bkdhr_1' } },
    { method: 'DELETE', path: '/edges/https/edg_1/routes/rt_1/compression' },
  ]);
});

test('failover and weighted backends resolve their members to ids', () => {
  const d = descriptor('Backend');
  const failover = d.fromManifest({ type: 'failover', backends: ['Backend/web', 'Backend/sorry'] }, 'f');
  expect(d.calls.create(failover, ctx())[0]).toMatchObject({ path: '/backends/failover', body: { backends: ['bkdtg_1', 'bkdhr_1'] } });
  const weighted = d.fromManifest({ type: 'weighted', backends: { 'Backend/web': 90, 'Backend/sorry': 10 } }, 'w');
  expect(d.calls.update(weighted, weighted, ['backends'], ctx({ id: 'bkdwd_1' }))).toEqual([
    { method: 'PATCH', path: '/backends/weighted/bkdwd_1', body: { backends: { bkdhr_1: 10, bkdtg_1: 90 } } },
  ]);
});

test('bot users are PATCHed with their changed fields only', () => {
  const d = descriptor('BotUser');
  expect(d.calls.update({ name: 'b', active: true }, { name: 'b', active: false }, ['active'], ctx({ id: 'bot_1' }))).toEqual([
    { method: 'PATCH', path: '/bot_users/bot_1', body: { active: false } },
  ]);
});
