/**
 * `locate` answers for every path of every document (values and keys) what `yaml`'s own nodes
 * say, though the nodes are dropped once a document is read (positions.ts).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import * as yaml from 'yaml';
import { expect, test } from 'vitest';
import { parseFile, type LoadedDocument } from './documents.js';

const CORPUS = [
  'kind: IPPolicy\nname: p\nspec:\n  rules:\n    - cidr: 10.0.0.0/8\n      action: allow\n    - {cidr: 10.1.0.0/16, action: deny}\n',
  'a:\nb: 1\nc:   \n\nd: # comment\n  e: 2\nf: |\n  block\ng: >-\n  folded\n',
  'x: {a, b: 1, "c": [1, {d: 2}], e: }\ny: [a, b, ]\nz: {}\nw: []\n',
  '# header\n\n---  # marker\n  kind: BotUser\n  name: b\n  spec: {}\n---\n---\n[1, [2, 3]]\n--- {a: {b: c}}\n',
  'list:\n- a\n- b: 1\n  c:\n  - d\n-   - nested\n    - more\n"quoted key": \'v\'\n1: one\ntrue: yes\n',
  'plain: multi\n  line\nquoted: "multi\n  line"\nafter: 1\n',
  'spec:\n  routes:\n    -\n      match: /\n    - # comment\n      match: /a\n',
  '\ufeffkind: BotUser\nname: bom\nspec: {active: true}\n',
  // Positions of the later documents after a byte order mark.
  '\ufeff# first\nkind: BotUser\nname: bom\n---\nkind: Backend\nname: b\nspec:\n  labels: {a: b}\n---\n---\n  x: [1, 2]\n',
  // An end marker.
  'a: 1\n...\n---\nb:\n  c: 2\n',
  'a: 1\r\nb:\r\n  c: 2\r\n',
  'a: {x: 1,\n  y: [2,\n    3]}\n',
  // Anchors, aliases (a path into an alias stops at it), tags, a directive.
  'a: &x {b: 1}\nc: *x\nd: !!str 12\ne: [*x, &y 2, *y]\n',
  '%YAML 1.1\n---\nyes: no\nlist: [a, b]\n',
];

/** Every path of a value, and the value itself (the empty path). */
function paths(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  const found = [prefix];
  if (Array.isArray(value)) value.forEach((item, i) => found.push(...paths(item, [...prefix, i])));
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) found.push(...paths(v, [...prefix, k]));
  return found;
}

/** The reference: `yaml`'s own nodes, walked from the document's content down the path. */
function reference(text: string) {
  const lineCounter = new yaml.LineCounter();
  const docs = yaml.parseAllDocuments(text, { lineCounter }) as yaml.Document[];
  return docs
    .filter((doc) => doc.contents !== null && !(yaml.isScalar(doc.contents) && doc.contents.value === null))
    .map((doc) => (path: (string | number)[], key = false) => {
      let node: unknown = doc.contents;
      let at = (doc.contents as yaml.Node).range![0];
      for (const [i, segment] of path.entries()) {
        if (yaml.isMap(node)) {
          const pair = node.items.find((p) => yaml.isScalar(p.key) && String(p.key.value) === String(segment));
          if (!pair) break;
          if (key && i === path.length - 1) return lineCounter.linePos((pair.key as yaml.Node).range![0]);
          node = pair.value;
          at = (node as yaml.Node | null)?.range?.[0] ?? (pair.key as yaml.Node).range![0];
        } else if (yaml.isSeq(node) && typeof segment === 'number') {
          node = node.items[segment];
          at = (node as yaml.Node).range![0];
        } else break;
      }
      return lineCounter.linePos(at);
    });
}

function load(text: string): LoadedDocument[] {
  const { documents, problems } = parseFile('m.yaml', text);
  expect(problems).toEqual([]);
  return documents;
}

test.each(CORPUS.map((text) => [JSON.stringify(text.slice(0, 50)), text]))('%s: every path is where yaml puts it', (_label, text) => {
  const documents = load(text);
  const located = documents.flatMap((doc) => paths(doc.value).map((path) => [path, doc.locate(path), doc.locate(path, { key: true })]));

  const expected = reference(text);
  expect(expected).toHaveLength(documents.length);
  const want = documents.flatMap((doc, i) =>
    paths(doc.value).map((path) => [path, { file: 'm.yaml', ...expected[i]!(path) }, { file: 'm.yaml', ...expected[i]!(path, true) }]),
  );
  expect(located).toEqual(want);
});

test('an empty sequence item is where yaml puts its empty scalar; the items after it are their own', () => {
  const [doc] = load('seq:\n  -\n  - b\n');
  expect(doc!.locate(['seq', 0])).toEqual({ file: 'm.yaml', line: 2, col: 4 });
  expect(doc!.locate(['seq', 1])).toEqual({ file: 'm.yaml', line: 3, col: 5 });
});

test('a path that does not exist points at its nearest existing ancestor, or the key asked for', () => {
  const [doc] = load(CORPUS[0]!);
  expect(doc!.locate(['spec', 'rules', 1, 'color'])).toEqual({ file: 'm.yaml', line: 7, col: 7 });
  expect(doc!.locate(['spec', 'rules', 9])).toEqual({ file: 'm.yaml', line: 5, col: 5 });
  expect(doc!.locate(['spec', 'rules', 0, 'action'], { key: true })).toEqual({ file: 'm.yaml', line: 6, col: 7 });
  expect(doc!.locate(['kind', 'deeper'])).toEqual({ file: 'm.yaml', line: 1, col: 7 });
});

test('the example manifests: every path located where yaml puts it', () => {
  const root = join(import.meta.dirname, '../../../../examples');
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.ya?ml$/.test(name) && !path.includes('broken')) files.push(path);
    }
  };
  walk(root);
  let checked = 0;
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const documents = load(text);
    const located = documents.map((doc) => paths(doc.value).map((path) => doc.locate(path)));
    const expected = reference(text);
    expect(located, file).toEqual(documents.map((doc, i) => paths(doc.value).map((path) => ({ file: 'm.yaml', ...expected[i]!(path) }))));
    checked += located.flat().length;
  }
  expect(checked).toBeGreaterThan(100);
});
