import { describe, expect, test } from 'vitest';
import { parseFile, type LoadedDocument } from '../load/documents.js';
import { applyOverlays } from './overlay.js';

function docs(file: string, text: string): LoadedDocument[] {
  const { documents, problems } = parseFile(file, text);
  expect(problems).toEqual([]);
  return documents;
}

const BASE = `kind: HTTPSEdge
name: api
spec:
  description: api edge
  hostports: [api.example.com:443]
  routes:
    - match_type: path_prefix
      match: /
      description: root
      backend: {http_response: {status_code: 200, body: ok}}
    - match_type: path_prefix
      match: /old
      backend: web
---
kind: IPPolicy
name: office
spec:
  description: office
  rules:
    - {cidr: 10.0.0.0/8, action: allow, description: lan}
    - {cidr: 192.168.0.0/16, action: allow}
---
kind: IPRestriction
name: dashboard
spec:
  type: dashboard
  enforced: true
  ip_policies: [office]
`;

const base = () => docs('base.yaml', BASE);
const byName = (documents: LoadedDocument[], name: string) => documents.find((d) => (d.value as { name: string }).name === name)!;

describe('merge overlays (RFC 7386)', () => {
  test('maps merge, null removes, routes merge by match, new routes are appended', () => {
    const overlay = docs(
      'env.yaml',
      `kind: HTTPSEdge
name: api
spec:
  description: null
  hostports: [api.staging.example.com:443]
  routes:
    - match: /
      backend: {http_response: {status_code: 503}}
    - match_type: path_prefix
      match: /new
      backend: web
`,
    );
    const { documents, problems } = applyOverlays(base(), overlay);
    expect(problems).toEqual([]);
    const edge = byName(documents, 'api');
    expect(edge.value).toEqual({
      kind: 'HTTPSEdge',
      name: 'api',
      spec: {
        hostports: ['api.staging.example.com:443'],
        routes: [
          { match_type: 'path_prefix', match: '/', description: 'root', backend: { http_response: { status_code: 503, body: 'ok' } } },
          { match_type: 'path_prefix', match: '/old', backend: 'web' },
          { match_type: 'path_prefix', match: '/new', backend: 'web' },
        ],
      },
    });
    // What the overlay wrote is located in the overlay; the rest in the base.
    expect(edge.locate(['spec', 'hostports', 0])).toMatchObject({ file: 'env.yaml', line: 5 });
    expect(edge.locate(['spec', 'routes', 0, 'backend', 'http_response', 'status_code'])).toMatchObject({ file: 'env.yaml', line: 8 });
    expect(edge.locate(['spec', 'routes', 0, 'backend', 'http_response', 'body'])).toMatchObject({ file: 'base.yaml', line: 10 });
    expect(edge.locate(['spec', 'routes', 0, 'description'])).toMatchObject({ file: 'base.yaml', line: 9 });
    expect(edge.locate(['spec', 'routes', 1, 'backend'])).toMatchObject({ file: 'base.yaml', line: 13 });
    expect(edge.locate(['spec', 'routes', 2, 'match'])).toMatchObject({ file: 'env.yaml', line: 10, col: 14 });
    expect(edge.locate(['spec', 'routes', 2, 'match'], { key: true })).toMatchObject({ file: 'env.yaml', line: 10, col: 7 });
  });

  test('rules merge by cidr; delete: true on an item removes it', () => {
    const overlay = docs(
      'env.yaml',
      `kind: IPPolicy
name: office
spec:
  rules:
    - {cidr: 10.0.0.0/8, action: deny}
    - {cidr: 192.168.0.0/16, delete: true}
    - {cidr: 172.16.0.0/12, action: allow}
`,
    );
    const { documents, problems } = applyOverlays(base(), overlay);
    expect(problems).toEqual([]);
    expect((byName(documents, 'office').value as { spec: unknown }).spec).toEqual({
      description: 'office',
      rules: [
        { cidr: '10.0.0.0/8', action: 'deny', description: 'lan' },
        { cidr: '172.16.0.0/12', action: 'allow' },
      ],
    });
    const office = byName(documents, 'office');
    expect(office.locate(['spec', 'rules', 0, 'action'])).toMatchObject({ file: 'env.yaml', line: 5 });
    expect(office.locate(['spec', 'rules', 0, 'description'])).toMatchObject({ file: 'base.yaml', line: 20 });
    expect(office.locate(['spec', 'rules', 1, 'cidr'])).toMatchObject({ file: 'env.yaml', line: 7 });
  });

  test('a list item without its key, and a deleted item that does not exist, are problems at the overlay', () => {
    const overlay = docs(
      'env.yaml',
      `kind: IPPolicy
name: office
spec:
  rules:
    - {action: deny}
    - {cidr: 1.2.3.0/24, delete: true}
`,
    );
    const { problems } = applyOverlays(base(), overlay);
    expect(problems.map((p) => [p.code, p.at?.file, p.at?.line])).toEqual([
      ['overlay_invalid', 'env.yaml', 5],
      ['overlay_target_missing', 'env.yaml', 6],
    ]);
  });
});

describe('patch overlays (RFC 6902)', () => {
  test('operations apply in order; positions follow shifted list items', () => {
    const overlay = docs(
      'env.yaml',
      `kind: HTTPSEdge
name: api
patch:
  - {op: replace, path: /spec/description, value: patched}
  - {op: add, path: /spec/routes/0, value: {match_type: path_prefix, match: /first, backend: web}}
  - {op: remove, path: /spec/routes/2}
  - {op: test, path: /spec/routes/1/match, value: /}
`,
    );
    const { documents, problems } = applyOverlays(base(), overlay);
    expect(problems).toEqual([]);
    const edge = byName(documents, 'api');
    const spec = (edge.value as { spec: { description: string; routes: { match: string }[] } }).spec;
    expect(spec.description).toBe('patched');
    expect(spec.routes.map((r) => r.match)).toEqual(['/first', '/']);
    expect(edge.locate(['spec', 'description'])).toMatchObject({ file: 'env.yaml', line: 4 });
    expect(edge.locate(['spec', 'routes', 0, 'match'])).toMatchObject({ file: 'env.yaml', line: 5 });
    expect(edge.locate(['spec', 'routes', 1, 'description'])).toMatchObject({ file: 'base.yaml', line: 9 });
  });

  test('an operation that cannot apply is a problem at its line, and the patch is not applied', () => {
    const overlay = docs(
      'env.yaml',
      `kind: IPRestriction
name: dashboard
patch:
  - {op: replace, path: /spec/enforced, value: false}
  - {op: remove, path: /spec/nothing}
`,
    );
    const { documents, problems } = applyOverlays(base(), overlay);
    expect(problems).toMatchObject([{ code: 'overlay_patch_failed', at: { file: 'env.yaml', line: 5 } }]);
    expect((byName(documents, 'dashboard').value as { spec: { enforced: boolean } }).spec.enforced).toBe(true);
    const failedTest = applyOverlays(
      base(),
      docs('env.yaml', 'kind: IPRestriction\nname: dashboard\npatch:\n  - {op: test, path: /spec/enforced, value: false}\n'),
    );
    expect(failedTest.problems).toMatchObject([{ code: 'overlay_patch_failed', at: { line: 4 } }]);
    expect(failedTest.problems[0]!.message).toContain('test');
  });
});

describe('delete and new objects', () => {
  test('delete: true removes the object; an unknown name is a new object; errors name the overlay line', () => {
    const overlay = docs(
      'env.yaml',
      `kind: IPRestriction
name: dashboard
delete: true
---
kind: IPPolicy
name: extra
spec: {description: only here}
---
kind: IPPolicy
name: ghost
delete: true
---
kind: IPPolicy
name: office
delete: true
spec: {}
---
kind: IPPolicy
name: ghost2
patch: []
---
name: no-kind
`,
    );
    const { documents, problems } = applyOverlays(base(), overlay);
    expect(documents.map((d) => (d.value as { name: string }).name)).toEqual(['api', 'office', 'extra']);
    expect(byName(documents, 'extra').file).toBe('env.yaml');
    expect(problems.map((p) => [p.code, p.at?.line])).toEqual([
      ['overlay_target_missing', 11],
      ['overlay_invalid', 16],
      ['overlay_target_missing', 20],
      ['overlay_invalid', 22],
    ]);
  });
});

describe('overlay problems are located at the overlay, whatever the patch touches', () => {
  const locate = (documents: LoadedDocument[], name: string, path: (string | number)[]) => {
    const at = byName(documents, name).locate(path);
    return `${at.file}:${at.line}`;
  };

  test('a patch of /kind: every problem of the base document is at the operation', () => {
    const { documents } = applyOverlays(base(), docs('env.yaml', 'kind: IPPolicy\nname: office\npatch:\n  - {op: replace, path: /kind, value: Backend}\n'));
    for (const path of [['kind'], ['spec'], ['spec', 'rules', 0, 'cidr'], []]) expect(locate(documents, 'office', path), path.join('.')).toBe('env.yaml:4');
    // Other documents are not affected.
    expect(locate(documents, 'dashboard', ['spec', 'type'])).toBe('base.yaml:26');
  });

  test('a removed field is reported at the remove (or the merge null) that removed it', () => {
    const patched = applyOverlays(
      base(),
      docs(
        'env.yaml',
        'kind: IPPolicy\nname: office\npatch:\n  - {op: remove, path: /spec}\n  - {op: add, path: /spec, value: {rules: []}}\n  - {op: remove, path: /spec/rules}\n',
      ),
    ).documents;
    expect(locate(patched, 'office', [])).toBe('env.yaml:4');
    expect(locate(patched, 'office', ['spec'])).toBe('env.yaml:6');
    const merged = applyOverlays(base(), docs('env.yaml', 'kind: IPRestriction\nname: dashboard\nspec:\n  type: null\n')).documents;
    expect(locate(merged, 'dashboard', ['spec'])).toBe('env.yaml:4');
    expect(locate(merged, 'dashboard', ['spec', 'enforced'])).toBe('base.yaml:27');
  });

  test('a replace of the whole document is located in its value', () => {
    const { documents } = applyOverlays(
      base(),
      docs(
        'env.yaml',
        'kind: IPPolicy\nname: office\npatch:\n  - op: replace\n    path: ""\n    value:\n      kind: IPPolicy\n      name: office\n      spec:\n        descriptionx: 1\n',
      ),
    );
    expect(locate(documents, 'office', ['spec', 'descriptionx'])).toBe('env.yaml:10');
    expect(locate(documents, 'office', [])).toBe('env.yaml:7');
  });
});
