/**
 * Every class of validation problem, each with the file:line:col it points at. Manifests are
 * written to a temporary directory; nothing touches the network.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { ManifestProblems, computePlan, readManifests, validateManifests, type Problem } from './index.js';
import { FakeLiveApi } from './testing/fake-api.js';

function write(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-validate-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

/** `code@file:line:col` of every problem of one file `m.yaml`. */
async function problems(yaml: string, env: Record<string, string> = {}): Promise<string[]> {
  const dir = write({ 'm.yaml': yaml });
  const found = await validateManifests({ paths: [dir], env });
  for (const p of found) expect(p.at?.file.endsWith('m.yaml')).toBe(true);
  return found.map((p: Problem) => `${p.code}@${p.at!.line}:${p.at!.col}`);
}

const policy = `kind: IPPolicy
name: office
spec:
  rules:
    - {cidr: 10.0.0.0/8, action: allow}
`;

describe('validate: structure (schemas)', () => {
  test('a valid set has no problems', async () => {
    expect(await problems(policy)).toEqual([]);
  });
  test('a kind of several types without its type: one missing_field, not also an invalid value "undefined"', async () => {
    expect(await problems('kind: Backend\nname: b\nspec:\n  status_code: 200\n')).toEqual(['missing_field@4:3']);
  });
  test('YAML syntax error at its position', async () => {
    expect(await problems('kind: IPPolicy\nname: [unclosed\n')).toEqual(['yaml_syntax@3:1']);
  });
  test('unknown kind', async () => {
    const dir = write({ 'm.yaml': 'kind: Frobnicator\nname: x\nspec: {}\n' });
    const [p] = await validateManifests({ paths: [dir] });
    expect(p).toMatchObject({ code: 'unknown_kind', at: { line: 1, col: 7 } });
    expect(p!.message).toContain('IPPolicy, IPRestriction, BotUser, Backend, HTTPSEdge, TCPEdge');
  });
  test('every document is accounted for: no kind, a misspelt kind key, a close kind and a Kubernetes document are problems with their hint', async () => {
    const dir = write({
      'a.yaml': `${policy}---\nname: no-kind\nspec: {}\n---\nknd: IPPolicy\nname: typo\nspec: {}\n---\nkind: IPPolcy\nname: close\nspec: {}\n`,
      'deploy.yaml': 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n',
    });
    const found = await validateManifests({ paths: [dir] });
    expect(found.map((p) => [p.code, p.at!.file.replace(`${dir}/`, ''), p.at!.line, p.at!.col])).toEqual([
      ['unknown_kind', 'a.yaml', 7, 1],
      ['unknown_kind', 'a.yaml', 10, 1],
      ['unknown_kind', 'a.yaml', 14, 7],
      ['unknown_kind', 'deploy.yaml', 2, 7],
    ]);
    expect(found.map((p) => p.message)).toEqual([
      expect.stringMatching(
        /^the document has no kind: every document under the manifest paths must be a gatehouse manifest \(kind: one of IPPolicy, .*\); if the file belongs to another tool, keep it out of the manifest paths or list it under exclude: in gatehouse.yaml$/,
      ),
      'the document has no kind; did you mean kind instead of "knd"? (kind: IPPolicy)',
      expect.stringMatching(/^kind must be one of .*, not "IPPolcy"; did you mean IPPolicy\?$/),
      'a Kubernetes document (apiVersion "apps/v1", kind "Deployment"), not a gatehouse manifest; if the file belongs to another tool, keep it out of the manifest paths or list it under exclude: in gatehouse.yaml',
    ]);
    // Planned with --prune, the typo would have deleted IPPolicy/typo: now nothing is planned.
    await expect(computePlan({ paths: [dir], api: new FakeLiveApi({}), stack: 'default', prune: true })).rejects.toBeInstanceOf(ManifestProblems);
    // Excluded by gatehouse.yaml's globs, the Kubernetes file is not read.
    const rest = await validateManifests({ paths: [dir], excludeFiles: { globs: ['deploy.yaml'], base: dir, file: 'gatehouse.yaml' } });
    expect(rest.map((p) => p.at!.file.replace(`${dir}/`, ''))).toEqual(['a.yaml', 'a.yaml', 'a.yaml']);
  });
  test('a lone surrogate in a value or a key is invalid_unicode at its line; a whole character written as an escape is not', async () => {
    const dir = write({
      'm.yaml':
        'kind: IPPolicy\nname: office\nspec:\n  description: "a\\ud800b"\n  metadata: "\\U0001F600 \\ud83d\\ude00"\n---\nkind: Backend\nname: web\nspec:\n  type: tunnel_group\n  labels: {"k\\udc00": v}\n',
    });
    const found = await validateManifests({ paths: [dir] });
    expect(found.map((p) => [p.code, p.at!.line, p.at!.col])).toEqual([
      ['invalid_unicode', 4, 16],
      ['invalid_unicode', 11, 12],
    ]);
    expect(found[0]!.message).toBe(
      'a value holds a lone surrogate (\\ud800): half of a character, which is not Unicode text and cannot be sent; write the whole character (\\U0001F600, or the character itself) or remove the escape',
    );
    expect(found[1]!.message).toMatch(/^a key holds a lone surrogate \(\\udc00\)/);
  });
  test('unknown field points at the key and lists the expected fields', async () => {
    const dir = write({ 'm.yaml': `${policy}    - {cidr: 10.1.0.0/16, action: allow, comment: hi}\n` });
    const [p] = await validateManifests({ paths: [dir] });
    expect(p).toMatchObject({ code: 'unknown_field', at: { line: 6, col: 42 } });
    expect(p!.message).toContain('"comment"');
    expect(p!.message).toContain('cidr, action, description, metadata');
  });
  test('missing field, wrong type, value outside the enum', async () => {
    expect(await problems('kind: IPRestriction\nname: r\nspec:\n  type: dashbord\n  enforced: "yes"\n')).toEqual([
      'missing_field@4:3',
      'invalid_value@4:9',
      'wrong_type@5:13',
    ]);
  });
  test('byte limits count UTF-8 bytes', async () => {
    expect(await problems(`kind: IPPolicy\nname: p\nspec:\n  description: "${'é'.repeat(128)}"\n`)).toEqual(['invalid_value@4:16']);
  });
  test('circuit breaker ranges', async () => {
    const yaml = `kind: HTTPSEdge\nname: e\nspec:\n  routes:\n    - match_type: path_prefix\n      match: /\n      circuit_breaker: {num_buckets: 129, error_threshold_percentage: 50}\n`;
    expect(await problems(yaml)).toEqual(['invalid_value@7:38', 'invalid_value@7:71']);
  });
  test('a reference that is neither a name nor {id}', async () => {
    expect(await problems(`${policy}---\nkind: IPRestriction\nname: r\nspec: {type: api, ip_policies: [{name: office}]}\n`)).toEqual(['wrong_type@9:33']);
  });
  test('lifecycle and adopt are accepted at document level', async () => {
    expect(await problems(`kind: IPPolicy\nname: p\nadopt: ipp_1\nlifecycle: {prevent_destroy: true}\nspec: {}\n`)).toEqual([]);
  });
});

describe('validate: variables, names and references', () => {
  test('a missing ${env:NAME} names the variable, never a value', async () => {
    const dir = write({ 'm.yaml': 'kind: IPPolicy\nname: p\nspec: {description: "${env:NOPE}"}\n' });
    const [p] = await validateManifests({ paths: [dir], env: { OTHER: 'x' } });
    expect(p).toMatchObject({ code: 'env_missing', at: { line: 3, col: 21 } });
    expect(p!.message).toContain('NOPE');
  });
  test('a missing ${env:NAME} is reported once, not again as the empty value it leaves', async () => {
    const yaml = [
      'kind: HTTPSEdge',
      'name: e',
      'spec:',
      '  hostports: ["${env:HOST}"]',
      '  routes:',
      '    - match_type: path_prefix',
      '      match: /',
      '      oidc: {issuer: "https://id.example.com", client_id: x, client_secret: "${env:SECRET}"}',
      '    - match_type: path_prefix',
      '      match: /hook',
      '      webhook_verification: {provider: github, secret: "${env:HOOK}"}', // no "github needs a secret"
      '---',
      'kind: BotUser',
      'name: "${env:BOT}"',
      'spec: {}',
      '',
    ].join('\n');
    expect(await problems(yaml)).toEqual(['env_missing@4:15', 'env_missing@8:77', 'env_missing@11:56', 'env_missing@14:7']);
    // A value the variable does not come from is still checked.
    expect(await problems(yaml.replace('client_id: x', 'client_id: ""'), { HOST: 'a.example.com:443', BOT: 'b', HOOK: 'h' })).toEqual([
      'invalid_value@8:59',
      'env_missing@8:78',
      // A name never comes from a secret variable (identity/env-secrets.test.ts).
      'env_secret_identity@14:7',
    ]);
    // An empty secret written as such is still reported, at the secret.
    expect(await problems(yaml.replace('"${env:HOOK}"', '""'), { HOST: 'a.example.com:443', BOT: 'b', SECRET: 's' })).toEqual([
      'module_invalid@11:56',
      'env_secret_identity@14:7',
    ]);
  });
  test('duplicate names per kind (same name in another kind is fine)', async () => {
    expect(await problems(`${policy}---\nkind: IPPolicy\nname: office\nspec: {}\n---\nkind: BotUser\nname: office\nspec: {}\n`)).toEqual([
      'duplicate_name@8:7',
    ]);
  });
  test('a reference to a missing name, and to a name of another kind', async () => {
    const yaml = `kind: Backend\nname: web\nspec: {type: tunnel_group, labels: {app: web}}\n---\nkind: IPRestriction\nname: r\nspec:\n  type: api\n  ip_policies: [nowhere, web]\n`;
    expect(await problems(yaml)).toEqual(['reference_missing@9:17', 'reference_wrong_kind@9:26']);
    // The article follows the sound: "an IPPolicy", "a Backend".
    const [wrong] = await validateManifests({
      paths: [write({ 'm.yaml': `${policy}---\nkind: TCPEdge\nname: ssh\nspec: {backend: {backend: office}}\n` })],
      env: {},
    });
    expect(wrong!.message).toBe('"office" is an IPPolicy, but a Backend is expected here; name a Backend manifest or write {id: "<id>"}');
  });
  test('reference cycles among failover backends', async () => {
    const yaml = `kind: Backend\nname: a\nspec: {type: failover, backends: [b]}\n---\nkind: Backend\nname: b\nspec: {type: weighted, backends: {a: 1}}\n`;
    const dir = write({ 'm.yaml': yaml });
    const [p] = await validateManifests({ paths: [dir] });
    // At the reference that closes the cycle: b's weighted key `a`.
    expect(p).toMatchObject({ code: 'reference_cycle', at: { line: 7, col: 35 } });
    expect(p!.message).toContain('Backend/a -> Backend/b -> Backend/a');
  });
  test('a reference cycle is reported at the reference that closes it, in any document order', async () => {
    const yaml = [
      'kind: Backend',
      'name: c',
      'spec: {type: failover, backends: [web, a]}',
      '---',
      'kind: Backend',
      'name: a',
      'spec:',
      '  type: failover',
      '  backends:',
      '    - b',
      '---',
      'kind: Backend',
      'name: b',
      'spec: {type: failover, backends: [c]}',
      '---',
      'kind: Backend',
      'name: web',
      'spec: {type: tunnel_group, labels: {app: web}}',
      '',
    ].join('\n');
    const dir = write({ 'm.yaml': yaml });
    const found = await validateManifests({ paths: [dir] });
    expect(found).toHaveLength(1);
    // c -> a -> b -> c: b's reference to c (line 14) closes it.
    expect(found[0]).toMatchObject({ code: 'reference_cycle', at: { line: 14, col: 35 } });
    expect(found[0]!.message).toContain('Backend/c -> Backend/a -> Backend/b -> Backend/c');
  });
});

describe('validate: what the service would refuse', () => {
  test('CIDRs: bare address, not canonical, malformed; duplicates in a policy', async () => {
    const yaml = `kind: IPPolicy\nname: p\nspec:\n  rules:\n    - {cidr: 10.0.0.1, action: allow}\n    - {cidr: 10.0.0.1/8, action: allow}\n    - {cidr: 300.1.1.1/8, action: allow}\n    - {cidr: 192.168.0.0/16, action: allow}\n    - {cidr: 192.168.0.0/16, action: deny}\n`;
    expect(await problems(yaml)).toEqual(['cidr_invalid@5:14', 'cidr_invalid@6:14', 'cidr_invalid@7:14', 'duplicate_cidr@9:7']);
  });
  test('hostports: format, port 443 for HTTPS, used twice across edges of both kinds', async () => {
    const yaml = `kind: HTTPSEdge\nname: a\nspec: {hostports: ["a.example.com:80", "nohost", "b.example.com:443"]}\n---\nkind: TCPEdge\nname: t\nspec: {hostports: ["B.example.com:443", "c.example.com:70000"]}\n`;
    expect(await problems(yaml)).toEqual(['hostport_invalid@3:20', 'hostport_invalid@3:40', 'duplicate_hostport@7:20', 'hostport_invalid@7:41']);
  });
  test('routes: duplicate match per edge, invalid match', async () => {
    const yaml = `kind: HTTPSEdge\nname: e\nspec:\n  routes:\n    - {match_type: path_prefix, match: /}\n    - {match_type: exact_path, match: /}\n    - {match_type: path_prefix, match: api}\n`;
    expect(await problems(yaml)).toEqual(['duplicate_route@6:7', 'route_match_invalid@7:40']);
  });
  test('module rules: webhook, OAuth, SAML, auth exclusivity, TLS min_version', async () => {
    const yaml = [
      'kind: HTTPSEdge',
      'name: e',
      'spec:',
      '  tls_termination: {terminate_at: upstream, min_version: "1.2"}',
      '  routes:',
      '    - match_type: path_prefix',
      '      match: /a',
      '      webhook_verification: {provider: github}',
      '      oauth: {provider: {google: {client_id: x}}}',
      '      saml: {idp_metadata: "<xml/>", idp_metadata_url: "https://idp"}',
      '    - match_type: path_prefix',
      '      match: /b',
      '      webhook_verification: {provider: sns, secret: s}',
      '      oauth: {provider: {}}',
      '    - match_type: path_prefix',
      '      match: /c',
      '      webhook_verification: {provider: pigeon, secret: s}',
      '',
    ].join('\n');
    expect(await problems(yaml)).toEqual([
      'module_invalid@4:58', // min_version with terminate_at upstream
      'module_invalid@8:29', // github webhook without a secret
      'module_invalid@9:14', // oauth and saml both enabled
      'module_invalid@9:14', // OAuth on a route other than /
      'module_invalid@9:34', // OAuth client_id without client_secret
      'module_invalid@10:13', // SAML with both idp_metadata and idp_metadata_url
      'module_invalid@13:53', // sns takes no secret
      'module_invalid@14:14', // OAuth on a route other than /
      'module_invalid@14:25', // OAuth names no provider
      'module_invalid@17:40', // unknown webhook provider
    ]);
  });
  test('OAuth: the managed application needs who may sign in; only on the route /', async () => {
    const edge = (match: string, provider: string) =>
      `kind: HTTPSEdge\nname: e\nspec:\n  routes:\n    - match_type: path_prefix\n      match: ${match}\n      oauth: {provider: ${provider}}\n`;
    expect(await problems(edge('/', '{google: {email_domains: [example.com]}}'))).toEqual([]);
    expect(await problems(edge('/', '{microsoft: {email_addresses: [a@example.com], scopes: []}}'))).toEqual([]);
    expect(await problems(edge('/', '{github: {client_id: i, client_secret: s, scopes: [read:org]}}'))).toEqual([]);
    expect(await problems(edge('/', '{google: {}}'))).toEqual(['module_invalid@7:34']);
    expect(await problems(edge('/', '{google: {scopes: [email], email_domains: [example.com]}}'))).toEqual(['module_invalid@7:43']);
    expect(await problems(edge('/oncall', '{google: {email_domains: [example.com]}}'))).toEqual(['module_invalid@7:14']);
  });
  test('request headers: the same name twice, case-insensitively', async () => {
    const yaml = `kind: HTTPSEdge\nname: e\nspec:\n  routes:\n    - match_type: path_prefix\n      match: /\n      request_headers: {add: {X-A: "1", x-a: "2"}}\n`;
    expect(await problems(yaml)).toEqual(['module_invalid@7:46']);
  });
  test('two IP restrictions of one type', async () => {
    const yaml = `${policy}---\nkind: IPRestriction\nname: a\nspec: {type: api, ip_policies: [office]}\n---\nkind: IPRestriction\nname: b\nspec: {type: api, ip_policies: [office]}\n`;
    expect(await problems(yaml)).toEqual(['duplicate_restriction_type@13:14']);
  });
  test('metadata that leaves no room for the ownership marker', async () => {
    const yaml = `kind: IPPolicy\nname: p\nspec: {metadata: "${'x'.repeat(4050)}"}\n`;
    const dir = write({ 'm.yaml': yaml });
    const [p] = await validateManifests({ paths: [dir] });
    expect(p).toMatchObject({ code: 'metadata_too_long', at: { line: 3, col: 18 } });
  });
});

describe('validate: reporting', () => {
  test('all problems of all files come together, in file order', async () => {
    const dir = write({
      'a.yaml': 'kind: IPPolicy\nname: p\nspec: {color: red}\n',
      'b.yaml': 'kind: IPRestriction\nname: r\nspec: {type: api, ip_policies: [ghost]}\n',
    });
    const found = await validateManifests({ paths: [dir] });
    expect(found.map((p) => [p.code, p.at!.file.split('/').pop()])).toEqual([
      ['unknown_field', 'a.yaml'],
      ['reference_missing', 'b.yaml'],
    ]);
  });
  test('a document that fails its schema is still checked in its valid parts', async () => {
    const yaml = [
      'kind: HTTPSEdge',
      'name: e',
      'spec:',
      '  colour: red', // unknown field: the schema fails
      '  hostports: ["a.example.com:80"]', // wrong port for HTTPS
      '  routes:',
      '    - {match_type: path_prefix, match: /, backend: {backend: nowhere}}', // broken reference
      '    - {match_type: path_prefix, match: /x, circuit_breaker: {num_buckets: 500}}', // out of range: this route is left out
      '---',
      'kind: IPPolicy',
      'name: p',
      'spec:',
      '  rules:',
      '    - {cidr: 10.0.0.0/8, action: allow, comment: hi}', // unknown field in one rule
      '    - {cidr: 10.0.0.1/8, action: allow}', // not canonical
      '    - {cidr: 10.0.0.0/8, action: deny}', // duplicate of the left-out rule: not reported
      '',
    ].join('\n');
    expect(await problems(yaml)).toEqual([
      'unknown_field@4:3',
      'hostport_invalid@5:15',
      'reference_missing@7:62',
      'invalid_value@8:75',
      'unknown_field@14:41',
      'cidr_invalid@15:14',
    ]);
  });
  test('a part left out of a failed document does not make its neighbours report nonsense', async () => {
    const yaml = [
      'kind: HTTPSEdge',
      'name: e',
      'spec:',
      '  routes:',
      '    - match_type: path_prefix',
      '      match: /',
      '      webhook_verification: {provider: github, secret: [not, a, string]}', // no "github needs a secret"
      '---',
      'kind: IPRestriction',
      'name: r',
      'spec: {type: api, enforced: "yes", ip_policies: [{name: x}]}', // required field wrong: goes no further
      '---',
      'kind: IPRestriction',
      'name: s',
      'spec: {type: dashboard, ip_policies: [ghost]}', // still checked
      '',
    ].join('\n');
    expect(await problems(yaml)).toEqual(['wrong_type@7:56', 'wrong_type@11:29', 'wrong_type@11:50', 'reference_missing@15:39']);
  });
  test('the valid parts of a failed document are never planned', async () => {
    const dir = write({ 'm.yaml': 'kind: IPPolicy\nname: p\nspec: {colour: red}\n' });
    const read = await readManifests({ paths: [dir] });
    expect(read.problems.map((p) => p.code)).toEqual(['unknown_field']);
    expect(read.desired).toEqual([]);
  });
  test('computePlan throws ManifestProblems carrying them, before any request', async () => {
    const dir = write({ 'm.yaml': 'kind: IPPolicy\nname: p\nspec: {color: red}\n' });
    const api = new FakeLiveApi();
    await expect(computePlan({ paths: [dir], api, stack: 'default' })).rejects.toBeInstanceOf(ManifestProblems);
    expect(api.requestCount).toBe(0);
    // A valid plan lists the API: the count above is not zero for want of counting.
    const valid = new FakeLiveApi();
    await computePlan({ paths: [write({ 'm.yaml': policy })], api: valid, stack: 'default' });
    expect(valid.requestCount).toBeGreaterThan(0);
    const unreachable = Object.assign(Object.create(api) as FakeLiveApi, {
      // eslint-disable-next-line require-yield
      async *list(): AsyncIterable<never> {
        throw new Error('connect ECONNREFUSED');
      },
    });
    await expect(computePlan({ paths: [dir], api: unreachable, stack: 'default' })).rejects.toBeInstanceOf(ManifestProblems);
  });
  test('a unique key held by an unowned live object needs an explicit adopt', async () => {
    const dir = write({ 'm.yaml': `${policy}---\nkind: IPRestriction\nname: r\nspec: {type: api, ip_policies: [office]}\n` });
    const api = new FakeLiveApi({ '/ip_restrictions': [{ id: 'ipx_9', type: 'api', enforced: false, ip_policies: [] }] });
    const error = await computePlan({ paths: [dir], api, stack: 'default' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ManifestProblems);
    const [p] = (error as ManifestProblems).problems;
    expect(p).toMatchObject({ code: 'adoption_required', at: { line: 9, col: 14 } });
    expect(p!.message).toContain('adopt: ipx_9');
  });
});

describe('validate: backends', () => {
  test('an http_response header name the service refuses', async () => {
    expect(await problems('kind: Backend\nname: b\nspec:\n  type: http_response\n  headers: {"Bad Header": x}\n')).toEqual(['invalid_value@5:13']);
  });
  test('a backend spec of the wrong shape for its type', async () => {
    expect(await problems('kind: Backend\nname: b\nspec: {type: failover, labels: {a: b}}\n')).toEqual(['missing_field@3:7', 'unknown_field@3:24']);
  });
});
