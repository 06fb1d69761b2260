/**
 * The prune scope (issue 8, point 2) in-process against the in-memory API: which recorded
 * paths the markers get, and which owned objects a plan of some PATHs may delete.
 */
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { applyPlan } from '../apply/apply.js';
import { prepareApply } from '../apply/prepare.js';
import { MemoryLiveApi } from '../apply/memory-api.js';
import { ApplyRefused } from '../apply/model.js';
import { computePlan, matchObservation, readManifests } from '../engine.js';
import { observe } from './observe.js';
import { metadataWriter } from './metadata.js';
import { composeMetadata, metadataRoom, parseMarker } from '../identity/marker.js';
import type { Plan } from '../plan-model.js';
import { parsePlanJson, renderJson, renderKindSummary, renderMarkdown, renderText } from '../render/index.js';
import { manifestPaths, recordedPath } from '../load/manifest-paths.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A repository (a `.git` directory) with `files` under it; returns its root. */
function repo(files: Record<string, string>, git: 'dir' | 'file' | 'none' = 'dir'): string {
  const root = mkdtempSync(join(tmpdir(), 'gatehouse-scope-'));
  dirs.push(root);
  if (git === 'dir') mkdirSync(join(root, '.git'));
  if (git === 'file') writeFileSync(join(root, '.git'), 'gitdir: /elsewhere/.git/worktrees/x\n');
  for (const [path, text] of Object.entries(files)) write(root, path, text);
  return root;
}
function write(root: string, path: string, text: string) {
  mkdirSync(join(root, path, '..'), { recursive: true });
  writeFileSync(join(root, path), text);
}

const POLICIES = `kind: IPPolicy
name: office
spec:
  description: Office
  rules:
    - {cidr: 203.0.113.0/24, action: allow}
    - {cidr: 198.51.100.0/24, action: allow}
---
kind: IPPolicy
name: vpn
spec: {description: VPN}
`;
const BACKENDS = ['a', 'b', 'c', 'd', 'e'].map((n) => `kind: Backend\nname: ${n}\nspec: {type: http_response, status_code: 503}\n`).join('---\n');
const RESTRICTION = 'kind: IPRestriction\nname: agents\nspec: {type: agent, enforced: false, ip_policies: [vpn]}\n';
const FILES = { 'manifests/ip-policies.yaml': POLICIES, 'manifests/backends.yaml': BACKENDS, 'manifests/more/restriction.yaml': RESTRICTION };

const deletes = (plan: Plan) => plan.changes.filter((c) => c.action === 'delete').map((c) => `${c.address}${c.needsPrune ? ' (needs --prune)' : ''}`);
const markerPath = (api: MemoryLiveApi, path: string, description?: string) =>
  parseMarker(api.objects(path).find((o) => description === undefined || o.description === description)?.metadata).marker?.path;

/** The repository applied in full (`apply manifests/ --prune`), with its in-memory API. */
async function applied(files: Record<string, string> = FILES) {
  const root = repo(files);
  const api = new MemoryLiveApi();
  const at = (...paths: string[]) => paths.map((p) => join(root, p));
  await applyPlan({ api, stack: 'default', paths: at('manifests'), env: {}, prune: true });
  const plan = (paths: string[], options: { prune?: boolean; pruneAll?: boolean } = { prune: true }) =>
    computePlan({ paths: at(...paths), env: {}, api, stack: 'default', ...options });
  return { root, api, at, plan };
}

describe('manifest paths', () => {
  it('are relative to the nearest .git upwards (a directory or a worktree file), with forward slashes, however the PATH is written', () => {
    for (const git of ['dir', 'file'] as const) {
      const root = repo(FILES, git);
      const cwd = join(root, 'manifests');
      for (const path of ['.', './', join(root, 'manifests'), '../manifests/']) {
        expect(manifestPaths([path], cwd).entries, path).toEqual([{ path: 'manifests', directory: true }]);
      }
      const where = manifestPaths(['ip-policies.yaml', '../manifests/more'], cwd);
      expect(where.root).toBe(root);
      expect(where.entries).toEqual([
        { path: 'manifests/ip-policies.yaml', directory: false },
        { path: 'manifests/more', directory: true },
      ]);
      expect(recordedPath(where, 'more/restriction.yaml', cwd)).toBe('manifests/more/restriction.yaml');
      expect(recordedPath(where, '<stdin>', cwd)).toBeUndefined();
    }
  });

  it("without .git: the PATHs' common root; standard input has no path and no scope", () => {
    const root = repo(FILES, 'none');
    const where = manifestPaths([join(root, 'manifests/ip-policies.yaml'), join(root, 'manifests/more'), '-'], root);
    expect(where.root).toBe(join(root, 'manifests'));
    expect(where.entries).toEqual([
      { path: 'ip-policies.yaml', directory: false },
      { path: 'more', directory: true },
    ]);
    expect(where.stdin).toBe(true);
    expect(manifestPaths(['-'], root)).toEqual({ root, entries: [], stdin: true });
  });

  it('a path with unicode and control characters is recorded as is, in valid JSON, and read back', () => {
    const name = 'manifests/équipe\u0007\u2028.yaml';
    const metadata = composeMetadata('user', { stack: 'default', name: 'office', hash: '0'.repeat(16), path: name });
    expect(metadata).not.toContain('\u0007');
    expect(parseMarker(metadata).marker?.path).toBe(name);
    expect(parseMarker(metadata).user).toBe('user');
  });

  it('markers written before paths were recorded still parse', () => {
    expect(parseMarker('gatehouse:v1 {"stack":"default","name":"office","hash":"0123456789abcdef"}').marker).toEqual({
      stack: 'default',
      name: 'office',
      hash: '0123456789abcdef',
    });
  });

  it('validate counts the recorded path in the metadata limit, at file:line:col', async () => {
    const path = 'manifests/a-rather-long-directory-name/ip-policies.yaml';
    const room = metadataRoom('default', 'office', path);
    expect(room).toBe(metadataRoom('default', 'office') - Buffer.byteLength(`,"path":${JSON.stringify(path)}`));
    const fits = repo({ [path]: `kind: IPPolicy\nname: office\nspec:\n  metadata: "${'x'.repeat(room)}"\n` });
    expect((await readManifests({ paths: [join(fits, 'manifests')], env: {} })).problems).toEqual([]);
    const over = repo({ [path]: `kind: IPPolicy\nname: office\nspec:\n  metadata: "${'x'.repeat(room + 1)}"\n` });
    const { problems } = await readManifests({ paths: [join(over, 'manifests')], env: {} });
    expect(problems).toEqual([
      expect.objectContaining({
        code: 'metadata_too_long',
        at: expect.objectContaining({ line: 4, col: 13 }),
        message: expect.stringContaining(`at most ${room} bytes`),
      }),
    ]);
  });

  it('a manifest path too long for any marker is a problem at its document, metadata or not', async () => {
    // Control characters are one byte on disk and six in the marker's JSON.
    const deep = ['a', 'b', 'c'].map((c) => c + '\u0001'.repeat(240)).join('/');
    const root = repo({ [`manifests/${deep}/p.yaml`]: 'kind: IPPolicy\nname: office\nspec: {description: deep}\n' });
    const { problems } = await readManifests({ paths: [join(root, 'manifests')], env: {} });
    expect(problems).toEqual([
      expect.objectContaining({
        code: 'metadata_too_long',
        at: expect.objectContaining({ line: 1, col: 1 }),
        message: expect.stringContaining('move the manifest to a shorter path'),
      }),
    ]);
  });
});

describe('prune scope', () => {
  it("apply records each object's manifest path in its marker, children included", async () => {
    const { api } = await applied();
    expect(markerPath(api, '/ip_policies', 'Office')).toBe('manifests/ip-policies.yaml');
    expect(api.objects('/ip_policy_rules').map((r) => parseMarker(r.metadata).marker?.path)).toEqual([
      'manifests/ip-policies.yaml',
      'manifests/ip-policies.yaml',
    ]);
    expect(markerPath(api, '/backends/http_response')).toBe('manifests/backends.yaml');
    expect(markerPath(api, '/ip_restrictions')).toBe('manifests/more/restriction.yaml');
  });

  it('a single-file PATH plans no delete of what other files declare, and says how many were left alone', async () => {
    const { plan } = await applied();
    for (const options of [{ prune: true }, { prune: false }]) {
      const scoped = await plan(['manifests/ip-policies.yaml'], options);
      expect(scoped.changes).toEqual([]);
      expect(scoped.prune_scope).toEqual({
        mode: 'paths',
        paths: ['manifests/ip-policies.yaml'],
        outside: 6,
        outside_kinds: { IPRestriction: 1, Backend: 5 },
        outside_without_path: 0,
      });
      const sentence =
        'Prune scope: 6 owned objects not declared in the manifests read were applied from outside the PATHs given (manifests/ip-policies.yaml): 1 IPRestriction, 5 Backend.';
      expect(renderText(scoped)).toContain(sentence);
      expect(renderText(scoped)).toContain('--prune-all considers them');
      expect(renderKindSummary(scoped)).toContain(sentence);
      expect(renderMarkdown(scoped)).toContain(sentence);
      expect(JSON.parse(renderJson(scoped)).prune_scope).toEqual(scoped.prune_scope);
      expect(renderText(scoped)).not.toContain('would be deleted');
    }
  });

  it('what the file PATH no longer declares is deleted: its documents and its rules (children follow their parent)', async () => {
    const { root, plan } = await applied();
    write(
      root,
      'manifests/ip-policies.yaml',
      POLICIES.replace('    - {cidr: 198.51.100.0/24, action: allow}\n', '').replace(/---\nkind: IPPolicy\nname: vpn[^]*$/, ''),
    );
    write(root, 'manifests/more/restriction.yaml', 'kind: BotUser\nname: keeper\nspec: {}\n');
    // vpn is still used by the restriction, which this PATH does not read: the service refuses
    // that delete at apply time, as before; the plan is what matters here.
    expect(deletes(await plan(['manifests/ip-policies.yaml']))).toEqual(['IPPolicyRule/office/198.51.100.0/24', 'IPPolicy/vpn']);
    expect(deletes(await plan(['manifests/ip-policies.yaml'], {}))).toEqual([
      'IPPolicyRule/office/198.51.100.0/24 (needs --prune)',
      'IPPolicy/vpn (needs --prune)',
    ]);
    // The whole directory: everything removed, as before scopes existed, and no note.
    const whole = await plan(['manifests']);
    expect(deletes(whole).sort()).toEqual(['IPPolicy/vpn', 'IPPolicyRule/office/198.51.100.0/24', 'IPRestriction/agents']);
    expect(whole.prune_scope).toBeUndefined();
    // A subdirectory scopes to what is under it.
    expect(deletes(await plan(['manifests/more']))).toEqual(['IPRestriction/agents']);
  });

  it('--prune-all deletes everything the stack owns that the manifests read do not declare', async () => {
    const { plan } = await applied();
    const all = await plan(['manifests/ip-policies.yaml'], { pruneAll: true });
    expect(deletes(all).sort()).toEqual(['Backend/a', 'Backend/b', 'Backend/c', 'Backend/d', 'Backend/e', 'IPRestriction/agents']);
    expect(all.prune_scope).toMatchObject({ mode: 'all', outside: 0 });
    expect(renderText(all)).toContain('Prune scope: all (--prune-all)');
  });

  it('the destruction rail still counts every owned object, in scope or not; --prune-all meets it', async () => {
    const { api, at } = await applied();
    const run = (options: { prune?: boolean; pruneAll?: boolean; force?: boolean }) =>
      applyPlan({ api, stack: 'default', paths: at('manifests/ip-policies.yaml'), env: {}, ...options });
    const refused = await run({ pruneAll: true }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApplyRefused);
    expect((refused as ApplyRefused).refusals.map((r) => r.message).join('\n')).toContain('5 of the 5 Backend objects');
    expect(api.objects('/backends/http_response')).toHaveLength(5);
    const scoped = await run({ prune: true });
    expect(scoped.steps).toEqual([]);
    expect(api.objects('/backends/http_response')).toHaveLength(5);
  });

  it('a moved manifest is a marker refresh that records the new path; the old path then lies outside a file PATH', async () => {
    const { root, api, at, plan } = await applied();
    renameSync(join(root, 'manifests/backends.yaml'), join(root, 'manifests/more/backends.yaml'));
    const moved = await plan(['manifests']);
    expect(moved.changes.map((c) => [c.address, c.cause, c.reason])).toEqual(
      ['a', 'b', 'c', 'd', 'e'].map((n) => [`Backend/${n}`, 'marker', 'ownership marker refresh: records the manifest path manifests/more/backends.yaml']),
    );
    await applyPlan({ api, stack: 'default', paths: at('manifests'), env: {}, prune: true });
    expect(markerPath(api, '/backends/http_response')).toBe('manifests/more/backends.yaml');
    expect((await plan(['manifests'])).changes).toEqual([]);
  });

  it('markers without a path: in scope when a directory PATH declares their kind; otherwise left alone and counted', async () => {
    const { root, api, plan } = await applied();
    for (const path of ['/ip_policies', '/backends/http_response', '/ip_restrictions']) {
      for (const o of api.objects(path)) {
        const { user, marker } = parseMarker(o.metadata);
        const { path: _recorded, ...old } = marker!;
        o.metadata = composeMetadata(user, old);
      }
    }
    write(root, 'manifests/backends.yaml', BACKENDS.replace(/---\nkind: Backend\nname: e[^]*$/, ''));
    write(root, 'manifests/more/restriction.yaml', 'kind: BotUser\nname: keeper\nspec: {}\n');
    // A file PATH never prunes them (Backend/e stays; the rules still record their path).
    const file = await plan(['manifests/backends.yaml']);
    expect(deletes(file)).toEqual([]);
    expect(file.prune_scope).toMatchObject({
      outside: 6,
      outside_without_path: 4,
      outside_kinds: { IPPolicy: 2, IPPolicyRule: 2, IPRestriction: 1, Backend: 1 },
    });
    expect(renderText(file)).toContain('4 of them record no manifest path');
    // The directory: Backend is declared under it (e goes); no IP restriction is declared any more, so agents stays.
    const whole = await plan(['manifests']);
    expect(deletes(whole)).toEqual(['Backend/e']);
    expect(whole.prune_scope).toMatchObject({ outside: 1, outside_without_path: 1, outside_kinds: { IPRestriction: 1 } });
    // Declared objects get their path recorded (a marker refresh that says so).
    expect(whole.changes.filter((c) => c.cause === 'marker').map((c) => c.reason)).toContain(
      'ownership marker refresh: records the manifest path manifests/ip-policies.yaml',
    );
    expect(deletes(await plan(['manifests'], { pruneAll: true })).sort()).toEqual(['Backend/e', 'IPRestriction/agents']);
  });

  it('two PATHs: the union of their scopes', async () => {
    const { root, plan } = await applied();
    write(root, 'manifests/backends.yaml', BACKENDS.replace(/---\nkind: Backend\nname: e[^]*$/, ''));
    write(root, 'manifests/more/restriction.yaml', 'kind: BotUser\nname: keeper\nspec: {}\n');
    expect(deletes(await plan(['manifests/backends.yaml', 'manifests/ip-policies.yaml']))).toEqual(['Backend/e']);
    expect(deletes(await plan(['manifests/backends.yaml', 'manifests/more'])).sort()).toEqual(['Backend/e', 'IPRestriction/agents']);
  });

  it('a saved plan carries its scope: apply --plan with --prune-all deletes only what the plan lists', async () => {
    const { root, api, at } = await applied();
    write(root, 'manifests/ip-policies.yaml', POLICIES.replace(/---\nkind: IPPolicy\nname: vpn[^]*$/, ''));
    write(root, 'manifests/more/restriction.yaml', 'kind: BotUser\nname: keeper\nspec: {}\n');
    const planned = await computePlan({ paths: at('manifests/ip-policies.yaml'), env: {}, api, stack: 'default' });
    expect(deletes(planned)).toEqual(['IPPolicy/vpn (needs --prune)']);
    const saved = parsePlanJson(renderJson(planned));
    const prepared = await prepareApply({
      api,
      stack: 'default',
      paths: at('manifests/ip-policies.yaml'),
      env: {},
      saved,
      prune: true,
      pruneAll: true,
      force: true,
    });
    expect(prepared.refusals).toEqual([]);
    expect(prepared.subjects.map((s) => `${s.change.action} ${s.change.address}`)).toEqual(['delete IPPolicy/vpn']);
    // The restriction, outside the plan's scope, is neither run nor "already done".
    expect(prepared.alreadyDone).toEqual([]);
  });

  it('a linked directory records the path through the link: the link is the scope that prunes it', async () => {
    const root = repo({ 'shared/policies.yaml': POLICIES, 'manifests/backends.yaml': BACKENDS });
    symlinkSync(join(root, 'shared'), join(root, 'manifests/shared'));
    const api = new MemoryLiveApi();
    await applyPlan({ api, stack: 'default', paths: [join(root, 'manifests')], env: {} });
    expect(markerPath(api, '/ip_policies', 'VPN')).toBe('manifests/shared/policies.yaml');
    write(root, 'shared/policies.yaml', POLICIES.replace(/---\nkind: IPPolicy\nname: vpn[^]*$/, ''));
    const plan = (paths: string[]) => computePlan({ paths: paths.map((p) => join(root, p)), env: {}, api, stack: 'default', prune: true });
    expect(deletes(await plan(['manifests/shared']))).toEqual(['IPPolicy/vpn']);
    // The real directory is another path: nothing applied through the link is pruned by it.
    const real = await plan(['shared']);
    expect(deletes(real)).toEqual([]);
    expect(real.prune_scope).toMatchObject({ outside: 6 });
  });

  it('a file name with terminal escapes is recorded as JSON and never printed raw', async () => {
    const evil = 'manifests/evil\u001b[2J\u0007.yaml';
    const { root, api, plan } = await applied({ ...FILES, [evil]: 'kind: Backend\nname: evil\nspec: {type: http_response, status_code: 404}\n' });
    expect(api.objects('/backends/http_response').map((o) => parseMarker(o.metadata).marker?.path)).toContain(evil);
    rmSync(join(root, evil));
    write(root, 'manifests/moved.yaml', 'kind: Backend\nname: evil\nspec: {type: http_response, status_code: 404}\n');
    const moved = await plan([evil.replace(/evil.*$/, 'moved.yaml')]);
    expect(moved.changes.map((c) => c.reason)).toEqual(['ownership marker refresh: records the manifest path manifests/moved.yaml']);
    symlinkSync(join(root, 'manifests/moved.yaml'), join(root, evil));
    const scoped = await plan([evil]);
    for (const text of [renderText(scoped), renderKindSummary(scoped), renderMarkdown(scoped)]) {
      expect(text).toContain('Prune scope:');
      expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f]/);
    }
  });

  it('an object read from standard input (no file) keeps the path its live marker records', async () => {
    const { api, at } = await applied();
    const read = await readManifests({ paths: at('manifests'), env: {} });
    const { matching } = matchObservation(read, await observe(api), 'default', { paths: at('manifests') });
    const office = matching.pairs.find((p) => p.desired.address === 'IPPolicy/office')!;
    delete office.desired.manifestPath; // as `load` leaves it for `<stdin>`
    const metadata = metadataWriter(matching, 'default')(office.desired);
    expect(parseMarker(metadata).marker?.path).toBe('manifests/ip-policies.yaml');
  });
});
