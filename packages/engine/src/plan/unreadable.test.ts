/**
 * Kinds the account cannot list (404 route_not_found: not served; 403: the plan lacks the
 * feature): a plan that declares none of their objects goes on and says which kinds it could
 * not read, in every format and in drift and export; one that declares one stops at it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { detectDrift } from '../drift/detect.js';
import { renderDriftHtml } from '../drift/html.js';
import { renderDriftJson, renderDriftMarkdown, renderDriftText } from '../drift/render.js';
import { computePlan } from '../engine.js';
import { exportLive } from '../export/export.js';
import { LiveApiError, type ApiObject } from '../ports.js';
import { ManifestProblems } from '../problems.js';
import { renderHtml, renderJson, renderMarkdown, renderText } from '../render/index.js';
import { FakeLiveApi } from '../testing/fake-api.js';
import { manifestDirs } from '../testing/manifest-dirs.js';

const { manifests, cleanup } = manifestDirs('gatehouse-unreadable-');
afterEach(cleanup);

/** The fake API, answering `refused` list paths with an error as the service would. */
class PartialApi extends FakeLiveApi {
  constructor(
    collections: Record<string, ApiObject[]>,
    private readonly refused: Record<string, { status: number; code: string }>,
  ) {
    super(collections);
  }

  override async *list(path: string, listKey: string): AsyncIterable<ApiObject> {
    const refusal = this.refused[path];
    if (refusal) throw new LiveApiError(`GET ${path}?limit=100: ${refusal.status} ${refusal.code}`, refusal.status, refusal.code, false);
    yield* super.list(path, listKey);
  }
}

const POLICY = 'kind: IPPolicy\nname: office\nspec: {rules: [{cidr: 10.0.0.0/8, action: allow}]}\n';
const STATIC_404 = { '/backends/static': { status: 404, code: 'route_not_found' } };
const EDGES_403 = { '/edges/https': { status: 403, code: 'feature_not_in_plan' } };
const owned = (name: string) => `gatehouse:v1 {"stack":"default","name":"${name}","hash":"0000000000000000","path":"x.yaml"}`;

describe('a kind the account cannot list', () => {
  it('when the manifests declare none of it, the plan goes on and says so in every format', async () => {
    // An object of the stack sits there: it is not deleted, since it was never seen.
    const api = new PartialApi(
      { '/backends/static': [{ id: 'bkdsc_1', address: 'a:1', tls: { enabled: false }, metadata: owned('old') }] },
      { ...STATIC_404, ...EDGES_403 },
    );
    const plan = await computePlan({ api, stack: 'default', paths: [manifests(POLICY)], env: {}, prune: true });
    expect(plan.unreadable).toEqual([
      { kind: 'Backend', path: '/backends/static', status: 404, code: 'route_not_found' },
      { kind: 'HTTPSEdge', path: '/edges/https', status: 403, code: 'feature_not_in_plan', with: ['HTTPSEdgeRoute'] },
    ]);
    expect(plan.changes.map((c) => [c.address, c.action])).toEqual([
      ['IPPolicy/office', 'create'],
      ['IPPolicyRule/office/10.0.0.0/8', 'create'],
    ]);
    const heading = '2 kinds the account cannot list: not read, so none of their objects was planned, and none can be pruned';
    expect(renderText(plan)).toContain(
      `Warning: ${heading}:\n    Backend at /backends/static: 404 route_not_found: the API does not serve it\n    HTTPSEdge (and its HTTPSEdgeRoute) at /edges/https: 403 feature_not_in_plan: the account's plan does not include it\n`,
    );
    expect(renderMarkdown(plan)).toContain(`> **Warning:** ${heading}:\n> - Backend at /backends/static: 404 route_not_found: the API does not serve it`);
    expect(renderHtml(plan)).toContain('<div class="targets" id="unreadable"><p><strong>Warning:</strong> 2 kinds the account cannot list');
    expect(JSON.parse(renderJson(plan)).unreadable).toEqual(plan.unreadable);
  });

  it('when the manifests declare an object of it, nothing is planned: a problem at each such object', async () => {
    const api = new PartialApi({}, { ...STATIC_404, ...EDGES_403 });
    const dir = manifests(
      `${POLICY}---\nkind: Backend\nname: db\nspec: {type: static, address: "db.internal:5432"}\n---\nkind: Backend\nname: web\nspec: {type: tunnel_group, labels: {app: web}}\n---\nkind: HTTPSEdge\nname: api\nspec: {routes: [{match_type: path_prefix, match: /}]}\n`,
    );
    const failure = await computePlan({ api, stack: 'default', paths: [dir], env: {} }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ManifestProblems);
    expect((failure as ManifestProblems).problems.map((p) => [p.code, p.at?.line, p.message])).toEqual([
      [
        'kind_unreadable',
        5,
        expect.stringContaining('Backend/db cannot be planned: the account cannot list /backends/static (404 route_not_found: the API does not serve it)'),
      ],
      [
        'kind_unreadable',
        13,
        expect.stringContaining(
          "HTTPSEdge/api cannot be planned: the account cannot list /edges/https (403 feature_not_in_plan: the account's plan does not include it)",
        ),
      ],
      ['kind_unreadable', 15, expect.stringContaining('HTTPSEdgeRoute/api//')],
    ]);
  });

  it('drift and export say which kinds they could not read', async () => {
    const api = new PartialApi({}, STATIC_404);
    const options = { api, stack: 'default', paths: [manifests(POLICY)], env: {} };
    const report = await detectDrift(options);
    expect(report.unreadable).toEqual([{ kind: 'Backend', path: '/backends/static', status: 404, code: 'route_not_found' }]);
    const said = 'One kind the account cannot list: not read, so none of its objects was checked for drift, and none can be pruned';
    expect(renderDriftText(report)).toContain(`Warning: ${said}:\n    Backend at /backends/static: 404 route_not_found`);
    expect(renderDriftMarkdown(report)).toContain(`> **Warning:** ${said}:`);
    expect(renderDriftHtml(report)).toContain('id="unreadable"');
    expect(JSON.parse(renderDriftJson(report)).unreadable).toEqual(report.unreadable);
    expect((await exportLive({ api, stack: 'default' })).unreadable).toEqual(report.unreadable);
  });

  it('is no missing feature when nothing at all can be listed: that failure is the error', async () => {
    const everything = Object.fromEntries(
      ['/ip_policies', '/ip_policy_rules', '/ip_restrictions', '/bot_users'].map((p) => [p, { status: 403, code: 'forbidden' }]),
    );
    class NothingApi extends PartialApi {
      override async *list(path: string): AsyncIterable<ApiObject> {
        yield* [];
        throw new LiveApiError(`GET ${path}: 403 forbidden`, 403, 'forbidden', false);
      }
    }
    await expect(computePlan({ api: new NothingApi({}, everything), stack: 'default', paths: [manifests(POLICY)], env: {} })).rejects.toThrow(/403 forbidden/);
  });
});
