import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { computePlan } from '../engine.js';
import { ENV, SCENARIO, appliedLive, findRaw, type Live } from '../drift/fixture.test-data.js';
import { FakeLiveApi } from '../testing/fake-api.js';
import { ipPolicy } from '../kinds/ip-policy.js';
import type { LiveObject } from '../live.js';
import { exportLive, type ExportResult } from './export.js';
import { EXPORT_HEADER, fileNameOf, isExportedText, manifestSchemaUrl } from './files.js';
import { MANIFEST_SCHEMA_URL } from '@gatehouse/schemas/runtime';
import { nameObjects } from './names.js';
import { isRegistryObject } from '../bot-registry/records.js';

const REPOSITORY = fileURLToPath(new URL('../../../../', import.meta.url));
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The scenario's secret values by the field that holds them. */
const SECRET_BY_PATH: Record<string, string> = {
  'oidc.client_secret': ENV.OIDC_SECRET!,
  'webhook_verification.secret': ENV.GITHUB_SECRET!,
  'oauth.provider.github.client_secret': ENV.GH_OAUTH_SECRET!,
};

/** The exported files written into a fresh directory (outside any repository: it is its own root). */
function written(result: ExportResult): string {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-export-'));
  dirs.push(dir);
  for (const file of result.files) {
    mkdirSync(dirname(join(dir, file.file)), { recursive: true });
    writeFileSync(join(dir, file.file), file.text);
  }
  return dir;
}
const envOf = (result: ExportResult) => Object.fromEntries(result.secrets.map((s) => [s.variable, SECRET_BY_PATH[s.path]!]));
const docs = (result: ExportResult, kind: string) =>
  result.files
    .flatMap((f) => parseAllDocuments(f.text).map((d) => d.toJS() as { kind: string; name: string; adopt?: string; spec: Record<string, any> }))
    .filter((d) => d.kind === kind);

async function exported(live: Live, all = false) {
  const result = await exportLive({ api: new FakeLiveApi(live), stack: 'default', all });
  const plan = await computePlan({ paths: [written(result)], env: envOf(result), api: new FakeLiveApi(live), stack: 'default' });
  return { result, plan };
}

/** The scenario's manifest files as its markers record them (relative to this repository's root). */
const SCENARIO_FILES = readdirSync(join(SCENARIO, 'manifests'))
  .sort()
  .map((f) =>
    relative(REPOSITORY, join(SCENARIO, 'manifests', f))
      .split('\\')
      .join('/'),
  );

describe('exportLive', () => {
  test('each file says where it was exported from: the API URL, or the embedded reference server by name', async () => {
    const live = await appliedLive();
    const remote = await exportLive({ api: new FakeLiveApi(live), stack: 'default' });
    expect(remote.files[0]!.text.split('\n')[1]).toContain('exported from memory://fake (stack "default")');
    const embeddedApi = Object.assign(new FakeLiveApi(live), { target: { url: 'http://127.0.0.1:40000', embedded: true } });
    const embedded = await exportLive({ api: embeddedApi, stack: 'default' });
    const header = embedded.files[0]!.text.split('\n')[1]!;
    expect(header).toContain('exported from the embedded reference server (.gatehouse/server.db)');
    expect(header).not.toContain('127.0.0.1');
  });

  test('round trip: each object goes back to the file its marker records, and the export plans as no changes', async () => {
    const { result, plan } = await exported(await appliedLive());
    // No marker write either: every marker records the path the exported file has.
    expect(plan.changes, JSON.stringify(plan.changes, null, 2)).toEqual([]);
    // the scenario's 16 objects: bot users carry no marker, but a plain export keeps them
    expect(plan.summary.unchanged).toBe(16);
    expect(result.files.map((f) => f.file).sort()).toEqual(SCENARIO_FILES);
    for (const file of result.files) {
      const one = file.kinds.length === 1 ? file.kinds[0]!.kind : undefined;
      expect(file.text.split('\n')[0]).toBe(`# yaml-language-server: $schema=${one ? manifestSchemaUrl(one) : MANIFEST_SCHEMA_URL}`);
      expect(file.text.split('\n')[1]!.startsWith(EXPORT_HEADER)).toBe(true);
      expect(isExportedText(file.text)).toBe(true);
      // The URL names a schema that is published.
      const published = join(
        fileURLToPath(new URL('../../../../schemas/json/', import.meta.url)),
        (one ? manifestSchemaUrl(one) : MANIFEST_SCHEMA_URL).split('/json/')[1]!,
      );
      expect(existsSync(published), published).toBe(true);
    }
    expect(result.exported).toBe(16);
    expect(result.notOwned).toBe(1); // the unmanaged policy
    // The stack's bot user registry records it: exported under its manifest name, no adopt needed.
    expect(docs(result, 'BotUser')).toEqual([{ kind: 'BotUser', name: 'deploy-bot', spec: {} }]);
  });

  test('with all: every object, those not owned with what adopting them takes; the next plan only adopts', async () => {
    const { result, plan } = await exported(await appliedLive(), true);
    // The restriction that references the adopted policy by id now references an object of the
    // stack: the hash its marker records changes with it (apply rewrites the marker, the plan says so).
    expect(plan.changes.map((c) => [c.address, c.action, c.fields, c.cause])).toEqual([
      ['IPPolicy/legacy', 'update', [], 'adopt'],
      ['IPRestriction/dashboard', 'update', [], 'marker'],
    ]);
    expect(plan.changes[0]!.reason).toContain('adopted');
    expect(docs(result, 'BotUser')).toEqual([{ kind: 'BotUser', name: 'deploy-bot', spec: {} }]);
    expect(docs(result, 'IPPolicy').find((d) => d.name === 'legacy')).toEqual({
      kind: 'IPPolicy',
      name: 'legacy',
      adopt: 'ipp_unmanaged1',
      spec: { description: 'legacy' },
    });
    expect(result.notOwned).toBe(0);
  });

  test('an object owned by another stack is taken over explicitly, under its recorded name', async () => {
    const live = await appliedLive();
    const tcp = findRaw(live, 'edgtcp_1');
    tcp.metadata = String(tcp.metadata).replace('"stack":"default"', '"stack":"team-b"');
    const without = await exportLive({ api: new FakeLiveApi(live), stack: 'default' });
    expect(without.files.flatMap((f) => f.kinds.map((k) => k.kind))).not.toContain('TCPEdge');
    const result = await exportLive({ api: new FakeLiveApi(live), stack: 'default', all: true });
    expect(docs(result, 'TCPEdge')).toEqual([expect.objectContaining({ name: 'ssh', adopt: 'edgtcp_1' })]);
    expect(result.otherStacks).toEqual(['team-b']);
    // Taking it over moves it between stacks: only with --from-stack (plan/stacks.ts).
    const dir = written(result);
    await expect(computePlan({ paths: [dir], env: envOf(result), api: new FakeLiveApi(live), stack: 'default' })).rejects.toThrow(
      /owned by stack "team-b"; taking it over needs --from-stack team-b/,
    );
    const plan = await computePlan({ paths: [dir], env: envOf(result), api: new FakeLiveApi(live), stack: 'default', fromStack: 'team-b' });
    expect(plan.changes.find((c) => c.address === 'TCPEdge/ssh')).toMatchObject({ action: 'update', reason: 'moved from stack "team-b"' });
  });

  test('references by name, or {id} for objects not exported', async () => {
    const { result } = await exported(await appliedLive());
    expect(docs(result, 'IPRestriction')[0]!.spec.ip_policies).toEqual(['office', { id: 'ipp_unmanaged1' }]);
    const backends = Object.fromEntries(docs(result, 'Backend').map((d) => [d.name, d.spec]));
    expect(backends['web-failover']).toEqual({ type: 'failover', backends: ['web', 'sorry'] });
    expect(backends.canary).toEqual({ type: 'weighted', backends: { sorry: 10, web: 90 } });
    const route = docs(result, 'HTTPSEdge')[0]!.spec.routes.find((r: { match: string }) => r.match === '/');
    expect(route.backend).toEqual({ backend: 'web-failover' });
    expect(route.ip_restriction).toEqual({ ip_policies: ['office'] });
    const { result: all } = await exported(await appliedLive(), true);
    expect(docs(all, 'IPRestriction')[0]!.spec.ip_policies).toEqual(['legacy', 'office']);
  });

  test("server defaults are left out; the user's metadata is restored and the marker stripped", async () => {
    const { result } = await exported(await appliedLive());
    const text = result.files.map((f) => f.text).join('\n');
    expect(text).not.toContain('gatehouse:v1');
    expect(text).not.toMatch(/: null$/m);
    expect(text).not.toContain('enabled: true');
    const [policy] = docs(result, 'IPPolicy');
    expect(policy!.spec).toEqual({
      description: 'Office egress addresses',
      metadata: '{"team":"platform"}',
      rules: [
        { cidr: '2001:db8::/32', action: 'deny' },
        { cidr: '203.0.113.0/24', action: 'allow', description: 'HQ' },
      ],
    });
    const edge = docs(result, 'HTTPSEdge')[0]!.spec;
    expect(edge.tls_termination).toEqual({ min_version: '1.2' });
    const routes = Object.fromEntries(edge.routes.map((r: { match: string }) => [r.match, r]));
    expect(routes['/'].circuit_breaker).toEqual({ error_threshold_percentage: 0.5, num_buckets: 10 });
    expect(routes['/'].compression).toEqual({});
    expect(routes['/sso'].saml).toEqual({ idp_metadata_url: 'https://idp.example.com/metadata' });
    expect(routes['/hooks/github'].websocket_tcp_converter).toEqual({ enabled: false });
  });

  test('a circuit breaker the server returns as zeros is exported without them', async () => {
    const live = await appliedLive();
    const route = (findRaw(live, 'edghts_1').routes as Record<string, any>[]).find((r) => r.match === '/')!;
    route.circuit_breaker = { enabled: true, tripped_duration: 0, rolling_window: 0, num_buckets: 0, volume_threshold: 0, error_threshold_percentage: 0 };
    const result = await exportLive({ api: new FakeLiveApi(live), stack: 'default' });
    const exportedRoute = docs(result, 'HTTPSEdge')[0]!.spec.routes.find((r: { match: string }) => r.match === '/');
    expect(exportedRoute.circuit_breaker).toEqual({});
  });

  test('secrets become ${env:...} placeholders, listed with where they belong; values never written', async () => {
    const { result } = await exported(await appliedLive());
    const text = result.files.map((f) => f.text).join('\n');
    for (const secret of Object.values(ENV)) expect(text).not.toContain(secret);
    expect(result.secrets.map((s) => s.path).sort()).toEqual(Object.keys(SECRET_BY_PATH).sort());
    for (const s of result.secrets) {
      expect(s.variable).toMatch(/^[A-Z_][A-Z0-9_]*$/);
      expect(text).toContain(`\${env:${s.variable}}`);
    }
    // The variables the manifests used, as the ownership markers record them (identity/env-fields.ts).
    expect(result.secrets).toContainEqual({ variable: 'GITHUB_SECRET', address: 'HTTPSEdgeRoute/api//hooks/github', path: 'webhook_verification.secret' });
  });

  test('a bot user no registry records, whose name cannot be a manifest name, is named by its slug (with all), its name kept in spec.name', async () => {
    const live = await appliedLive();
    findRaw(live, 'bot_1').name = 'Deploy bot from CI';
    live['/ip_policies'] = live['/ip_policies']!.filter((p) => !isRegistryObject('IPPolicy', p));
    expect(docs((await exported(live)).result, 'BotUser')).toEqual([]);
    const { result, plan } = await exported(live, true);
    expect(result.skipped).toEqual([]);
    expect(docs(result, 'BotUser')).toEqual([{ kind: 'BotUser', name: 'deploy-bot-from-ci', adopt: 'bot_1', spec: { name: 'Deploy bot from CI' } }]);
    // The bot user is unchanged; the stack gets a registry on its next apply (besides adopting the rest).
    expect(plan.changes.filter((c) => c.kind.startsWith('BotUser')).map((c) => [c.address, c.action, c.cause])).toEqual([
      ['BotUserRegistry/default', 'create', 'registry'],
    ]);
  });

  test('a recorded bot user renamed outside gatehouse is exported under its manifest name, the live name in spec.name', async () => {
    const live = await appliedLive();
    findRaw(live, 'bot_1').name = 'Deploy bot from CI';
    const { result, plan } = await exported(live);
    expect(docs(result, 'BotUser')).toEqual([{ kind: 'BotUser', name: 'deploy-bot', spec: { name: 'Deploy bot from CI' } }]);
    // Same bot user, same name: only the registry's record of it as applied is refreshed.
    expect(plan.changes.map((c) => [c.address, c.action, c.cause])).toEqual([['BotUserRegistry/default', 'update', 'registry']]);
  });

  test("a plain export writes only the bot users the stack's registry records; all writes every one", async () => {
    const live = await appliedLive();
    live['/bot_users']!.push({
      id: 'bot_other',
      uri: 'https://api.example.test/bot_users/bot_other',
      name: 'made-by-hand',
      active: true,
      created_at: '2026-11-01T00:00:00Z',
    });
    const plain = await exportLive({ api: new FakeLiveApi(live), stack: 'default' });
    expect(docs(plain, 'BotUser').map((d) => d.name)).toEqual(['deploy-bot']);
    expect(plain.notOwned).toBe(2); // the unmanaged policy and the bot user
    // Another stack's export writes none of them.
    expect(docs(await exportLive({ api: new FakeLiveApi(live), stack: 'team-b' }), 'BotUser')).toEqual([]);
    const all = await exportLive({ api: new FakeLiveApi(live), stack: 'default', all: true });
    expect(docs(all, 'BotUser')).toEqual([
      { kind: 'BotUser', name: 'deploy-bot', spec: {} },
      { kind: 'BotUser', name: 'made-by-hand', adopt: 'bot_other', spec: {} },
    ]);
  });

  test('a literal ${env:...} in a live value is escaped so it reads back as written', async () => {
    const live = await appliedLive();
    findRaw(live, 'bkdhr_1').body = 'costs ${env:HOME} dollars, $HOME, ${x}, $${y} and $5';
    const { result, plan } = await exported(live);
    expect(docs(result, 'Backend').find((d) => d.name === 'sorry')!.spec.body).toBe('costs $${env:HOME} dollars, $$HOME, $${x}, $$${y} and $5');
    // The body reads back as written; only the marker's hash (of the body applied before) is refreshed.
    expect(plan.changes.map((c) => [c.address, c.fields, c.cause])).toEqual([['Backend/sorry', [], 'marker']]);
  });
});

describe('hostile live text', () => {
  const HIDDEN = 'rtl\u202eevil\u2066x\u2069 sep\u2028line c1\u0085\u009b bell\u0007 tab\t cr\r del\u007f';

  test('what plan escapes is escaped in the file too, double-quoted so that it reads back as the same value', async () => {
    const live = await appliedLive();
    findRaw(live, 'bkdhr_1').body = HIDDEN;
    findRaw(live, 'bkdhr_1').description = 'multi\nline is kept as YAML writes it';
    const { result, plan } = await exported(live);
    const text = result.files.map((f) => f.text).join('\n');
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/);
    expect(text).toContain(String.raw`body: "rtl\u202eevil\u2066x\u2069 sep\u2028line c1\u0085\u009b bell\u0007 tab\t cr\r del\u007f"`);
    const sorry = docs(result, 'Backend').find((d) => d.name === 'sorry')!;
    expect(sorry.spec.body).toBe(HIDDEN);
    expect(sorry.spec.description).toBe('multi\nline is kept as YAML writes it');
    // Read back, the same values: only the marker (whose hash is of the body applied before) is refreshed.
    expect(plan.changes.map((c) => [c.address, c.fields, c.cause])).toEqual([['Backend/sorry', [], 'marker']]);
  });

  test('a marker gatehouse did not write (a path, an absolute path or several lines as its name) counts as none: all adopts the object', async () => {
    const live = await appliedLive();
    const forged = (name: string) => `gatehouse:v1 ${JSON.stringify({ stack: 'default', name, hash: '0123456789abcdef' })}`;
    live['/ip_policies']!.push(
      { id: 'ipp_forged1', uri: '', description: 'one', metadata: forged('../../x') },
      { id: 'ipp_forged2', uri: '', description: 'two', metadata: forged('/etc/passwd') },
      { id: 'ipp_forged3', uri: '', description: 'three', metadata: forged('office\n+ IPPolicy injected') },
    );
    const plain = await exportLive({ api: new FakeLiveApi(live), stack: 'default' });
    expect(docs(plain, 'IPPolicy').map((d) => d.name)).toEqual(['office']);
    const { result, plan } = await exported(live, true);
    const adopted = docs(result, 'IPPolicy').filter((d) => d.adopt?.startsWith('ipp_forged'));
    expect(adopted.map((d) => [d.name, d.adopt])).toEqual([
      ['one', 'ipp_forged1'],
      ['three', 'ipp_forged3'],
      ['two', 'ipp_forged2'],
    ]);
    // The next plan takes them over in place: no copies are created.
    expect(plan.changes.filter((c) => c.action === 'create')).toEqual([]);
    expect(plan.changes.filter((c) => c.id?.startsWith('ipp_forged')).map((c) => [c.action, c.cause])).toEqual([
      ['update', 'adopt'],
      ['update', 'adopt'],
      ['update', 'adopt'],
    ]);
  });
});

describe('every scenario of the golden plan tests', () => {
  const root = fileURLToPath(new URL('../../test-fixtures/scenarios/', import.meta.url));
  for (const name of readdirSync(root).sort()) {
    test(`${name}: exported with all, planned against the same live state: nothing but adoptions`, async () => {
      const live = JSON.parse(readFileSync(join(root, name, 'live.json'), 'utf8')) as Live;
      const stack = existsSync(join(root, name, 'stack.txt')) ? readFileSync(join(root, name, 'stack.txt'), 'utf8').trim() : 'default';
      const result = await exportLive({ api: new FakeLiveApi(live), stack, all: true });
      const text = result.files.map((f) => f.text).join('\n');
      expect(text).not.toContain('gatehouse:v1');
      // A write-only secret (never returned by the API) still gets its placeholder.
      if (name === 'events') expect(result.secrets.map((s) => s.path)).toContainEqual(expect.stringMatching(/auth\.creds\.aws_secret_access_key$/));
      // Readable secrets get their live value back through the variables, found by the placeholder's object and path.
      const env = Object.fromEntries(result.secrets.map((s) => [s.variable, 'write-only-or-unknown']));
      for (const s of result.secrets) if (SECRET_BY_PATH[s.path]) env[s.variable] = SECRET_BY_PATH[s.path]!;
      if (Object.keys(live).length === 0) {
        expect(result.files).toEqual([]);
        return;
      }
      const dir = written(result);
      // Objects of another stack move with --from-stack (the fixtures have one other stack at most).
      expect(result.otherStacks.length).toBeLessThanOrEqual(1);
      const plan = await computePlan({
        paths: [dir],
        env,
        api: new FakeLiveApi(live),
        stack,
        ...(result.otherStacks[0] ? { fromStack: result.otherStacks[0] } : {}),
      });
      for (const change of plan.changes) {
        // A stack whose fixture has no bot user registry gets one on its next apply.
        if (change.cause === 'registry') {
          expect(change.address).toBe(`BotUserRegistry/${stack}`);
          continue;
        }
        expect(change.action, change.address).toBe('update');
        expect(change.fields, change.address).toEqual([]);
        // Marker refreshes: the fixtures' markers carry made-up hashes, which apply rewrites.
        expect(change.reason, change.address).toMatch(change.cause === 'marker' ? /^ownership marker refresh: / : /adopted|moved from stack/);
      }
    });
  }
});

describe('names', () => {
  const obj = (id: string, description: string, marker?: { stack: string; name: string }): { live: LiveObject; normal: { description: string } } => ({
    live: { descriptor: ipPolicy, id, raw: { id }, ...(marker ? { marker: { ...marker, hash: '' } } : {}) },
    normal: { description },
  });

  test('deterministic and unique: marker names first, then description slugs, then ids', () => {
    const objects = [
      obj('ipp_2', 'Office Egress'),
      obj('ipp_1', 'Office egress!'),
      obj('ipp_3', 'anything', { stack: 'default', name: 'office-egress' }),
      obj('ipp_4', ''),
    ];
    const names = nameObjects(objects, 'default');
    expect(objects.map((o) => names.get(o.live))).toEqual(['office-egress-ipp_2', 'office-egress-ipp_1', 'office-egress', 'ipp_4']);
    const again = nameObjects([...objects].reverse(), 'default');
    expect(objects.map((o) => again.get(o.live))).toEqual(objects.map((o) => names.get(o.live)));
  });

  test('file names per kind', () => {
    expect(['IPPolicy', 'IPRestriction', 'BotUser', 'Backend', 'HTTPSEdge', 'TCPEdge'].map(fileNameOf)).toEqual([
      'ip-policies.yaml',
      'ip-restrictions.yaml',
      'bot-users.yaml',
      'backends.yaml',
      'https-edges.yaml',
      'tcp-edges.yaml',
    ]);
  });
});
