import { describe, expect, test } from 'vitest';
import { attributeVariables, interpolate } from './interpolate.js';
import { parseFile, type LoadedDocument } from './documents.js';

const doc = (value: unknown): LoadedDocument => ({ file: 'm.yaml', index: 0, value, locate: (path) => ({ file: 'm.yaml', line: path.length, col: 1 }) });

test('substitutes variables anywhere in any string, nested in maps and lists', () => {
  const { documents, problems } = interpolate([doc({ spec: { issuer: 'https://${env:HOST}/oidc', scopes: ['${env:SCOPE}', 'email'], n: 3 } })], {
    HOST: 'id.example.com',
    SCOPE: 'openid',
  });
  expect(problems).toEqual([]);
  expect(documents[0]!.value).toEqual({ spec: { issuer: 'https://id.example.com/oidc', scopes: ['openid', 'email'], n: 3 } });
});

test('$${env:NAME} is a literal', () => {
  const { documents } = interpolate([doc({ a: 'cost: $${env:X}' })], {});
  expect(documents[0]!.value).toEqual({ a: 'cost: ${env:X}' });
});

test('a missing variable is a problem naming it at the string, never showing other values', () => {
  const { problems } = interpolate([doc({ spec: { secret: '${env:MISSING}-${env:SET}' } })], { SET: 'hunter2' });
  expect(problems).toHaveLength(1);
  expect(problems[0]).toMatchObject({ code: 'env_missing', at: { line: 2 } });
  expect(problems[0]!.message).toContain('MISSING');
  expect(problems[0]!.message).not.toContain('hunter2');
});

test('a variable set but empty (or blank) is missing too: a problem saying so, or with a stand-in a warning', () => {
  const strict = interpolate([doc({ spec: { secret: '${env:EMPTY}', other: '${env:BLANK}' } })], { EMPTY: '', BLANK: '  ' });
  expect(strict.problems.map((p) => [p.code, p.message])).toEqual([
    ['env_missing', 'environment variable EMPTY is set but empty; set it or remove ${env:EMPTY}'],
    ['env_missing', 'environment variable BLANK is set but empty; set it or remove ${env:BLANK}'],
  ]);
  const lenient = interpolate([doc({ spec: { secret: '${env:EMPTY}' } })], { EMPTY: '' }, { unsetEnvStandIn: 'stand-in' });
  expect(lenient.problems).toEqual([]);
  expect(lenient.unsetEnv.map((p) => p.message)).toEqual([
    'environment variable EMPTY is set but empty (plan and apply need it; --strict-env makes this an error)',
  ]);
  expect(lenient.documents[0]!.value).toEqual({ spec: { secret: 'stand-in' } });
});

const vars = (values: Record<string, unknown>) => ({
  environment: 'staging',
  values,
  locate: (name: string) => ({ file: 'gatehouse.yaml', line: Object.keys(values).indexOf(name) + 10, col: 7 }),
});

describe('${var:NAME}', () => {
  test("a whole-value placeholder takes the variable's YAML type; inside text it is text", () => {
    const { documents, problems } = interpolate(
      [
        doc({
          spec: {
            enforced: '${var:enforce}',
            code: '${var:code}',
            list: '${var:cidrs}',
            map: '${var:headers}',
            host: 'api.${var:domain}:443',
            note: 'code ${var:code}, on ${var:enforce}',
          },
        }),
      ],
      {},
      { vars: vars({ enforce: false, code: 503, cidrs: ['10.0.0.0/8'], headers: { a: 'b' }, domain: 'example.com' }) },
    );
    expect(problems).toEqual([]);
    expect(documents[0]!.value).toEqual({
      spec: { enforced: false, code: 503, list: ['10.0.0.0/8'], map: { a: 'b' }, host: 'api.example.com:443', note: 'code 503, on false' },
    });
  });

  test('unknown, unused and list-in-text variables are problems at their lines', () => {
    const { problems } = interpolate([doc({ spec: { a: '${var:missing}', b: 'x-${var:cidrs}' } })], {}, { vars: vars({ cidrs: ['10.0.0.0/8'], spare: 1 }) });
    expect(problems.map((p) => [p.code, p.at?.file, p.at?.line])).toEqual([
      ['var_unknown', 'm.yaml', 2],
      ['var_wrong_type', 'm.yaml', 2],
      ['var_unused', 'gatehouse.yaml', 11],
    ]);
    expect(problems[0]!.message).toContain('missing');
    expect(problems[0]!.message).toContain('declared: cidrs, spare');
    expect(problems[2]!.message).toContain('spare');
  });

  test('without an environment every ${var:} is unknown', () => {
    const { problems } = interpolate([doc({ a: '${var:domain}' })], {});
    expect(problems).toMatchObject([{ code: 'var_unknown' }]);
    expect(problems[0]!.message).toContain('--env');
  });

  test('a wrong type from a variable names the variable and where it is declared', () => {
    const used = interpolate([doc({ spec: { enforced: '${var:enforce}' } })], {}, { vars: vars({ enforce: 'yes' }) });
    const at = { file: 'm.yaml', line: 2, col: 1 };
    const [p] = attributeVariables([{ code: 'wrong_type', message: 'spec.enforced must be a boolean', at }], used.variableUses, vars({ enforce: 'yes' }));
    expect(p).toMatchObject({ code: 'var_wrong_type', at });
    expect(p!.message).toBe(
      'spec.enforced must be a boolean, but ${var:enforce} = "yes" (gatehouse.yaml:10:7) in environment staging; change the variable or the field',
    );
  });
});

describe('unknown placeholders', () => {
  test('${...} and $NAME that are not env/var are problems; $${...} and $$NAME are literals', () => {
    const { documents, problems } = interpolate(
      [doc({ a: '${STRIPE_SECRET}', b: 'key $API_KEY', c: '$${STRIPE_SECRET} $$HOME $${env:X} $${var:y}', d: 'costs $5, ends$' })],
      {},
    );
    expect(problems.map((p) => p.code)).toEqual(['unknown_placeholder', 'unknown_placeholder']);
    expect(problems[0]!.message).toContain('${env:STRIPE_SECRET}');
    expect(problems[1]!.message).toContain('$API_KEY');
    expect((documents[0]!.value as Record<string, string>).c).toBe('${STRIPE_SECRET} $HOME ${env:X} ${var:y}');
    expect((documents[0]!.value as Record<string, string>).d).toBe('costs $5, ends$');
  });

  test('render mode keeps ${env:} and escapes, and escapes variable text', () => {
    const { documents, problems } = interpolate(
      [doc({ a: '${env:SECRET}', b: '$${env:X}', c: '${var:price}', d: 'p ${var:price}' })],
      {},
      { keepEnv: true, vars: vars({ price: '${literally}' }) },
    );
    expect(problems).toEqual([]);
    expect(documents[0]!.value).toEqual({ a: '${env:SECRET}', b: '$${env:X}', c: '$${literally}', d: 'p $${literally}' });
  });
});

test('documents without a placeholder are passed on as read, not copied; placeholders are substituted', () => {
  const read = (text: string) => parseFile('m.yaml', text).documents;
  const plain = read('kind: BotUser\nname: a\nspec: {active: true}\n---\nkind: BotUser\nname: b\n');
  const result = interpolate(plain, {});
  expect(result.documents[0]).toBe(plain[0]);
  expect(result.documents[1]).toBe(plain[1]);
  const withDollar = read('kind: BotUser\nname: a\nspec: {active: true}\n---\nkind: BotUser\nname: ${env:NAME}\n');
  expect(interpolate(withDollar, { NAME: 'b' }).documents[1]!.value).toEqual({ kind: 'BotUser', name: 'b' });
  // A value that replaced a read one (an overlay merges into a copy) is substituted too.
  const copy = { ...doc({ name: '${env:NAME}' }) };
  expect(interpolate([copy], { NAME: 'c' }).documents[0]!.value).toEqual({ name: 'c' });
});

describe("the service's own ${...} (traffic policies, header values)", () => {
  const route = (fields: Record<string, unknown>) => ({
    kind: 'HTTPSEdge',
    name: 'gslb',
    spec: { routes: [{ match_type: 'path_prefix', match: '/', ...fields }] },
  });

  test('stays as written in a traffic policy and in header values; ${env:} and ${var:} are substituted there too', () => {
    const policy =
      '{"on_http_request":[{"expressions":["conn.geo.country_code == \'US\'"],"actions":[{"type":"custom-response","config":{"body":"${req.url.path} from ${conn.geo.country_code} $HOME"}}]}]}';
    const { documents, problems } = interpolate(
      [
        doc(
          route({
            traffic_policy: { value: policy },
            request_headers: { add: { 'x-country': '${.ngrok.geo.country_code}', 'x-team': '${env:TEAM}' } },
            response_headers: { add: { 'x-env': '${var:stage} $${env:NOT}' } },
          }),
        ),
        doc({ kind: 'TCPEdge', name: 'ssh', spec: { traffic_policy: { value: '${conn.client_ip}' } } }),
      ],
      { TEAM: 'platform' },
      { vars: vars({ stage: 'staging' }) },
    );
    expect(problems).toEqual([]);
    const [edge, tcp] = documents.map((d) => d.value as { spec: Record<string, any> });
    expect(edge!.spec.routes[0].traffic_policy.value).toBe(policy);
    expect(edge!.spec.routes[0].request_headers.add).toEqual({ 'x-country': '${.ngrok.geo.country_code}', 'x-team': 'platform' });
    expect(edge!.spec.routes[0].response_headers.add).toEqual({ 'x-env': 'staging ${env:NOT}' });
    expect(tcp!.spec.traffic_policy.value).toBe('${conn.client_ip}');
  });

  test('elsewhere, a bare ${NAME} or $NAME is still a problem with its hint', () => {
    const { problems } = interpolate(
      [doc(route({ description: 'for ${COUNTRY}', request_headers: { remove: ['$HOME'] }, traffic_policy: { value: 'v', enabled: true } }))],
      {},
    );
    expect(problems.map((p) => [p.code, p.message])).toEqual([
      ['unknown_placeholder', expect.stringContaining('"${COUNTRY}" is not a placeholder gatehouse knows; write ${env:COUNTRY}')],
      ['unknown_placeholder', expect.stringContaining('"$HOME" looks like a shell variable')],
    ]);
  });
});
