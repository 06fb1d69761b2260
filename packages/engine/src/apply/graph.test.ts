/**
 * Orders the dependency graph gives beyond parents-first: deletes after the updates that stop
 * referencing the deleted object, a create claiming a hostport after the delete of its holder,
 * and re-pointing through an update that has changes of its own.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { applyPlan } from './apply.js';
import { MemoryLiveApi } from './memory-api.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function repo(text: string) {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-graph-'));
  dirs.push(dir);
  const write = (t: string) => writeFileSync(join(dir, 'main.yaml'), t);
  write(text);
  return { dir, write };
}
const apply = (api: MemoryLiveApi, dir: string, force = false) => applyPlan({ api, stack: 'default', paths: [dir], env: {}, prune: true, force });
const calls = (api: MemoryLiveApi) => api.log.map((r) => `${r.method} ${r.path.replace(/_\d+/g, '_*')}`);

it('deletes an object only after the update that stops referencing it', async () => {
  const api = new MemoryLiveApi();
  const { dir, write } = repo(
    'kind: Backend\nname: a\nspec: {type: tunnel_group, labels: {app: x}}\n---\nkind: Backend\nname: b\nspec: {type: tunnel_group, labels: {app: x}}\n---\nkind: Backend\nname: fo\nspec: {type: failover, backends: [a, b]}\n',
  );
  expect((await apply(api, dir)).ok).toBe(true);
  api.log.length = 0;
  write('kind: Backend\nname: b\nspec: {type: tunnel_group, labels: {app: x}}\n---\nkind: Backend\nname: fo\nspec: {type: failover, backends: [b]}\n');
  expect((await apply(api, dir)).ok).toBe(true);
  expect(calls(api)).toEqual(['PATCH /backends/failover/bkdfo_*', 'DELETE /backends/tunnel_group/bkdtg_*']);
});

it('creates an edge claiming a hostport only after the edge holding it is deleted', async () => {
  const api = new MemoryLiveApi();
  const { dir, write } = repo('kind: TCPEdge\nname: old\nspec: {hostports: ["1.tcp.example.com:20000"]}\n');
  expect((await apply(api, dir)).ok).toBe(true);
  api.log.length = 0;
  write('kind: TCPEdge\nname: new\nspec: {hostports: ["1.tcp.example.com:20000"]}\n');
  expect((await apply(api, dir)).ok).toBe(true);
  expect(calls(api)).toEqual(['DELETE /edges/tcp/edgtcp_*', 'POST /edges/tcp']);
});

it('re-points a referrer that has its own update within that update', async () => {
  const api = new MemoryLiveApi();
  const { dir, write } = repo(
    'kind: Backend\nname: a\nspec: {type: tunnel_group, labels: {app: x}}\n---\nkind: Backend\nname: fo\nspec: {type: failover, description: one, backends: [a]}\n',
  );
  expect((await apply(api, dir)).ok).toBe(true);
  api.log.length = 0;
  write('kind: Backend\nname: a\nspec: {type: http_response}\n---\nkind: Backend\nname: fo\nspec: {type: failover, description: two, backends: [a]}\n');
  const result = await apply(api, dir);
  expect(result.ok).toBe(true);
  expect(calls(api)).toEqual(['POST /backends/http_response', 'PATCH /backends/failover/bkdfo_*', 'DELETE /backends/tunnel_group/bkdtg_*']);
  const patch = api.log[1]!.body!;
  expect(patch).toMatchObject({ description: 'two', backends: [api.objects('/backends/http_response')[0]!.id] });
  expect(result.steps.map((s) => `${s.action} ${s.address}`).sort()).toEqual(['replace Backend/a', 'update Backend/fo']);
});

it('deletes the rules of a policy a dashboard restriction stops using only after that update (a renamed policy)', async () => {
  // The service refuses to delete the last rule of a policy a dashboard restriction uses.
  const api = new MemoryLiveApi();
  const policy = (name: string) => `kind: IPPolicy\nname: ${name}\nspec: {rules: [{cidr: 203.0.113.0/24, action: allow}]}\n`;
  const restriction = (name: string) => `kind: IPRestriction\nname: dashboard\nspec: {type: dashboard, enforced: true, ip_policies: [${name}]}\n`;
  const { dir, write } = repo(`${policy('office')}---\n${restriction('office')}`);
  expect((await apply(api, dir)).ok).toBe(true);
  api.log.length = 0;
  write(`${policy('office2')}---\n${restriction('office2')}`);
  expect((await apply(api, dir)).ok).toBe(true);
  const log = calls(api);
  const update = log.indexOf('PATCH /ip_restrictions/ipx_*');
  expect(update).toBeGreaterThanOrEqual(0);
  expect(log.indexOf('DELETE /ip_policy_rules/ipr_*')).toBeGreaterThan(update);
});

it('deletes the rules of a policy a dashboard restriction uses only after the restriction is deleted', async () => {
  // Everything pruned at once: were the rules' deletes not ordered after the restriction's, the
  // service would refuse the last one whenever it ran first. The restriction's delete is made
  // slow so that any part free to run before it does.
  const api = new MemoryLiveApi();
  const backend = 'kind: Backend\nname: kept\nspec: {type: tunnel_group, labels: {app: x}}\n';
  const { dir, write } = repo(
    `${backend}---\nkind: IPPolicy\nname: office\nspec: {rules: [{cidr: 203.0.113.0/24, action: allow}]}\n---\nkind: IPRestriction\nname: dashboard\nspec: {type: dashboard, enforced: true, ip_policies: [office]}\n`,
  );
  expect((await apply(api, dir)).ok).toBe(true);
  api.log.length = 0;
  api.intercept = async (request) => {
    if (request.method === 'DELETE' && request.path.startsWith('/ip_restrictions/')) await new Promise((resolve) => setTimeout(resolve, 50));
    return undefined;
  };
  write(backend);
  expect((await apply(api, dir, true)).ok).toBe(true);
  expect(calls(api)).toEqual(['DELETE /ip_restrictions/ipx_*', 'DELETE /ip_policy_rules/ipr_*', 'DELETE /ip_policies/ipp_*']);
});
