import { rmSync, writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { composeMetadata, parseMarker } from '../identity/marker.js';
import { FakeLiveApi } from '../testing/fake-api.js';
import { detectDrift } from './detect.js';
import { ENV, SCENARIO, appliedLive, findRaw, manifestsCopy, type Live } from './fixture.test-data.js';
import { DRIFT_FORMAT_VERSION } from './model.js';
import { renderDriftJson, renderDriftMarkdown, renderDriftText } from './render.js';

const NOW = new Date('2026-11-23T03:00:00Z');
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const drift = (live: Live, paths = [join(SCENARIO, 'manifests')], env = ENV) =>
  detectDrift({ paths, env, api: new FakeLiveApi(live), stack: 'default', now: NOW });

function editedManifests(file: string, from: string, to: string): string {
  const dir = manifestsCopy();
  dirs.push(dir);
  const path = join(dir, file);
  const text = readFileSync(path, 'utf8');
  expect(text).toContain(from);
  writeFileSync(path, text.replace(from, to));
  return dir;
}

describe('detectDrift', () => {
  test('live as last applied: no drift; unmanaged objects are information only', async () => {
    const report = await drift(await appliedLive());
    expect(report.objects).toEqual([]);
    expect(report.drifted).toBe(false);
    expect(report.summary.in_sync).toBe(16);
    expect(report.unmanaged.map((u) => u.id)).toContain('ipp_unmanaged1');
    expect(report.summary.unmanaged).toBe(report.unmanaged.length);
    expect(renderDriftText(report)).toContain('No drift.');
  });

  test('a field changed outside gatehouse is named as such', async () => {
    const live = await appliedLive();
    findRaw(live, 'ipx_1').enforced = false;
    const report = await drift(live);
    expect(report.drifted).toBe(true);
    expect(report.objects).toEqual([
      expect.objectContaining({
        address: 'IPRestriction/dashboard',
        id: 'ipx_1',
        drift: 'changed_outside',
        action: 'update',
        fields: [{ path: 'enforced', drift: 'changed_outside', live: false, desired: true, sensitive: false }],
      }),
    ]);
    expect(report.summary.changed_outside).toBe(1);
    expect(renderDriftText(report)).toMatch(/Changed outside gatehouse:\n {2}IPRestriction dashboard \(ipx_1\)[^]*enforced: live false, manifests true/);
  });

  test('a field edited in the manifests is changed in the manifests, not outside', async () => {
    const live = await appliedLive();
    const report = await drift(live, [editedManifests('access.yaml', 'enforced: true', 'enforced: false')]);
    expect(report.objects).toEqual([
      expect.objectContaining({
        address: 'IPRestriction/dashboard',
        drift: 'changed_in_manifests',
        fields: [expect.objectContaining({ path: 'enforced', drift: 'changed_in_manifests', live: true, desired: false })],
      }),
    ]);
  });

  test('both changed: outside wins the object, and the message says the manifests changed too', async () => {
    const live = await appliedLive();
    findRaw(live, 'ipx_1').description = 'by hand';
    const report = await drift(live, [editedManifests('access.yaml', 'enforced: true', 'enforced: false')]);
    expect(report.objects[0]).toMatchObject({ drift: 'changed_outside', message: expect.stringContaining('manifests changed too') });
    expect(report.objects[0]!.fields.map((f) => f.path).sort()).toEqual(['description', 'enforced']);
  });

  test("a route and a rule deleted outside gatehouse: their parents' markers are the evidence", async () => {
    const live = await appliedLive();
    const edge = findRaw(live, 'edghts_1');
    edge.routes = (edge.routes as { match: string }[]).filter((r) => r.match !== '/sso');
    live['/ip_policy_rules'] = live['/ip_policy_rules']!.filter((r) => r.id !== 'ipr_1');
    const report = await drift(live);
    expect(report.objects.map((o) => [o.address, o.drift, o.action, o.id])).toEqual([
      ['IPPolicyRule/office/203.0.113.0/24', 'deleted_outside', 'create', null],
      ['HTTPSEdgeRoute/api//sso', 'deleted_outside', 'create', null],
    ]);
    expect(report.objects[1]!.message).toContain("parent's marker records it");
  });

  test('without that evidence (a marker from before children hashes) a missing route is "missing"', async () => {
    const live = await appliedLive();
    const edge = findRaw(live, 'edghts_1');
    const { user, marker } = parseMarker(edge.metadata);
    const { children: _dropped, ...old } = marker!;
    edge.metadata = composeMetadata(user, old);
    edge.routes = (edge.routes as { match: string }[]).filter((r) => r.match !== '/sso');
    const report = await drift(live);
    expect(report.objects).toEqual([
      expect.objectContaining({ address: 'HTTPSEdgeRoute/api//sso', drift: 'missing', message: 'missing: not applied yet or deleted outside gatehouse' }),
    ]);
    expect(report.drifted).toBe(true);
  });

  test('a referenced top-level object deleted outside: its applied referrers are the evidence', async () => {
    const live = await appliedLive();
    live['/edges/tcp'] = [];
    live['/ip_restrictions'] = [];
    live['/ip_policies'] = live['/ip_policies']!.filter((p) => p.id !== 'ipp_1');
    const report = await drift(live);
    const byAddress = Object.fromEntries(report.objects.map((o) => [o.address, o.drift]));
    // The edge's route references the policy and is still as applied.
    expect(byAddress['IPPolicy/office']).toBe('deleted_outside');
    // Nothing references the TCP edge or the restriction: no evidence.
    expect(byAddress['TCPEdge/ssh']).toBe('missing');
    expect(byAddress['IPRestriction/dashboard']).toBe('missing');
  });

  test('a declared object never applied is missing; an owned one removed from the manifests is a manifest change', async () => {
    // Applied from the copy: the markers record the copy's paths (prune scope).
    const dir = manifestsCopy();
    dirs.push(dir);
    const live = await appliedLive(dir);
    writeFileSync(
      join(dir, 'access.yaml'),
      readFileSync(join(dir, 'access.yaml'), 'utf8').replace(
        'kind: BotUser\nname: deploy-bot\nspec: {active: true}',
        'kind: BotUser\nname: deploy-bot\nspec: {active: true}\n---\nkind: IPPolicy\nname: new\nspec: {description: new}',
      ),
    );
    writeFileSync(join(dir, 'edges.yaml'), readFileSync(join(dir, 'edges.yaml'), 'utf8').replace(/---\nkind: TCPEdge[^]*$/, ''));
    const report = await drift(live, [dir]);
    expect(report.objects.map((o) => [o.address, o.drift, o.action])).toEqual([
      ['IPPolicy/new', 'missing', 'create'],
      ['TCPEdge/ssh', 'changed_in_manifests', 'delete'],
    ]);
  });

  test('given one manifest file, owned objects applied from the other files are not drift (prune scope)', async () => {
    const dir = manifestsCopy();
    dirs.push(dir);
    const live = await appliedLive(dir);
    const whole = await drift(live, [dir]);
    expect(whole.drifted).toBe(false);
    const subset = await drift(live, [join(dir, 'access.yaml')]);
    expect(subset.objects).toEqual([]);
    expect(subset.drifted).toBe(false);
    // Removed from that file, an object is still a manifest change.
    writeFileSync(join(dir, 'access.yaml'), readFileSync(join(dir, 'access.yaml'), 'utf8').replace(/---\nkind: IPRestriction[^]*?(?=---|$)/, ''));
    const removed = await drift(live, [join(dir, 'access.yaml')]);
    expect(removed.objects.map((o) => [o.address, o.drift])).toEqual([['IPRestriction/dashboard', 'changed_in_manifests']]);
  });

  test('a secret changed outside: named, cause unknown, value never printed', async () => {
    const live = await appliedLive();
    const route = findRaw(live, 'edghtsrt_2');
    (route.webhook_verification as { secret: string }).secret = 'rotated-by-hand';
    const report = await drift(live);
    expect(report.objects).toEqual([
      expect.objectContaining({
        drift: 'changed',
        fields: [
          {
            path: 'webhook_verification.secret',
            drift: 'changed',
            live: '(sensitive: env GITHUB_SECRET)',
            desired: '(sensitive: env GITHUB_SECRET, changed)',
            sensitive: true,
          },
        ],
      }),
    ]);
    for (const text of [renderDriftText(report), renderDriftJson(report), renderDriftMarkdown(report)]) {
      expect(text).not.toContain('rotated-by-hand');
      expect(text).not.toContain(ENV.GITHUB_SECRET);
      expect(text).toContain('webhook_verification.secret');
    }
  });

  test("a bot user changed outside gatehouse: the stack's bot user registry records its hash as applied", async () => {
    const live = await appliedLive();
    findRaw(live, 'bot_1').active = false;
    const report = await drift(live);
    expect(report.objects).toEqual([
      expect.objectContaining({
        address: 'BotUser/deploy-bot',
        drift: 'changed_outside',
        fields: [expect.objectContaining({ path: 'active', live: false, desired: true })],
      }),
    ]);
    // The registry's own write (bookkeeping) is not drift and counts as nothing.
    expect(report.summary.in_sync).toBe((await drift(await appliedLive())).summary.in_sync - 1);
  });

  test('a bot user renamed outside gatehouse is changed outside; renamed in the manifests, a manifest change', async () => {
    const live = await appliedLive();
    findRaw(live, 'bot_1').name = 'renamed by hand';
    expect((await drift(live)).objects).toEqual([
      expect.objectContaining({
        address: 'BotUser/deploy-bot',
        id: 'bot_1',
        drift: 'changed_outside',
        fields: [expect.objectContaining({ path: 'name', live: 'renamed by hand', desired: 'deploy-bot' })],
      }),
    ]);
    const renamed = editedManifests('access.yaml', 'name: deploy-bot\nspec: {active: true}', 'name: deploy-bot\nspec: {active: true, name: Deploy bot}');
    expect((await drift(await appliedLive(), [renamed])).objects).toEqual([
      expect.objectContaining({ address: 'BotUser/deploy-bot', id: 'bot_1', drift: 'changed_in_manifests' }),
    ]);
  });

  test('a bot user the registry records and that is gone was deleted outside gatehouse', async () => {
    const live = await appliedLive();
    live['/bot_users'] = [];
    expect((await drift(live)).objects).toEqual([
      expect.objectContaining({ address: 'BotUser/deploy-bot', drift: 'deleted_outside', message: expect.stringContaining('registry') }),
    ]);
  });

  test('a bot user no registry records: its drift is a change of unknown cause', async () => {
    const live = await appliedLive();
    live['/ip_policies'] = live['/ip_policies']!.filter((p) => !String(p.metadata).startsWith('gatehouse-bots:'));
    findRaw(live, 'bot_1').active = false;
    const report = await drift(live);
    expect(report.objects).toEqual([
      expect.objectContaining({
        address: 'BotUser/deploy-bot',
        drift: 'changed',
        fields: [expect.objectContaining({ path: 'active', live: false, desired: true })],
      }),
    ]);
  });

  test('an adoption not applied yet is a manifest change', async () => {
    const live = await appliedLive();
    const dir = editedManifests(
      'access.yaml',
      'kind: BotUser',
      'kind: IPPolicy\nname: legacy\nadopt: ipp_unmanaged1\nspec: {description: legacy}\n---\nkind: BotUser',
    );
    const report = await drift(live, [dir]);
    expect(report.objects).toEqual([
      expect.objectContaining({ address: 'IPPolicy/legacy', id: 'ipp_unmanaged1', drift: 'changed_in_manifests', message: expect.stringContaining('adopted') }),
    ]);
  });

  test('the JSON form is the documented shape', async () => {
    const live = await appliedLive();
    findRaw(live, 'ipx_1').enforced = false;
    const json = JSON.parse(renderDriftJson(await drift(live))) as Record<string, unknown>;
    expect(Object.keys(json)).toEqual(['format_version', 'target', 'stack', 'checked_at', 'drifted', 'summary', 'objects', 'unmanaged', 'requests']);
    expect(json).toMatchObject({
      format_version: DRIFT_FORMAT_VERSION,
      target: { url: 'memory://fake', embedded: false },
      stack: 'default',
      checked_at: '2026-11-23T03:00:00.000Z',
      drifted: true,
      summary: { changed_outside: 1, changed_in_manifests: 0, changed: 0, deleted_outside: 0, missing: 0, in_sync: 15 },
    });
    const object = (json.objects as Record<string, unknown>[])[0]!;
    expect(Object.keys(object)).toEqual(['address', 'kind', 'name', 'id', 'drift', 'action', 'message', 'fields', 'source']);
    expect(object.source).toMatchObject({ file: expect.stringContaining('access.yaml'), line: expect.any(Number), col: expect.any(Number) });
  });

  test('Markdown stays under its length limit and says how many rows it cut', async () => {
    const live = await appliedLive();
    findRaw(live, 'ipx_1').enforced = false;
    findRaw(live, 'bot_1').active = false;
    findRaw(live, 'bkdhr_1').body = 'x'.repeat(2000);
    const report = await drift(live);
    expect(report.objects).toHaveLength(3);
    const md = renderDriftMarkdown(report, { maxLength: 1000 });
    expect(md.length).toBeLessThanOrEqual(1000);
    expect(md).toMatch(/_[12] more drifted objects not shown/);
    expect(renderDriftMarkdown(report)).not.toContain('not shown');
  });

  test("a parent's children evidence is left out rather than exceed the metadata limit", () => {
    const marker = { stack: 'default', name: 'api', hash: '0123456789abcdef', children: 'fedcba9876543210' };
    expect(parseMarker(composeMetadata('small', marker)).marker).toEqual(marker);
    const user = 'u'.repeat(4096 - composeMetadata(undefined, { ...marker, children: undefined as never }).length - 1 - 5);
    const full = composeMetadata(user, marker);
    expect(Buffer.byteLength(full)).toBeLessThanOrEqual(4096);
    expect(parseMarker(full)).toEqual({ user, marker: { stack: 'default', name: 'api', hash: '0123456789abcdef' } });
  });

  test('Markdown has a summary table and a row per drifted object', async () => {
    const live = await appliedLive();
    findRaw(live, 'ipx_1').enforced = false;
    const md = renderDriftMarkdown(await drift(live));
    expect(md).toContain('| changed outside gatehouse | 1 |');
    expect(md).toContain('| `IPRestriction dashboard` | `ipx_1` | changed outside gatehouse | `enforced: live false, manifests true` |');
  });
});
