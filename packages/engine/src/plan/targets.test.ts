/**
 * `--target` (plan/targets.ts): address patterns, and the targeted plan's closure over the
 * in-memory API (in-process: a server process would prove nothing more here).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manifestDirs } from '../testing/manifest-dirs.js';
import { applyPlan } from '../apply/apply.js';
import { MemoryLiveApi } from '../apply/memory-api.js';
import { detectDrift } from '../drift/detect.js';
import { computePlan } from '../engine.js';
import { parseMarker } from '../identity/marker.js';
import { renderJson, parsePlanJson } from '../render/json.js';
import { renderMarkdown } from '../render/markdown.js';
import { renderHtml } from '../render/html.js';
import { renderText } from '../render/text.js';
import { renderDriftMarkdown, renderDriftText } from '../drift/render.js';
import { renderDriftHtml } from '../drift/html.js';
import { checkTargetsMatched, parseTargets, TargetError } from './targets.js';

const matches = (target: string, address: string) => parseTargets([target])[0]!.matches(address);
const refusal = (texts: string[]) => {
  try {
    parseTargets(texts);
  } catch (error) {
    expect(error).toBeInstanceOf(TargetError);
    return (error as TargetError).message;
  }
  throw new Error('not refused');
};

const dirs = manifestDirs('gatehouse-targets-');
afterAll(dirs.cleanup);

describe('target patterns', () => {
  it('match an address exactly, by kind and name', () => {
    expect(matches('IPPolicy/office', 'IPPolicy/office')).toBe(true);
    expect(matches('IPPolicy/office', 'IPPolicy/office-eu')).toBe(false);
    expect(matches('IPPolicy/office', 'IPPolicyRule/office')).toBe(false);
    expect(matches('IPPolicyRule/office/10.0.0.0/8', 'IPPolicyRule/office/10.0.0.0/8')).toBe(true);
    expect(matches('HTTPSEdgeRoute/api//', 'HTTPSEdgeRoute/api//')).toBe(true);
    expect(matches('HTTPSEdgeRoute/api//', 'HTTPSEdgeRoute/api//v1')).toBe(false);
  });

  it('take globs whose * and ? match "/" as any other character (names hold CIDRs and paths)', () => {
    expect(matches('Backend/*', 'Backend/web')).toBe(true);
    expect(matches('Backend/*', 'HTTPSEdge/web')).toBe(false);
    expect(matches('IPPolicy/office-*', 'IPPolicy/office-eu')).toBe(true);
    expect(matches('IPPolicy/office-*', 'IPPolicy/office')).toBe(false);
    expect(matches('HTTPSEdgeRoute/api/*', 'HTTPSEdgeRoute/api//v1')).toBe(true);
    expect(matches('HTTPSEdgeRoute/api/*', 'HTTPSEdgeRoute/apiv2//v1')).toBe(false);
    expect(matches('IPPolicyRule/office/10.*', 'IPPolicyRule/office/10.0.0.0/8')).toBe(true);
    expect(matches('IPPolicyRule/*/10.0.0.0/?', 'IPPolicyRule/office/10.0.0.0/8')).toBe(true);
    expect(matches('Backend/{web,api}', 'Backend/api')).toBe(true);
    expect(matches('Backend/*', 'Backend/.hidden')).toBe(true);
    expect(matches('Backend/\\*', 'Backend/*')).toBe(true);
    expect(matches('Backend/\\*', 'Backend/web')).toBe(false);
    // A leading ! is a name, not a negation.
    expect(matches('Backend/!web', 'Backend/api')).toBe(false);
  });

  it('refuse what is not Kind/NAME with a known kind, saying what is', () => {
    expect(refusal([''])).toMatch(/--target "" is empty/);
    expect(refusal(['  '])).toMatch(/is empty/);
    expect(refusal(['IPPolicy'])).toMatch(/names a kind but no object: give IPPolicy\/NAME, or IPPolicy\/\* for every IPPolicy/);
    expect(refusal(['IPPolicy/'])).toMatch(/names a kind but no object/);
    expect(refusal(['ippolicy/office'])).toMatch(/did you mean IPPolicy\/office\?/);
    expect(refusal(['IPPolcy/office'])).toMatch(/did you mean IPPolicy\/office\?/);
    expect(refusal(['Frobnicator/x'])).toMatch(/does not start with a known kind: A target is Kind\/NAME \(known kinds: IPPolicy, IPPolicyRule,/);
    expect(refusal(['office'])).not.toMatch(/did you mean/);
    expect(refusal(['IPPolicy/ok', 'Backend/x\u001b[2J'])).toBe(
      '--target "Backend/x\\\\u001b[2J" holds control characters; give an address such as IPPolicy/office',
    );
  });
});

describe('every target unmatched', () => {
  it('is an error naming them; some unmatched is not', () => {
    expect(() => checkTargetsMatched([{ requested: ['IPPolicy/nope', 'Backend/x\u0007'], unmatched: ['IPPolicy/nope', 'Backend/x\u0007'] }])).toThrow(
      /^no object matches --target IPPolicy\/nope, Backend\/x\\u0007: /,
    );
    expect(() => checkTargetsMatched([{ requested: ['IPPolicy/a', 'IPPolicy/b'], unmatched: ['IPPolicy/b'] }])).not.toThrow();
    // Over environments: matched in one of them is enough.
    expect(() =>
      checkTargetsMatched([
        { requested: ['IPPolicy/a'], unmatched: ['IPPolicy/a'] },
        { requested: ['IPPolicy/a'], unmatched: [] },
      ]),
    ).not.toThrow();
    expect(() => checkTargetsMatched([undefined])).not.toThrow();
  });
});

const BEFORE = `
kind: IPPolicy
name: office
spec:
  description: office
  rules:
    - {cidr: 10.0.0.0/8, action: allow}
---
kind: IPPolicy
name: old
spec: {description: old}
---
kind: Backend
name: web
spec: {type: http_response, status_code: 200}
---
kind: HTTPSEdge
name: api
spec:
  hostports: ["api.example.com:443"]
  routes:
    - {match_type: path_prefix, match: /, backend: {backend: web}}
`;

const AFTER = `
kind: IPPolicy
name: office
spec:
  description: office (edited)
  rules:
    - {cidr: 10.0.0.0/8, action: allow}
    - {cidr: 192.168.0.0/16, action: allow}
---
kind: IPPolicy
name: vpn
spec:
  description: vpn
  rules:
    - {cidr: 172.16.0.0/12, action: allow}
    - {cidr: 172.17.0.0/16, action: deny}
---
kind: Backend
name: web
spec: {type: http_response, status_code: 503}
---
kind: Backend
name: maintenance
spec: {type: http_response, status_code: 503}
---
kind: HTTPSEdge
name: api
spec:
  description: api edge
  hostports: ["api.example.com:443"]
  routes:
    - {match_type: path_prefix, match: /, backend: {backend: web}}
    - {match_type: path_prefix, match: /v1, backend: {backend: maintenance}}
`;

describe('targeted plans', () => {
  let dir: string;
  let api: MemoryLiveApi;
  const plan = (targets: string[]) => computePlan({ paths: [dir], env: {}, api, stack: 'default', targets });
  const changes = async (targets: string[]) => (await plan(targets)).changes.map((c) => `${c.action} ${c.address}`).sort();

  beforeAll(async () => {
    // Reserved domain: an edge's hostport needs it.
    dir = dirs.manifests(`kind: ReservedDomain\nname: api\nspec: {domain: api.example.com}\n---\n${BEFORE}`);
    api = new MemoryLiveApi();
    await applyPlan({ api, stack: 'default', paths: [dir], env: {} });
    dirs.rewrite(dir, `kind: ReservedDomain\nname: api\nspec: {domain: api.example.com}\n---\n${AFTER}`);
  });

  it('without targets, plans everything (the full plan this test narrows)', async () => {
    const all = await changes([]);
    expect(all).toContain('update Backend/web');
    expect(all).toContain('delete IPPolicy/old');
  });

  it('of one object: that object only', async () => {
    expect(await changes(['Backend/web'])).toEqual(['update Backend/web']);
  });

  it('of a parent: with its children', async () => {
    expect(await changes(['IPPolicy/office'])).toEqual(['create IPPolicyRule/office/192.168.0.0/16', 'update IPPolicy/office']);
  });

  it('of a child: with what it depends on that changes (a new backend, the edge it belongs to), not its siblings', async () => {
    expect(await changes(['HTTPSEdgeRoute/api//v1'])).toEqual(['create Backend/maintenance', 'create HTTPSEdgeRoute/api//v1', 'update HTTPSEdge/api']);
  });

  it('of a child whose parent is a create: brings the parent create, not the other children', async () => {
    expect(await changes(['IPPolicyRule/vpn/172.16.0.0/12'])).toEqual(['create IPPolicy/vpn', 'create IPPolicyRule/vpn/172.16.0.0/12']);
  });

  it('of a glob, counted alone, with the targets recorded', async () => {
    const targeted = await plan(['Backend/*']);
    expect(targeted.changes.map((c) => `${c.action} ${c.address}`).sort()).toEqual(['create Backend/maintenance', 'update Backend/web']);
    expect(targeted.summary).toEqual({ create: 1, update: 1, replace: 0, delete: 0, unchanged: 0 });
    expect(targeted.targets).toEqual({ requested: ['Backend/*'], unmatched: [], undeclared: [] });
    // Fingerprints of the targeted objects only.
    expect(Object.keys(targeted.fingerprints)).toEqual([targeted.changes.find((c) => c.action === 'update')!.id]);
  });

  it('never deletes: an undeclared object is named, not pruned; a typo is unmatched', async () => {
    const targeted = await plan(['IPPolicy/old', 'IPPolicy/offise', 'Backend/web']);
    expect(targeted.changes.map((c) => c.address)).toEqual(['Backend/web']);
    expect(targeted.targets).toEqual({
      requested: ['IPPolicy/old', 'IPPolicy/offise', 'Backend/web'],
      unmatched: ['IPPolicy/offise'],
      undeclared: ['IPPolicy/old'],
    });
    expect(targeted.summary.not_pruned).toBeUndefined();
    const text = renderText(targeted);
    expect(text).toMatch(/Warning: Targeted plan \(--target IPPolicy\/old, IPPolicy\/offise, Backend\/web\): only these objects/);
    expect(text).toContain('Warning: --target IPPolicy/offise matched nothing');
    expect(text).toContain('Warning: --target IPPolicy/old matched only live objects the manifests no longer declare; a targeted plan never deletes');
    expect(renderMarkdown(targeted)).toContain('> **Warning:** --target IPPolicy/offise matched nothing');
    expect(renderHtml(targeted)).toContain('<strong>Warning:</strong> --target IPPolicy/offise matched nothing');
    expect(parsePlanJson(renderJson(targeted)).targets).toEqual(targeted.targets);
  });

  it('with --prune is refused', async () => {
    await expect(computePlan({ paths: [dir], env: {}, api, stack: 'default', targets: ['Backend/web'], prune: true })).rejects.toThrow(
      /--target cannot be combined with --prune/,
    );
  });

  it('prints a hostile target escaped and a glob literally in Markdown', async () => {
    // Control characters are refused (above); a bidirectional override is escaped when printed.
    const targeted = await plan(['Backend/*', 'Backend/x\u202efake']);
    expect(renderText(targeted)).not.toMatch(/\u202e/);
    expect(renderText(targeted)).toContain('Backend/x\\u202efake matched nothing');
    expect(renderMarkdown(targeted)).toContain('Backend/\\*');
  });

  it('apply: a targeted child under an updated parent, whose marker records only the children that exist', async () => {
    const local = new MemoryLiveApi();
    const work = dirs.manifests(BEFORE.split('---').slice(0, 1).join(''));
    await applyPlan({ api: local, stack: 'default', paths: [work], env: {} });
    dirs.rewrite(work, AFTER.split('---').slice(0, 1).join(''));
    const result = await applyPlan({ api: local, stack: 'default', paths: [work], env: {}, targets: ['IPPolicy/office'] });
    expect(result.steps.map((s) => `${s.action} ${s.address}`).sort()).toEqual(['create IPPolicyRule/office/192.168.0.0/16', 'update IPPolicy/office']);
    // Drift of a target: only it; and a parent's marker names both rules now.
    const drift = await detectDrift({ paths: [work], env: {}, api: local, stack: 'default', targets: ['IPPolicy/office'] });
    expect(drift.drifted).toBe(false);
    expect(parseMarker(local.objects('/ip_policies')[0]!.metadata).marker?.children).toBeDefined();
  });

  it('drift: only the targeted objects count', async () => {
    const all = await detectDrift({ paths: [dir], env: {}, api, stack: 'default' });
    expect(all.objects.length).toBeGreaterThan(2);
    const one = await detectDrift({ paths: [dir], env: {}, api, stack: 'default', targets: ['Backend/web', 'IPPolicy/nope'] });
    expect(one.objects.map((o) => o.address)).toEqual(['Backend/web']);
    expect(one.summary.changed_in_manifests).toBe(1);
    expect(one.summary.in_sync).toBe(0);
    expect(one.targets).toEqual({ requested: ['Backend/web', 'IPPolicy/nope'], unmatched: ['IPPolicy/nope'] });
    expect(renderDriftText(one)).toContain('Warning: Targeted drift report (--target Backend/web, IPPolicy/nope)');
    expect(renderDriftMarkdown(one)).toContain('> **Warning:** --target IPPolicy/nope matched nothing');
    expect(renderDriftHtml(one)).toContain('<strong>Warning:</strong> --target IPPolicy/nope matched nothing');
    const inSync = await detectDrift({ paths: [dir], env: {}, api, stack: 'default', targets: ['ReservedDomain/api'] });
    expect(inSync.drifted).toBe(false);
    expect(inSync.summary.in_sync).toBe(1);
  });

  it('of a replace: with the changes of what still references it (re-pointed to the new object), applied exactly', async () => {
    const local = new MemoryLiveApi();
    const work = dirs.manifests('');
    const write = (type: string, fallbacks: string) =>
      dirs.rewrite(
        work,
        `kind: Backend\nname: web\nspec: ${type}\n---\nkind: Backend\nname: static\nspec: {type: http_response, status_code: 404}\n---\n` +
          `kind: Backend\nname: fo\nspec: {type: failover, backends: [${fallbacks}]}\n`,
      );
    write('{type: http_response, status_code: 200}', 'web');
    await applyPlan({ api: local, stack: 'default', paths: [work], env: {} });
    // web's type changes (a replace, made create-first: fo references it); fo changes too.
    write('{type: tunnel_group, labels: {app: web}}', 'web, static');
    const targeted = await computePlan({ paths: [work], env: {}, api: local, stack: 'default', targets: ['Backend/web'] });
    expect(targeted.changes.map((c) => `${c.action} ${c.address}`).sort()).toEqual(['replace Backend/web', 'update Backend/fo']);
    const result = await applyPlan({ api: local, stack: 'default', paths: [work], env: {}, targets: ['Backend/web'] });
    expect(result.ok).toBe(true);
    expect(result.steps.map((s) => `${s.action} ${s.address}`).sort()).toEqual(['replace Backend/web', 'update Backend/fo']);
    expect((await computePlan({ paths: [work], env: {}, api: local, stack: 'default' })).changes).toEqual([]);
  });
});
