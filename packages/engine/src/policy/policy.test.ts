/**
 * Policies in CEL: loading (schema, CEL syntax, field paths checked against the kind's schema,
 * each problem at its file:line:col) and evaluation (validate and plan, `change`, parents,
 * masked secrets, certificate expiry).
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync, cpSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkManifests, computePlan, planFromRead, readManifests } from '../engine.js';
import { FakeLiveApi } from '../testing/fake-api.js';
import { renderJson } from '../render/json.js';
import { renderMarkdown } from '../render/markdown.js';
import { renderText } from '../render/text.js';
import { loadPolicies } from './files.js';
import { PolicyFailed } from './model.js';

const root = mkdtempSync(join(tmpdir(), 'gatehouse-policy-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
function write(name: string, text: string): string {
  const dir = join(root, `case-${n++}`);
  cpSync(new URL('../../../../examples/policies', import.meta.url), join(dir, 'policies'), { recursive: true });
  writeFileSync(join(dir, name), text);
  return join(dir, name);
}

const EXAMPLES = new URL('../../../../examples/basic', import.meta.url).pathname;
const SECRETS = {
  OIDC_CLIENT_SECRET: 'oidc-secret-value',
  GITHUB_WEBHOOK_SECRET: 'hook-secret-value',
  GITHUB_OAUTH_CLIENT_SECRET: 'oauth-secret-value',
  AUDIT_STREAM_SECRET_KEY: 'audit-secret-value',
};
const POLICIES = new URL('../../../../examples/policies', import.meta.url).pathname;

describe('loading policy files', () => {
  it('loads the example policies with no problem', async () => {
    const loaded = await loadPolicies([POLICIES]);
    expect(loaded.problems).toEqual([]);
    expect(loaded.rules.map((r) => r.name).sort()).toEqual([
      'admin-paths-need-sso',
      'ca-not-expiring',
      'keep-enforced-restrictions',
      'no-allow-everyone',
      'restrictions-enforced',
      'routes-need-auth',
    ]);
    expect(loaded.rules.find((r) => r.name === 'keep-enforced-restrictions')!.usesChange).toBe(true);
    expect(loaded.rules.find((r) => r.name === 'routes-need-auth')!.usesChange).toBe(false);
  });

  it('a field the kind does not have is a problem at its line and column', async () => {
    const file = write('p.yaml', ['- name: bad-field', '  kind: HTTPSEdgeRoute', '  require: "has(route.oidcc) || route.match == \'/\'"', ''].join('\n'));
    const { problems, rules } = await loadPolicies([file]);
    expect(rules).toEqual([]);
    expect(problems).toEqual([expect.objectContaining({ code: 'policy_expression', at: { file: expect.stringMatching(/p\.yaml$/), line: 3, col: 23 } })]);
    expect(problems[0]!.message).toContain('No such key: oidcc');
    // The column is the unknown field's first character.
    expect(readFileSync(file, 'utf8').split('\n')[2]!.slice(22)).toMatch(/^oidcc\)/);
  });

  it('a parent field, an unknown variable, bad syntax and a non-condition are each reported', async () => {
    const file = write(
      'p.yaml',
      [
        '- name: parent-field',
        '  kind: HTTPSEdgeRoute',
        '  require: edge.hostportz.size() > 0',
        '- name: unknown-variable',
        '  kind: IPPolicyRule',
        '  require: "rul.cidr != \'\'"',
        '- name: syntax',
        '  kind: IPPolicy',
        '  require: "policy.description =="',
        '- name: not-a-condition',
        '  kind: IPPolicy',
        '  require: policy.description',
        '- name: bad-kind',
        '  kind: Route',
        '  require: "true"',
        '- name: extra',
        '  kind: IPPolicy',
        '  require: "true"',
        '  severty: warning',
        '',
      ].join('\n'),
    );
    const { problems } = await loadPolicies([file]);
    const at = (line: number) => problems.find((p) => p.at?.line === line);
    expect(at(3)).toMatchObject({ code: 'policy_expression', message: expect.stringContaining('hostportz') });
    expect(at(6)).toMatchObject({ code: 'policy_expression', message: expect.stringContaining('Unknown variable: rul') });
    expect(at(9)).toMatchObject({ code: 'policy_expression' });
    expect(at(12)).toMatchObject({ code: 'policy_expression', message: expect.stringContaining('must be a condition (bool)') });
    expect(at(14)).toMatchObject({ code: 'policy_invalid', message: expect.stringContaining('kind must be one of') });
    expect(at(19)).toMatchObject({ code: 'policy_invalid', message: expect.stringContaining('unknown field "severty"') });
  });

  it('a rule name used twice, and a file that is not a list', async () => {
    const twice = write('twice.yaml', '- {name: a, kind: IPPolicy, require: "true"}\n- {name: a, kind: IPPolicy, require: "true"}\n');
    expect((await loadPolicies([twice])).problems).toEqual([
      expect.objectContaining({ code: 'policy_invalid', message: expect.stringContaining('used twice') }),
    ]);
    const map = write('map.yaml', 'name: a\nkind: IPPolicy\n');
    expect((await loadPolicies([map])).problems).toEqual([
      expect.objectContaining({ code: 'policy_invalid', message: expect.stringContaining('a list of rules') }),
    ]);
  });
});

describe('finding policy files, as manifests are found', () => {
  const RULE = '- {name: NAME, kind: IPPolicy, require: "true"}\n';
  const names = async (paths: string[]) => (await loadPolicies(paths)).rules.map((r) => r.name).sort();

  it('follows links to policy files and to directories of them', async () => {
    const dir = join(root, `links-${n++}`);
    mkdirSync(join(dir, 'shared', 'more'), { recursive: true });
    mkdirSync(join(dir, 'policies'));
    writeFileSync(join(dir, 'shared', 'one.yaml'), RULE.replace('NAME', 'linked-file'));
    writeFileSync(join(dir, 'shared', 'more', 'two.yaml'), RULE.replace('NAME', 'linked-dir'));
    writeFileSync(join(dir, 'policies', 'own.yaml'), RULE.replace('NAME', 'own'));
    symlinkSync(join(dir, 'shared', 'one.yaml'), join(dir, 'policies', 'one.yaml'));
    symlinkSync(join(dir, 'shared', 'more'), join(dir, 'policies', 'more'));
    const loaded = await loadPolicies([join(dir, 'policies')]);
    expect(loaded.problems).toEqual([]);
    expect(loaded.rules.map((r) => r.name).sort()).toEqual(['linked-dir', 'linked-file', 'own']);
    // Manifest reading leaves out the files as the policy search found them, links included.
    expect(loaded.files.map((f) => f.slice(dir.length + 1)).sort()).toEqual(['policies/more/two.yaml', 'policies/one.yaml', 'policies/own.yaml']);
  });

  it('a dangling link, a missing path and standard input are problems; a loop is a warning', async () => {
    const dir = join(root, `broken-${n++}`);
    mkdirSync(join(dir, 'policies'), { recursive: true });
    writeFileSync(join(dir, 'policies', 'own.yaml'), RULE.replace('NAME', 'own'));
    symlinkSync(join(dir, 'gone.yaml'), join(dir, 'policies', 'gone.yaml'));
    symlinkSync(join(dir, 'policies'), join(dir, 'policies', 'again'));
    const loaded = await loadPolicies([join(dir, 'policies'), join(dir, 'missing'), '-']);
    expect(loaded.problems.map((p) => [p.code, p.message])).toEqual([
      ['path_unreadable', expect.stringContaining('standard input')],
      ['path_unreadable', expect.stringContaining('gone.yaml points at nothing readable')],
      ['path_unreadable', expect.stringContaining(`cannot read ${join(dir, 'missing')}: ENOENT`)],
    ]);
    expect(loaded.warnings.map((w) => w.code)).toEqual(['symlink_loop']);
    expect(loaded.rules.map((r) => r.name)).toEqual(['own']);
  });

  it('does not search dot-directories or node_modules, and refuses bytes that are not UTF-8', async () => {
    const dir = join(root, `skipped-${n++}`);
    mkdirSync(join(dir, 'policies', '.old'), { recursive: true });
    mkdirSync(join(dir, 'policies', 'node_modules'));
    writeFileSync(join(dir, 'policies', '.old', 'old.yaml'), RULE.replace('NAME', 'old'));
    writeFileSync(join(dir, 'policies', 'node_modules', 'dep.yaml'), RULE.replace('NAME', 'dep'));
    writeFileSync(join(dir, 'policies', 'own.yaml'), RULE.replace('NAME', 'own'));
    expect(await names([join(dir, 'policies')])).toEqual(['own']);
    writeFileSync(join(dir, 'policies', 'latin1.yaml'), Buffer.from('- {name: caf\xe9, kind: IPPolicy, require: "true"}\n', 'latin1'));
    expect((await loadPolicies([join(dir, 'policies')])).problems).toEqual([
      expect.objectContaining({ code: 'not_utf8', at: expect.objectContaining({ line: 1, col: 13 }) }),
    ]);
  });
});

describe('evaluating policies', () => {
  it('validate: the examples pass with the one warning of the README demo', async () => {
    const { problems, policy } = await checkManifests({ paths: [EXAMPLES], env: SECRETS, policies: [POLICIES] });
    expect(problems).toEqual([]);
    expect(policy).toEqual([
      expect.objectContaining({
        rule: 'restrictions-enforced',
        severity: 'warning',
        address: 'IPRestriction/api',
        source: expect.objectContaining({ line: 11 }),
      }),
    ]);
  });

  it('a route without identity is an error naming the rule, the route and its edge, at the route', async () => {
    const edge = write(
      'edge.yaml',
      [
        'kind: HTTPSEdge',
        'name: shop',
        'spec:',
        '  hostports: ["shop.example.com:443"]',
        '  routes:',
        '    - match_type: path_prefix',
        '      match: /checkout',
        '      oidc: {issuer: "https://id.example.com", client_id: shop, client_secret: "${env:SHOP_SECRET}"}',
        '    - match_type: path_prefix',
        '      match: /admin',
        '',
      ].join('\n'),
    );
    const { problems, policy } = await checkManifests({ paths: [edge], env: { SHOP_SECRET: 'shop-secret-value' }, policies: [POLICIES] });
    expect(problems).toEqual([]);
    expect(policy.map((r) => [r.rule, r.severity, r.address, r.message, r.source?.line])).toEqual([
      ['routes-need-auth', 'error', 'HTTPSEdgeRoute/shop//admin', 'route /admin on shop has no identity module or IP restriction', 9],
      ['admin-paths-need-sso', 'error', 'HTTPSEdgeRoute/shop//admin', 'admin route /admin on shop must use SAML or OIDC', 9],
    ]);
  });

  it('a message can never show a secret, and an expression that cannot be evaluated fails the rule', async () => {
    const file = write(
      'p.yaml',
      [
        '- name: leak',
        '  kind: HTTPSEdgeRoute',
        '  require: "false"',
        '  message: "secret is {route.oidc.client_secret}"',
        '- name: unguarded',
        '  kind: HTTPSEdgeRoute',
        '  require: "route.saml.force_authn"',
        '  severity: warning',
        '',
      ].join('\n'),
    );
    const { policy } = await checkManifests({ paths: [EXAMPLES], env: SECRETS, policies: [file] });
    const leak = policy.filter((r) => r.rule === 'leak');
    expect(leak.length).toBeGreaterThan(0);
    expect(JSON.stringify(policy)).not.toContain('oidc-secret-value');
    expect(leak.map((r) => r.message)).toContain('secret is (sensitive: env OIDC_CLIENT_SECRET)');
    const unguarded = policy.filter((r) => r.rule === 'unguarded');
    expect(unguarded.length).toBeGreaterThan(0);
    expect(unguarded[0]!.message).toMatch(/could not be evaluated: No such key: saml; guard optional fields with has\(\)/);
  });

  it('a certificate authority expiring within 30 days breaks ca-not-expiring', async () => {
    const pem = readFileSync(new URL('../../test-fixtures/ca.pem', import.meta.url), 'utf8');
    const file = write(
      'ca.yaml',
      `kind: CertificateAuthority\nname: corp\nspec:\n  ca_pem: |\n${pem
        .trimEnd()
        .split('\n')
        .map((l) => `    ${l}`)
        .join('\n')}\n`,
    );
    const expiry = new Date('2126-10-30T02:24:47Z');
    const early = await checkManifests({ paths: [file], env: {}, policies: [POLICIES], now: new Date(expiry.getTime() - 40 * 86_400_000) });
    expect(early.policy).toEqual([]);
    const late = await checkManifests({ paths: [file], env: {}, policies: [POLICIES], now: new Date(expiry.getTime() - 10 * 86_400_000) });
    expect(late.policy).toEqual([
      expect.objectContaining({ rule: 'ca-not-expiring', message: 'certificate authority corp expires on 2126-10-30T02:24:47.000Z, within 30 days' }),
    ]);
  });

  it("plan: rules see `change`; results are in every format with the object's file:line:col; policy files under a manifest path are not manifests", async () => {
    const dir = join(root, `plan-${n++}`);
    cpSync(EXAMPLES, dir, { recursive: true });
    cpSync(POLICIES, join(dir, 'policies'), { recursive: true });
    writeFileSync(join(dir, 'ip-policies.yaml'), readFileSync(join(dir, 'ip-policies.yaml'), 'utf8').replace('cidr: 192.0.2.0/25', 'cidr: 0.0.0.0/0'));
    // The manifests alone break a rule of severity error: the plan fails before its first request.
    const api = new FakeLiveApi();
    const failed = await computePlan({ paths: [dir], env: SECRETS, policies: [join(dir, 'policies')], api, stack: 'default' }).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(PolicyFailed);
    expect((failed as PolicyFailed).message).toBe('the manifests break 1 policy rule (no-allow-everyone)');
    expect((failed as PolicyFailed).results.map((r) => [r.rule, r.severity])).toEqual([
      ['no-allow-everyone', 'error'],
      ['restrictions-enforced', 'warning'],
    ]);
    expect(api.requests).toEqual([]);
    // Planned all the same (as a rule reading `change` can fail a plan), every format shows the results.
    const read = await readManifests({ paths: [dir], env: SECRETS, exclude: (await loadPolicies([join(dir, 'policies')])).files });
    const plan = await planFromRead({ read, rules: (await loadPolicies([join(dir, 'policies')])).rules }, { paths: [dir], api, stack: 'default' });
    const errors = plan.policy_results!.filter((r) => r.severity === 'error');
    expect(errors).toEqual([
      expect.objectContaining({
        rule: 'no-allow-everyone',
        address: 'IPPolicyRule/vpn/0.0.0.0/0',
        message: 'rule 0.0.0.0/0 of IP policy vpn allows every address',
        source: expect.objectContaining({ file: expect.stringMatching(/ip-policies\.yaml$/), line: 25, col: 7 }),
      }),
    ]);
    const where = `ip-policies.yaml:25:7`;
    expect(renderText(plan)).toMatch(
      new RegExp(
        `Policy checks: 1 error, 1 warning\\n  \\S*${where.replace(/\./g, '\\.')}: error: IPPolicyRule vpn 0\\.0\\.0\\.0/0: rule 0\\.0\\.0\\.0/0 of IP policy vpn allows every address \\[policy no-allow-everyone\\]`,
      ),
    );
    expect(renderMarkdown(plan)).toMatch(
      /#### Policy checks: 1 error, 1 warning[^]*\| \*\*error\*\* \| `no-allow-everyone` \| IPPolicyRule vpn 0\.0\.0\.0\/0 \| `\S*ip-policies\.yaml:25:7` \|/,
    );
    expect(JSON.parse(renderJson(plan)).policy_results[0]).toMatchObject({ rule: 'no-allow-everyone', severity: 'error', source: { line: 25, col: 7 } });
  });

  it('plan: a rule on `change` judges deletes as they are live', async () => {
    const { SCENARIO, ENV, appliedLive, manifestsCopy } = await import('../drift/fixture.test-data.js');
    const dir = manifestsCopy();
    // Applied from the copy: the markers record its paths (the prune scope).
    const live = await appliedLive(dir);
    const access = readFileSync(join(dir, 'access.yaml'), 'utf8');
    const restriction = /kind: IPRestriction\nname: dashboard\n[^]*?---\n/.exec(access)![0];
    writeFileSync(join(dir, 'access.yaml'), access.replace(restriction, ''));
    expect(SCENARIO).toBeTruthy();
    const plan = await computePlan({ paths: [dir], env: ENV, policies: [POLICIES], api: new FakeLiveApi(live), stack: 'default' });
    rmSync(dir, { recursive: true, force: true });
    expect(plan.changes.filter((c) => c.action === 'delete').map((c) => c.address)).toContain('IPRestriction/dashboard');
    expect(plan.policy_results!.filter((r) => r.rule === 'keep-enforced-restrictions')).toEqual([
      expect.objectContaining({
        severity: 'error',
        address: 'IPRestriction/dashboard',
        message: 'the plan would delete the enforced IP restriction dashboard',
      }),
    ]);
    expect(plan.policy_results!.find((r) => r.rule === 'keep-enforced-restrictions')!.source).toBeUndefined();
  });
});
