import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createHash } from 'node:crypto';
import { join, relative } from 'node:path';
import { expect, test } from 'vitest';
import { load } from './documents.js';

test('directories are searched recursively for .yaml and .yml, in path order; other files and empty documents are skipped', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-load-'));
  mkdirSync(join(dir, 'b', 'deep'), { recursive: true });
  writeFileSync(join(dir, 'b', 'deep', 'z.yml'), 'kind: BotUser\nname: z\nspec: {}\n');
  writeFileSync(join(dir, 'a.yaml'), '---\nkind: BotUser\nname: a1\nspec: {}\n---\n---\nkind: BotUser\nname: a2\nspec: {}\n');
  writeFileSync(join(dir, 'notes.txt'), 'kind: BotUser\n');
  const result = await load([dir]);
  expect(result.problems).toEqual([]);
  expect(result.documents.map((d) => (d.value as { name: string }).name)).toEqual(['a1', 'a2', 'z']);
  // Positions are per document, in its own file.
  expect(result.documents[1]!.locate(['name'])).toMatchObject({ line: 8, col: 7 });
  expect(result.documents[2]!.locate(['name'])).toMatchObject({ line: 2, col: 7 });
});

test('the checksum changes with any manifest byte', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-load-'));
  writeFileSync(join(dir, 'a.yaml'), 'kind: BotUser\nname: a\nspec: {}\n');
  const first = (await load([dir])).checksum;
  expect((await load([dir])).checksum).toBe(first);
  writeFileSync(join(dir, 'a.yaml'), 'kind: BotUser\nname: a\nspec: {active: true}\n');
  expect((await load([dir])).checksum).not.toBe(first);
});

test("the checksum is sha256 over each read file's display name, NUL, text, NUL (saved plans of earlier versions still match); excluded files do not count", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-load-'));
  const a = '\ufeffkind: BotUser\nname: a\nspec: {}\n# café ☃\n';
  const b = 'kind: BotUser\nname: b\nspec: {}\n';
  writeFileSync(join(dir, 'a.yaml'), a);
  writeFileSync(join(dir, 'b.yml'), b);
  writeFileSync(join(dir, 'ci.yaml'), 'jobs: {}\n');
  const names = [join(dir, 'a.yaml'), join(dir, 'b.yml')].map((f) => relative(process.cwd(), f));
  const display = names.map((n, i) => (n && !n.startsWith('..') ? n : [join(dir, 'a.yaml'), join(dir, 'b.yml')][i]!));
  const expected = createHash('sha256').update(`${display[0]}\0${a}\0${display[1]}\0${b}\0`).digest('hex');
  expect((await load([dir], { exclude: { globs: ['ci.yaml'], base: dir, file: 'gatehouse.yaml' } })).checksum).toBe(expected);
});

test('a missing path and a path without manifests are problems', async () => {
  const missing = await load(['/nonexistent/gatehouse']);
  expect(missing.problems.map((p) => p.code)).toEqual(['path_unreadable']);
  const empty = await load([mkdtempSync(join(tmpdir(), 'gatehouse-load-'))]);
  expect(empty.problems.map((p) => p.code)).toEqual(['no_manifests']);
});

test('a duplicate key in a mapping is a YAML problem at its position', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-load-'));
  writeFileSync(join(dir, 'a.yaml'), 'kind: BotUser\nname: a\nname: b\nspec: {}\n');
  const result = await load([dir]);
  expect(result.problems).toHaveLength(1);
  expect(result.problems[0]).toMatchObject({ code: 'yaml_syntax', at: { line: 3, col: 1 } });
});

test('a quoted value continued on a line not indented past its block is a YAML problem where its first line ends', async () => {
  const { parseFile } = await import('./documents.js');
  const cases: [string, number, number][] = [
    ["kind: BotUser\nname: a\nspec:\n  description:\n    - 'x\n  y'\n", 5, 9],
    ['kind: BotUser\nname: a\nspec:\n  description:\n    - "x\n    y"\n', 5, 9],
    ['kind: BotUser\nname: a\nspec:\n  description: "x\n  y"\n', 4, 18],
    ["kind: BotUser\nname: a\nspec:\n  labels: {c: 'x\n y'}\n", 4, 17],
  ];
  for (const [text, line, col] of cases) {
    const { documents, problems } = parseFile('m.yaml', text);
    expect(documents, text).toEqual([]);
    expect(problems, text).toEqual([
      { code: 'yaml_syntax', message: expect.stringContaining('invalid YAML: Missing closing'), at: { file: 'm.yaml', line, col } },
    ]);
  }
});

test('positions through comments, empty documents, block and flow styles', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-load-'));
  const text = [
    '# yaml-language-server: $schema=x.json', // a comment before the first document
    '---',
    '# only a comment: an empty document',
    '---',
    'kind: BotUser',
    'name: a',
    'spec: {active: true}',
    '---',
    '---',
    'kind: IPPolicy',
    'name: p',
    'spec:',
    '  rules:',
    '    - cidr: 10.0.0.0/8',
    '      action: allow',
    '    - {cidr: 10.1.0.0/16, action: deny}',
    '',
  ].join('\n');
  writeFileSync(join(dir, 'a.yaml'), text);
  const result = await load([dir]);
  expect(result.problems).toEqual([]);
  expect(result.documents.map((d) => (d.value as { name: string }).name)).toEqual(['a', 'p']);
  expect(result.documents[0]!.locate(['spec', 'active'])).toMatchObject({ line: 7, col: 16 });
  expect(result.documents[1]!.locate(['spec', 'rules', 0, 'action'])).toMatchObject({ line: 15, col: 15 });
  expect(result.documents[1]!.locate(['spec', 'rules', 1, 'cidr'])).toMatchObject({ line: 16, col: 14 });
  expect(result.documents[1]!.locate(['spec', 'rules', 1, 'color'])).toMatchObject({ line: 16, col: 7 }); // nearest existing node
});

test("a document with a line over 1024 characters among others: positions, indexes and problems are the file's", async () => {
  const { parseFile } = await import('./documents.js');
  const long = `# ${'x'.repeat(1100)}`;
  const text = [
    '# leading comment',
    '---',
    'kind: BotUser',
    'name: first',
    'spec: {}',
    '---',
    long,
    'kind: BotUser',
    'name: second',
    'spec: {}',
    '---',
    '---',
    'kind: BotUser',
    'name: third',
    'spec: {active: true}',
    '',
  ].join('\n');

  const { documents, problems } = parseFile('m.yaml', text);
  expect(problems).toEqual([]);
  expect(documents.map((d) => [(d.value as { name: string }).name, d.index])).toEqual([
    ['first', 0],
    ['second', 1],
    ['third', 3],
  ]);
  expect(documents.map((d) => d.locate(['name']).line)).toEqual([4, 9, 14]);
  expect(documents[2]!.locate(['spec', 'active'])).toEqual({ file: 'm.yaml', line: 15, col: 16 });

  // A syntax error in a later document is reported at its line in the file.
  const broken = parseFile('m.yaml', text.replace('spec: {active: true}', 'spec: {active: true')).problems;
  expect(broken.map((p) => [p.code, p.at?.line])).toEqual([['yaml_syntax', expect.any(Number)]]);
  expect(broken[0]!.at!.line).toBeGreaterThanOrEqual(15);
});

test("a document's own position is where yaml's composition puts its content", async () => {
  const { parseFile } = await import('./documents.js');
  const { parseAllDocuments, LineCounter, isScalar } = await import('yaml');
  const text = [
    '# header',
    '',
    'kind: BotUser',
    'name: a',
    'spec: {}',
    '--- # a comment on the marker',
    '',
    '# before the content',
    '  kind: BotUser',
    '  name: b',
    '  spec: {}',
    '---',
    '---',
    '{kind: BotUser, name: c, spec: {}}',
    '--- {kind: BotUser, name: d, spec: {}}',
    '',
  ].join('\n');
  const { documents } = parseFile('m.yaml', text);
  const lineCounter = new LineCounter();
  const reference = parseAllDocuments(text, { lineCounter })
    .filter((doc) => doc.contents !== null && !(isScalar(doc.contents) && doc.contents.value === null))
    .map((doc) => lineCounter.linePos(doc.contents!.range![0]));
  expect(documents.map((d) => d.locate([]))).toEqual(reference.map(({ line, col }) => ({ file: 'm.yaml', line, col })));
});

test('a directory search passes over dot-entries, node_modules and what exclude: names, with notes; other YAML is read', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-load-'));
  for (const sub of ['.github/workflows', 'node_modules/pkg', 'deploy', 'typo', 'charts/web']) mkdirSync(join(dir, sub), { recursive: true });
  writeFileSync(join(dir, 'policy.yaml'), 'kind: BotUser\nname: kept\nspec: {}\n');
  writeFileSync(join(dir, '.github/workflows/ci.yml'), 'name: ci\non: push\n');
  writeFileSync(join(dir, '.gitlab-ci.yml'), 'stages: [a]\n');
  writeFileSync(join(dir, 'node_modules/pkg/a.yaml'), 'kind: BotUser\nname: not-ours\nspec: {}\n');
  writeFileSync(join(dir, 'deploy/cm.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n');
  writeFileSync(join(dir, 'charts/web/values.yaml'), 'replicas: 2\n');
  writeFileSync(join(dir, 'typo/a.yaml'), 'kind: BotUsr\nname: typo\nspec: {}\n');
  // Without exclude:, every YAML document found is read (validate then reports what is not a manifest).
  const all = await load([dir]);
  expect(all.problems).toEqual([]);
  expect(all.documents.map((d) => d.file.replace(dir, '<dir>'))).toEqual([
    '<dir>/charts/web/values.yaml',
    '<dir>/deploy/cm.yaml',
    '<dir>/policy.yaml',
    '<dir>/typo/a.yaml',
  ]);
  // With it, the files it names are left out, each said in a note.
  const result = await load([dir], { exclude: { globs: ['deploy/**', 'charts'], base: dir, file: 'gatehouse.yaml' } });
  expect(result.problems).toEqual([]);
  expect(result.documents.map((d) => (d.value as { name: string }).name)).toEqual(['kept', 'typo']);
  expect(result.notes.map((n) => n.replace(dir, '<dir>')).sort()).toEqual([
    'excluded <dir>/charts/web/values.yaml: exclude: charts in gatehouse.yaml',
    'excluded <dir>/deploy/cm.yaml: exclude: deploy/** in gatehouse.yaml',
    'skipped <dir>/.github/: dot-files, dot-directories and node_modules are not searched (name it to read it)',
    'skipped <dir>/.gitlab-ci.yml: dot-files, dot-directories and node_modules are not searched (name it to read it)',
    'skipped <dir>/node_modules/: dot-files, dot-directories and node_modules are not searched (name it to read it)',
  ]);
  // Named explicitly, a file is always read.
  const named = await load([join(dir, 'deploy/cm.yaml'), join(dir, '.gitlab-ci.yml')], {
    exclude: { globs: ['deploy/**'], base: dir, file: 'gatehouse.yaml' },
  });
  expect(named.documents).toHaveLength(2);
  expect(named.notes).toEqual([]);
});

test('a directory whose every file is excluded is no_manifests', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-load-'));
  writeFileSync(join(dir, 'cm.yaml'), 'apiVersion: v1\nkind: ConfigMap\n');
  const result = await load([dir], { exclude: { globs: ['*.yaml'], base: dir, file: 'gatehouse.yaml' } });
  expect(result.problems.map((p) => p.code)).toEqual(['no_manifests']);
});

test('a file of 6,000 documents: every one read, the last located at its line', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-load-'));
  const documents = Array.from({ length: 6000 }, (_, i) => `---\nkind: BotUser\nname: bot-${i}\nspec: {active: true}\n`).join('');
  writeFileSync(join(dir, 'bots.yaml'), documents);
  const result = await load([dir]);
  expect(result.problems).toEqual([]);
  expect(result.documents).toHaveLength(6000);
  expect(result.documents[5999]!.value).toEqual({ kind: 'BotUser', name: 'bot-5999', spec: { active: true } });
  expect(result.documents[5999]!.locate(['spec', 'active'])).toMatchObject({ line: 4 * 5999 + 4, col: 16 });
  expect(result.documents[5999]!.locate(['spec', 'active'], { key: true })).toMatchObject({ line: 4 * 5999 + 4, col: 8 });
});
