/**
 * The request budget of a plan: live state is read with paginated lists only, so a plan of N
 * objects costs about N/100 list requests per collection and never a request per object.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { computePlan, composeMetadata } from './index.js';
import { FakeLiveApi } from './testing/fake-api.js';

test('a plan of 1,000 policies with 3,000 rules costs ceil(N/100) list pages per collection', async () => {
  const policies = 1000;
  const docs: string[] = [];
  const livePolicies: Record<string, unknown>[] = [];
  const liveRules: Record<string, unknown>[] = [];
  for (let i = 0; i < policies; i += 1) {
    const cidrs = [0, 1, 2].map((j) => `10.${i % 250}.${j + 4 * Math.floor(i / 250)}.0/24`);
    docs.push(
      `kind: IPPolicy\nname: p${i}\nspec:\n  description: policy ${i}\n  rules:\n${cidrs.map((c) => `    - {cidr: ${c}, action: allow}`).join('\n')}\n`,
    );
    livePolicies.push({
      id: `ipp_${i}`,
      uri: '',
      created_at: '',
      description: `policy ${i}`,
      metadata: composeMetadata(undefined, { stack: 'default', name: `p${i}`, hash: 'x' }),
    });
    cidrs.forEach((cidr, j) =>
      liveRules.push({
        id: `ipr_${i}_${j}`,
        cidr,
        action: 'allow',
        ip_policy: { id: `ipp_${i}`, uri: '' },
        metadata: composeMetadata(undefined, { stack: 'default', name: `p${i}/${cidr}`, hash: 'x' }),
      }),
    );
  }
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-budget-'));
  writeFileSync(join(dir, 'policies.yaml'), docs.join('---\n'));
  const api = new FakeLiveApi({ '/ip_policies': livePolicies, '/ip_policy_rules': liveRules });

  const plan = await computePlan({ paths: [dir], api, stack: 'default' });

  // Every object is paired; the markers carry a made-up hash, so each is shown as a refresh.
  expect(plan.summary).toEqual({ create: 0, update: 4000, delete: 0, replace: 0, unchanged: 0 });
  expect(plan.changes.every((c) => c.cause === 'marker' && c.fields.length === 0)).toBe(true);
  const perPath = new Map<string, number>();
  for (const request of api.requests) {
    expect(request.method).toBe('GET');
    const path = request.path.split('?')[0]!;
    perPath.set(path, (perPath.get(path) ?? 0) + 1);
  }
  expect(perPath.get('/ip_policies')).toBe(10);
  expect(perPath.get('/ip_policy_rules')).toBe(30);
  // Every other collection is read once (one empty page), and nothing is read per object.
  for (const [path, count] of perPath) if (!path.startsWith('/ip_polic')) expect(count).toBe(1);
  expect(api.requestCount).toBe(10 + 30 + (perPath.size - 2));
  expect(plan.requests).toBe(api.requestCount);
});

test("the count includes the pages that lock objects fill: 100 policies and an apply's lock record are two pages", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-budget-'));
  const docs = Array.from({ length: 100 }, (_, i) => `kind: IPPolicy\nname: p${i}\nspec:\n  description: policy ${i}\n`);
  writeFileSync(join(dir, 'policies.yaml'), docs.join('---\n'));
  const livePolicies: Record<string, unknown>[] = docs.map((_, i) => ({
    id: `ipp_${i}`,
    uri: '',
    created_at: '',
    description: `policy ${i}`,
    metadata: composeMetadata(undefined, { stack: 'default', name: `p${i}`, hash: 'x' }),
  }));
  const record = {
    stack: 'default',
    holder: 'ci@runner (pid 1)',
    run_id: 'r',
    started_at: new Date().toISOString(),
    lease_seconds: 3600,
    bot_user_id: 'bot_lock',
  };
  livePolicies.push({ id: 'ipp_lock', uri: '', created_at: '', description: 'gatehouse lock', metadata: `gatehouse-lock:v1 ${JSON.stringify(record)}` });
  const api = new FakeLiveApi({ '/ip_policies': livePolicies, '/bot_users': [{ id: 'bot_lock', name: 'gatehouse-lock.default', active: false }] });

  const plan = await computePlan({ paths: [dir], api, stack: 'default' });

  expect(api.requests.filter((r) => r.path.startsWith('/ip_policies'))).toHaveLength(2);
  expect(plan.lock?.bot_user_id).toBe('bot_lock');
  expect(plan.requests).toBe(api.requestCount);
});
