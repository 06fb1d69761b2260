/**
 * The fast reader must never disagree with `yaml`: whenever it answers, `yaml` reads the same
 * file without error and to the same values (empty documents aside). A corpus of valid and
 * broken inputs, chosen where the two libraries differ.
 */
import { parseAllDocuments } from 'yaml';
import { expect, test } from 'vitest';
import { fastDocuments } from './fast-yaml.js';

const CORPUS = [
  // Valid, scalar resolution of the YAML 1.2 core schema.
  'a: null\nb: ~\nc:\nd: Null\ne: NULL\nf: nUll',
  'a: True\nb: TRUE\nc: tRue\nd: yes\ne: on\nf: false',
  'a: 0o17\nb: 0x1F\nc: 0X1f\nd: -0x1\ne: 017\nf: +12\ng: -0\nh: 1_000\ni: 0b11',
  'a: .inf\nb: -.Inf\nc: .NaN\nd: .nAn\ne: 1.\nf: -.5e-3\ng: 1E5\nh: .5\ni: 1e3\nj: +.INF',
  'a: 12:30\nb: 2001-12-14\nc: 1:2:3\nd: <<\ne: "true"\nf: \'12\'',
  'a: "\\u00e9\\x41\\t"\nb: \'it\'\'s\'\nc: "multi\n  line"\nd: plain\n  multi\n  line',
  'a: >-\n  folded\n  text\n\n  para\nb: |+\n  keep\n\nc: |\n  literal\n   indented\n',
  '---\n---\na: 1\n---\n',
  '# only comment\n',
  '',
  '---\n',
  'a: 1\n---\n# c\n---\nb: 2',
  'a: [1, 2, ]\nb: {c: 1, }\nc: []\nd: {}',
  'kind: IPPolicy\nname: x\nspec: {"description":"d","rules":[{"cidr":"10.0.0.0/24","action":"allow"}]}\n',
  'spec:\n  hostports: ["a.example.com:443"]\n  routes:\n    - match: /\n      backend: {backend: web}\n',
  'a: ${env:X}\nb: $${env:Y}\nc: "not # a comment"\nd: x # comment\n',
  '1: a\n2.5: b\ntrue: c',
  '"a": 1\n\'b\': 2\n? c\n: 3',
  // Where the libraries differ: the fast reader must step aside.
  '%YAML 1.1\n---\na: yes',
  '<<: {b: 1}\nc: 2',
  '1: a\n~: d',
  'a: 1\nnull: 2',
  'a: "#x"',
  'a: &x 1\nb: *x',
  'a: !!str 1\nb: !!int "2"',
  '[a]: b',
  '{a: 1}: b',
  '- [a, b]: c',
  `${'x'.repeat(1100)}: 1`,
  // Broken: `yaml` must report them, so the fast reader must not answer.
  'a: b: c', 'a:\n\tb: c', 'a: [1, 2', 'a: "x', 'a: 1\na: 2', 'key: value\n  bad: indent', '- a\nb: c', 'a: b\n- c',
  'a: {b: c', 'a: "\\q"', 'a: "b"#c', "a: 'b'#c", 'a: &x 1\nb: *y', 'a: !!int x', 'a: |\n x\n  y', 'a:\n  - b\n - c', 'foo\nbar: baz',
  'a: b\n  c', 'a: b\n---\nc: [', 'a: @x', 'a: `x', 'a: b\n...\nc', 'a:\n  b: 1\n  b: 2', '1: a\n"1": b', 'a: "x"y', "a: 'x'y",
  'a: [b, c]d', 'a: - b', 'a: >\n  x\n y', '\ta: 1', 'a: !foo x',
];

const viaYaml = (text: string) => {
  const docs = parseAllDocuments(text, { uniqueKeys: true, prettyErrors: false });
  const list = Array.isArray(docs) ? docs : [];
  if (list.some((d) => d.errors.length > 0)) return 'error';
  return list.map((d) => d.toJS({ maxAliasCount: 100 }) as unknown).filter((v) => v !== null && v !== undefined);
};

test.each(CORPUS.map((text) => [JSON.stringify(text.slice(0, 60)), text]))('%s: the fast reader agrees with yaml or steps aside', (_label, text) => {
  const fast = fastDocuments(text);
  if (fast === undefined) return;
  expect(viaYaml(text)).toEqual(fast.values.filter((v) => v !== null && v !== undefined));
});

test('the fast reader answers for ordinary manifests (the plan path)', () => {
  for (const text of CORPUS.slice(0, 17)) expect(fastDocuments(text), text).toBeDefined();
});
