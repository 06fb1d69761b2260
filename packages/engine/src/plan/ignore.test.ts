/**
 * Ignore rules end to end in memory: parsing and matching of paths, what plan, drift and apply
 * do with an ignored field (never a change, never drift, never written; the manifest's value on
 * create), the marker's hash, gatehouse.yaml's project-wide rules, and validate's problems.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { manifestDirs } from '../testing/manifest-dirs.js';
import { MemoryLiveApi } from '../apply/memory-api.js';
import { applyPlan } from '../apply/apply.js';
import { computePlan, validateManifests } from '../engine.js';
import { detectDrift } from '../drift/detect.js';
import { parseMarker } from '../identity/marker.js';
import { formatIgnorePath, parseIgnorePath } from '../identity/ignore-path.js';
import { overlayIgnored, withoutIgnored } from '../identity/ignored-fields.js';
import { canonicalJson } from '../identity/canonical-json.js';
import { renderText } from '../render/text.js';
import { renderMarkdown } from '../render/markdown.js';
import { renderHtml } from '../render/html.js';
import { parsePlanJson, renderJson } from '../render/json.js';
import type { ProjectIgnoreRule } from './ignore.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readProject } from '../environments/project.js';

const { manifests, rewrite, cleanup } = manifestDirs('gatehouse-ignore-');
afterEach(cleanup);

describe('parseIgnorePath', () => {
  it.each([
    ['description', ['description']],
    ['routes[*].circuit_breaker', ['routes', '*', 'circuit_breaker']],
    ['routes.*.circuit_breaker', ['routes', '*', 'circuit_breaker']],
    ['labels.*', ['labels', '*']],
    ['request_headers.add["x.y"]', ['request_headers', 'add', 'x.y']],
    ['target.http.url', ['target', 'http', 'url']],
  ])('%s', (text, pattern) => {
    expect(parseIgnorePath(text)).toEqual({ pattern });
  });

  it.each([
    ['', /empty/],
    ['rules[0].description', /list position.*\[\*\]/],
    ['routes[*', /not closed/],
    ['description.', /ends with a dot/],
    ['[*].x', /starts with a field name/],
    ['desc*', /stands alone/],
    ['a b', /expected \. or \[/],
    ['labels["*"]', /every key/],
    ['labels[x]', /neither \[\*\] nor a quoted key/],
  ])('refuses %j', (text, message) => {
    const parsed = parseIgnorePath(text);
    expect('error' in parsed && parsed.error).toMatch(message);
  });

  it('formats a pattern back as it is written', () => {
    expect(formatIgnorePath(['routes', '*', 'circuit_breaker'])).toBe('routes[*].circuit_breaker');
    expect(formatIgnorePath(['headers', 'x.y'])).toBe('headers["x.y"]');
  });
});

describe('overlayIgnored and withoutIgnored', () => {
  const same = (a: unknown, b: unknown) => canonicalJson(a) === canonicalJson(b);

  it('takes the live value of an ignored field, adds and removes it as live has it', () => {
    const desired = { description: 'git', enforced: true };
    expect(overlayIgnored(desired, { description: 'hand', enforced: false }, [['description']], same)).toEqual({ description: 'hand', enforced: true });
    expect(overlayIgnored(desired, { enforced: true }, [['description']], same)).toEqual({ enforced: true });
    expect(overlayIgnored({ enforced: true }, { description: 'hand' }, [['description']], same)).toEqual({ enforced: true, description: 'hand' });
  });

  it('returns the desired object itself when nothing ignored differs', () => {
    const desired = { description: 'same', module: { a: 1 } };
    expect(overlayIgnored(desired, { description: 'same', module: { a: 2 } }, [['description']], same)).toBe(desired);
  });

  it('overlays inside a module only when both sides have it; * visits every key both sides have', () => {
    const desired = { cb: { enabled: true, tripped_duration: 10 } };
    expect(overlayIgnored(desired, { cb: { enabled: true, tripped_duration: 30 } }, [['cb', 'tripped_duration']], same)).toEqual({
      cb: { enabled: true, tripped_duration: 30 },
    });
    // The module removed by the manifest is a change of the module, not of the ignored field in it.
    expect(overlayIgnored({}, { cb: { tripped_duration: 30 } }, [['cb', 'tripped_duration']], same)).toEqual({});
    const target = { target: { http: { url: 'a', x: 1 }, s3: { url: 'b' } } };
    expect(overlayIgnored(target, { target: { http: { url: 'A', x: 2 } } }, [['target', '*', 'url']], same)).toEqual({
      target: { http: { url: 'A', x: 1 }, s3: { url: 'b' } },
    });
  });

  it('pairs list elements by position; a final * takes the whole list', () => {
    const desired = {
      sources: [
        { type: 'a', filter: 'x' },
        { type: 'b', filter: 'y' },
      ],
    };
    expect(overlayIgnored(desired, { sources: [{ type: 'a', filter: 'X' }] }, [['sources', '*', 'filter']], same)).toEqual({
      sources: [
        { type: 'a', filter: 'X' },
        { type: 'b', filter: 'y' },
      ],
    });
    expect(overlayIgnored({ scopes: ['a'] }, { scopes: ['b', 'c'] }, [['scopes', '*']], same)).toEqual({ scopes: ['b', 'c'] });
  });

  it('drops ignored fields for hashing, on every element', () => {
    expect(withoutIgnored({ description: 'x', a: [{ f: 1, g: 2 }, { f: 3 }] }, [['description'], ['a', '*', 'f']])).toEqual({ a: [{ g: 2 }, {}] });
    expect(withoutIgnored({ labels: { a: '1' } }, [['labels', '*']])).toEqual({ labels: {} });
    const spec = { a: 1 };
    expect(withoutIgnored(spec, undefined)).toBe(spec);
  });
});

const POLICY = (description: string, extra = '') => `
kind: IPPolicy
name: office
${extra}spec:
  description: ${description}
  rules:
    - {cidr: 203.0.113.0/24, action: allow, description: first}
    - {cidr: 198.51.100.0/24, action: allow}
`;
const IGNORING = 'lifecycle:\n  ignore_changes: [description, "rules[*].description"]\n';

const EDGE = (tripped: number, extra = '') => `
kind: Backend
name: web
spec: {type: tunnel_group, labels: {app: web}}
---
kind: HTTPSEdge
name: api
${extra}spec:
  hostports: ["api.example.com:443"]
  routes:
    - match_type: path_prefix
      match: /
      description: root
      backend: {backend: web}
      circuit_breaker: {tripped_duration: ${tripped}, rolling_window: 10, num_buckets: 10, volume_threshold: 10, error_threshold_percentage: 0.5}
`;

async function applied(text: string, ignore?: ProjectIgnoreRule[]) {
  const api = new MemoryLiveApi();
  const dir = manifests(text);
  const result = await applyPlan({ api, stack: 'default', paths: [dir], env: {}, ...(ignore ? { ignore } : {}) });
  expect(result.ok).toBe(true);
  return { api, dir };
}
const plan = (api: MemoryLiveApi, dir: string, ignore?: ProjectIgnoreRule[]) =>
  computePlan({ api, stack: 'default', paths: [dir], env: {}, ...(ignore ? { ignore } : {}) });
const drift = (api: MemoryLiveApi, dir: string) => detectDrift({ api, stack: 'default', paths: [dir], env: {} });
const policyOf = (api: MemoryLiveApi) => api.objects('/ip_policies').find((p) => parseMarker(p.metadata).marker?.name === 'office')!;

describe('ignore rules in plan, drift and apply', () => {
  it('an ignored field changed outside is no change, no drift, and apply writes nothing', async () => {
    const { api, dir } = await applied(POLICY('Office', IGNORING));
    const policy = policyOf(api);
    const rule = api.objects('/ip_policy_rules').find((r) => r.cidr === '203.0.113.0/24')!;
    await api.update(`/ip_policies/${String(policy.id)}`, { description: 'renamed by hand' });
    await api.update(`/ip_policy_rules/${String(rule.id)}`, { description: 'noted by hand' });
    const planned = await plan(api, dir);
    expect(planned.changes).toEqual([]);
    expect(planned.summary.unchanged).toBe(3);
    expect(planned.ignored).toEqual([
      { address: 'IPPolicy/office', kind: 'IPPolicy', name: 'office', id: policy.id, fields: ['description'] },
      { address: 'IPPolicyRule/office/203.0.113.0/24', kind: 'IPPolicyRule', name: 'office 203.0.113.0/24', id: rule.id, fields: ['description'] },
    ]);
    expect((await drift(api, dir)).objects).toEqual([]);
    const writes = api.log.length;
    const result = await applyPlan({ api, stack: 'default', paths: [dir], env: {} });
    expect(result.steps).toEqual([]);
    expect(api.log.length).toBe(writes);
    expect(policyOf(api).description).toBe('renamed by hand');
  });

  it('an update of another field leaves the ignored one as it is live; the marker hash does not record it', async () => {
    const { api, dir } = await applied(POLICY('Office', IGNORING));
    const id = String(policyOf(api).id);
    await api.update(`/ip_policies/${id}`, { description: 'renamed by hand' });
    const written = api.log.length;
    const hashBefore = parseMarker(policyOf(api).metadata).marker!.hash;
    // The manifest changes a rule's action (a replace) and the ignored description: only the rule changes.
    rewrite(dir, POLICY('Office in git', IGNORING).replace('198.51.100.0/24, action: allow', '198.51.100.0/24, action: deny'));
    const planned = await plan(api, dir);
    expect(planned.changes.map((c) => `${c.action} ${c.address}`)).toEqual(expect.arrayContaining(['replace IPPolicyRule/office/198.51.100.0/24']));
    expect(planned.changes.find((c) => c.address === 'IPPolicy/office')?.fields ?? []).toEqual([]);
    const result = await applyPlan({ api, stack: 'default', paths: [dir], env: {} });
    expect(result.ok).toBe(true);
    expect(
      api.log
        .slice(written)
        .filter((w) => w.path === `/ip_policies/${id}`)
        .some((w) => w.body && 'description' in w.body),
    ).toBe(false);
    expect(policyOf(api).description).toBe('renamed by hand');
    // The hash is the same whatever the ignored field holds.
    expect(parseMarker(policyOf(api).metadata).marker!.hash).toBe(hashBefore);
  });

  it('a create sends the manifest value of an ignored field', async () => {
    const { api } = await applied(POLICY('Office', IGNORING));
    expect(policyOf(api).description).toBe('Office');
    expect(api.objects('/ip_policy_rules').find((r) => r.cidr === '203.0.113.0/24')!.description).toBe('first');
  });

  it('a field inside a module of every route: its live value is kept when the module is written', async () => {
    const { api, dir } = await applied(EDGE(10, 'lifecycle: {ignore_changes: ["routes[*].circuit_breaker.tripped_duration"]}\n'));
    const edge = api.objects('/edges/https')[0]!;
    const route = (edge.routes as Record<string, unknown>[])[0]!;
    await api.replace(`/edges/https/${String(edge.id)}/routes/${String(route.id)}/circuit_breaker`, {
      ...(route.circuit_breaker as object),
      tripped_duration: 99,
    });
    expect((await plan(api, dir)).changes).toEqual([]);
    // Another field of the module changes in git: the module is PUT whole, with the live value.
    rewrite(dir, EDGE(10, 'lifecycle: {ignore_changes: ["routes[*].circuit_breaker.tripped_duration"]}\n').replace('rolling_window: 10', 'rolling_window: 20'));
    const planned = await plan(api, dir);
    expect(planned.changes.map((c) => c.fields.map((f) => f.path))).toEqual([['circuit_breaker.rolling_window']]);
    expect(planned.ignored?.[0]).toMatchObject({ address: 'HTTPSEdgeRoute/api//', fields: ['circuit_breaker.tripped_duration'] });
    expect((await applyPlan({ api, stack: 'default', paths: [dir], env: {} })).ok).toBe(true);
    const put = api.log.filter((w) => w.method === 'PUT').at(-1)!;
    expect(put.body).toMatchObject({ tripped_duration: 99, rolling_window: 20 });
  });

  it('without the rule the same change outside is a change and drift (the rule is what silences it)', async () => {
    const { api, dir } = await applied(POLICY('Office'));
    await api.update(`/ip_policies/${String(policyOf(api).id)}`, { description: 'renamed by hand' });
    expect((await plan(api, dir)).changes.map((c) => c.address)).toEqual(['IPPolicy/office']);
    expect((await drift(api, dir)).objects.map((o) => o.drift)).toEqual(['changed_outside']);
  });

  it('gatehouse.yaml rules by kind glob apply to every object of the kinds they name', async () => {
    const ignore = [{ kind: 'IP*', paths: ['description'] }];
    const { api, dir } = await applied(POLICY('Office'), ignore);
    await api.update(`/ip_policies/${String(policyOf(api).id)}`, { description: 'renamed by hand' });
    const planned = await plan(api, dir, ignore);
    expect(planned.changes).toEqual([]);
    expect(planned.ignored?.map((o) => o.address)).toEqual(['IPPolicy/office']);
    expect((await plan(api, dir, [{ kind: 'HTTPSEdge', paths: ['description'] }])).changes.map((c) => c.address)).toEqual(['IPPolicy/office']);
  });

  it('every format says how many fields were ignored per object; a saved plan keeps them', async () => {
    const { api, dir } = await applied(POLICY('Office', IGNORING));
    await api.update(`/ip_policies/${String(policyOf(api).id)}`, { description: 'renamed by hand' });
    const planned = await plan(api, dir);
    expect(renderText(planned)).toMatch(
      /Ignored \(lifecycle\.ignore_changes, gatehouse\.yaml ignore:\), left as they are live:\n\s+IPPolicy office: 1 field \(description\)/,
    );
    expect(renderMarkdown(planned)).toContain('| `IPPolicy` office | 1 | `description` |');
    expect(renderHtml(planned)).toMatch(/<h2>Ignored fields<\/h2>[^]*IPPolicy[^]*office[^]*description/);
    expect(parsePlanJson(renderJson(planned)).ignored).toEqual(planned.ignored);
  });
});

describe('validate: ignore paths that can match no field', () => {
  it('names the path, its line and what to write instead', async () => {
    const dir = manifests(`kind: HTTPSEdge
name: api
lifecycle:
  ignore_changes:
    - description
    - "routes[*].circut_breaker"
    - routes
    - "routes[*].match"
    - "rules[*].description"
    - "routes[0].description"
spec:
  hostports: ["api.example.com:443"]
---
kind: Backend
name: web
lifecycle: {ignore_changes: [type, "labels.*"]}
spec: {type: tunnel_group, labels: {app: web}}
`);
    const problems = await validateManifests({ paths: [dir], env: {} });
    const lines = problems.map((p) => `${p.at?.line} ${p.code} ${p.message}`);
    expect(lines).toEqual([
      expect.stringMatching(
        /^6 ignore_path_invalid lifecycle.ignore_changes: "routes\[\*\]\.circut_breaker" can match no field of HTTPSEdge: routes\[\*\] has no field "circut_breaker"; did you mean circuit_breaker\?$/,
      ),
      expect.stringMatching(/^7 ignore_path_invalid .*objects of their own \(HTTPSEdgeRoute\)/),
      expect.stringMatching(/^8 ignore_path_invalid .*match identifies each of the routes/),
      expect.stringMatching(/^9 ignore_path_invalid .*"rules\[\*\]\.description" can match no field of HTTPSEdge: the spec of HTTPSEdge has no field "rules"/),
      expect.stringMatching(/^10 ignore_path_invalid .*list position/),
      expect.stringMatching(/^16 ignore_path_invalid .*type selects the kind of Backend/),
    ]);
  });
});

describe('gatehouse.yaml ignore:', () => {
  it('reads the rules, and refuses a kind glob or a path that matches nothing, at its line', async () => {
    const dir = manifests('');
    const file = join(dir, 'gatehouse.yaml');
    writeFileSync(file, 'manifests: [.]\nignore:\n  - kind: "*Edge"\n    paths: [description]\n');
    expect((await readProject(file, dir)).project?.ignore).toEqual([{ kind: '*Edge', paths: ['description'] }]);
    writeFileSync(
      file,
      'manifests: [.]\nignore:\n  - kind: HTTPSEdgeRoute\n    paths: [description]\n  - kind: "IP*"\n    paths: [description, "rules[*].descripton"]\n',
    );
    const { project, problems } = await readProject(file, dir);
    expect(project).toBeUndefined();
    expect(problems.map((p) => `${p.at?.line}:${p.at?.col} ${p.code} ${p.message}`)).toEqual([
      expect.stringMatching(
        /^3:11 ignore_path_invalid ignore: kind "HTTPSEdgeRoute" matches no manifest kind; HTTPSEdgeRoute objects are declared inside HTTPSEdge/,
      ),
      expect.stringMatching(
        /^6:26 ignore_path_invalid ignore: "rules\[\*\]\.descripton" can match no field of any kind "IP\*" names \(IPPolicy, IPRestriction\).*did you mean description\?$/,
      ),
    ]);
  });
});
