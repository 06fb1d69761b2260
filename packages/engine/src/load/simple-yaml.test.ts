/**
 * simple-yaml.ts against js-yaml with its listener (the reader it stands in for) and `yaml`
 * (the reference): whenever it reads a document, the values are the same and every path of
 * every document (values and keys) is located at the same offset. A corpus of the forms it
 * reads and of those it must leave to js-yaml, then generated manifests in many styles.
 */
import { parseAllDocuments } from 'yaml';
import { describe, expect, test } from 'vitest';
import { fastDocuments, type FastDocuments } from './fast-yaml.js';
import { NodePositions } from './node-positions.js';
import { readSimpleDocument } from './simple-yaml.js';

/** Every path of a value, and the value itself (the empty path). */
function paths(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  const found = [prefix];
  if (Array.isArray(value)) value.forEach((item, i) => found.push(...paths(item, [...prefix, i])));
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) found.push(...paths(v, [...prefix, k]));
  return found;
}

/** Each document's value and the offsets of all its paths (value, key, and a missing child). */
function located(read: FastDocuments) {
  return read.values.map((value, i) => ({
    value,
    at: paths(value).map((path) => [path, read.nodes.offset(i, path), read.nodes.offset(i, path, true), read.nodes.offset(i, [...path, 'missing'])]),
  }));
}

const viaYaml = (text: string) => {
  const docs = parseAllDocuments(text, { uniqueKeys: true, prettyErrors: false });
  const list = Array.isArray(docs) ? docs : [];
  if (list.some((d) => d.errors.length > 0)) return 'error';
  return list.map((d) => d.toJS({ maxAliasCount: 100 }) as unknown).filter((v) => v !== null && v !== undefined);
};

/** Whether simple-yaml reads the single document `text` (no `---` inside), or sends it to `yaml`. */
function readsAlone(text: string): boolean | 'yaml' {
  const values: unknown[] = [];
  return readSimpleDocument(text, 0, text.length, new NodePositions(), values);
}

/**
 * The fast path with simple-yaml and without it (js-yaml alone) read the same values with the
 * same positions, and when simple-yaml read the whole text itself, `yaml` reads the same values.
 * (Where js-yaml reads a document, its agreement with `yaml` is fast-yaml.test.ts's.)
 */
function agree(text: string): void {
  const simple = fastDocuments(text);
  const reference = fastDocuments(text, { simple: false });
  // simple-yaml sends to `yaml` a file that js-yaml reads and `yaml` refuses (a quoted value
  // continued on a line not indented past its block).
  if (simple === undefined && reference !== undefined) expect(viaYaml(text), 'a file sent to yaml').toBe('error');
  else expect(simple === undefined, 'both answer or neither').toBe(reference === undefined);
  if (!simple || !reference) return;
  expect(located(simple)).toEqual(located(reference));
  if (readsAlone(text) === true) expect(viaYaml(text)).toEqual(simple.values.filter((v) => v !== null && v !== undefined));
  expect(simple.nodes.deepest).toBeGreaterThanOrEqual(Math.max(0, ...simple.values.map(depth)));
}

const depth = (value: unknown): number =>
  value !== null && typeof value === 'object' ? 1 + Math.max(0, ...Object.values(value).map(depth)) : 0;

/** Read by simple-yaml (each alone, as one document). */
const READ = [
  'kind: IPPolicy\nname: p\nspec:\n  rules:\n    - cidr: 10.0.0.0/8\n      action: allow\n    - {cidr: 10.1.0.0/16, action: deny}\n',
  '---\nkind: IPPolicy\nname: policy-00001\nspec: {"description":"bench 1","rules":[{"cidr":"10.0.1.0/24","action":"allow"}]}\n',
  '--- # marker\n# comment\n\nkind: BotUser   # trailing\nname: "quoted: #name"\nspec:\n  active: true\n\n# end\n',
  'a:\nb: 1\nc:   \n\nd: # comment\n  e: 2\nf: x\n',
  'list:\n- a\n- b: 1\n  c:\n  - d\n- [x, "y", \'z\']\n"quoted key": \'it\'\'s\'\nlast: ~\n',
  'a: null\nb: ~\nc:\nd: Null\ne: NULL\nf: nUll\ng: True\nh: tRue\ni: yes\nj: 0o17\nk: 0x1F\nl: -0x1\nm: 017\nn: +12\no: -0\np: 1_000\n',
  'a: .inf\nb: -.Inf\nc: .NaN\nd: .nAn\ne: 1.\nf: -.5e-3\ng: 1E5\nh: .5\ni: 1e3\nj: +.INF\nk: 12:30\nl: 2001-12-14\nm: <<\nn: "true"\no: \'12\'\n',
  'a: ${env:X}\nb: $${env:Y}\nc: "not # a comment"\nd: x # comment\ne: a#b\nf: http://x:80/p?q=1\ng: -1\nh: -x\ni: ?x\nj: :x\n',
  'x: {a: 1, "b": [1, {d: 2}], c: [], e: {}, f: "g", h: b:c}\ny: []\nz: {}\nw: [a b, -1, "q\\"\\u00e9\\n"]\n',
  '  indented: root\n  second:\n      deeper: 1\n  third: [1]\n',
  'seq:\n  - x: 1\n    y:\n      - 2\n      - 3\n  - z\nafter: 4\n',
  'ünï: cödé\nemoji: "😀"\n日本: 語\n',
  'spec:\n  labels:\n    app.kubernetes.io/name: web\n    "1": one\n  metadata: \'{"team":"edge"}\'\n',
  'key with spaces: value with  spaces\nkey : spaced colon\n',
];

/** Left to js-yaml (or, through it, to `yaml`): simple-yaml gives up on each. */
const NOT_READ = [
  'a: |\n  literal\n',
  'a:\n  - b\n  - - c\nd: 1\n',
  'a: >-\n  folded\n',
  'a: multi\n  line\n',
  'a: "multi\n  line"\n',
  'a: {x: 1,\n  y: 2}\n',
  'a: [1, 2, ]\n',
  'a: {b: }\n',
  'a: {b, c: 1}\n',
  '? a\n: b\n',
  '1: a\n',
  'true: a\n',
  'a: 1\na: 2\n',
  '__proto__: 1\n',
  'a: b: c\n',
  'a:\n  - b\n - c\n',
  'a: b\n- c\n',
  'a: b\n  c: d\n',
  '- a\n- b\n',
  'seq:\n  -\n  - b\n',
  'a: "\\x41"\n',
  'a: "\\ud800"\n',
  'a: "b"#c\n',
  'a:#b\n',
  '"a":b\n',
  'a: {a:b}\n',
  'a: [a: 1]\n',
  'a: - b\n',
  'a: @x\n',
  'a: `x\n',
  'a:\n  x\n',
  '# only a comment\n',
  '\n\n',
  'a: b\n...\n',
  '{a: 1}\n',
  'a: b\n---\nc: d\n',
];

/** js-yaml reads them, `yaml` refuses them: simple-yaml sends the file to `yaml`, which reports them. */
const TO_YAML = [
  'a:\n  b:\n    - \'x\n  y\'\n',
  'a:\n  b:\n    - "x\n    y"\n',
  'a:\n  b: "x\n  y"\n',
  'a:\n  b: {c: \'x\n y\'}\n',
];

describe('simple-yaml', () => {
  test.each(READ.map((text) => [JSON.stringify(text.slice(0, 60)), text]))('%s: read, as js-yaml and yaml read it', (_label, text) => {
    expect(readsAlone(text), 'simple-yaml reads it').toBe(true);
    agree(text);
  });

  test.each(NOT_READ.map((text) => [JSON.stringify(text.slice(0, 60)), text]))('%s: left to js-yaml', (_label, text) => {
    expect(readsAlone(text)).toBe(false);
    agree(text);
  });

  test.each(TO_YAML.map((text) => [JSON.stringify(text), text]))('%s: sent to yaml, which reports it', (_label, text) => {
    expect(readsAlone(text)).toBe('yaml');
    expect(fastDocuments(text)).toBeUndefined();
    expect(fastDocuments(text, { simple: false }), 'js-yaml reads it').toBeDefined();
    expect(viaYaml(text)).toBe('error');
  });

  test('a file mixing documents it reads and documents it leaves: one set of positions, in order', () => {
    const text = `# header\n---\n${READ[0]}---\na: |\n  block\nb: [1]\n---\n${READ[4]}---\n---\nc: {d: e}\n`;
    agree(text);
    expect(fastDocuments(text)!.values).toHaveLength(6);
  });

  test('a file with a tab, a carriage return or a byte order mark goes to js-yaml as a whole', () => {
    for (const text of ['a: 1\r\nb: 2\r\n', '\ufeffa: 1\n', 'a: "x\ty"\n']) agree(text);
  });

  test('generated manifests in many styles', () => {
    let read = 0;
    let seed = 13;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    for (let i = 0; i < 300; i++) {
      const text = generate(random);
      agree(text);
      const values: unknown[] = [];
      if (readSimpleDocument(text, 0, text.length, new NodePositions(), values)) read++;
      else if (process.env.SHOW_UNREAD) console.log(JSON.stringify(text));
    }
    // Most of them are read by simple-yaml itself (not all: some scalars are multi-line or empty).
    if (process.env.SHOW_UNREAD) console.log('read', read);
    expect(read).toBeGreaterThan(150);
  });

  test('generated manifests with one character changed: read as js-yaml and yaml read them, or left to them', () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    const inserts = [':', '-', ' ', '  ', '#', '"', "'", '\n', '\n  ', '{', '}', '[', ']', ',', '- ', ': ', '?', '&', '|', 'x', '\\'];
    let read = 0;
    for (let i = 0; i < Number(process.env.MUTATIONS ?? 1500); i++) {
      const text = generate(random);
      const at = Math.floor(random() * text.length);
      const changed = random() < 0.3 ? text.slice(0, at) + text.slice(at + 1) : text.slice(0, at) + inserts[Math.floor(random() * inserts.length)] + text.slice(at);
      agree(changed);
      if (readSimpleDocument(changed, 0, changed.length, new NodePositions(), [])) read++;
    }
    expect(read).toBeGreaterThan(300);
  });
});

const WORDS = ['allow', 'deny', 'web', 'api-1', 'x y', '10.0.0.0/8', '2001:db8::/32', 'a:b', 'null', 'True', '0x1F', '-1', '1.5', '.inf', '#', 'it\'s', 'q"', 'é', '', ' pad', 'long value of some length'];

/** A manifest-like document written in a random mix of styles. */
function generate(random: () => number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const scalar = (flow: boolean): string => {
    const word = pick(WORDS);
    const style = random();
    if (style < 0.3 || word === '' || /^[ #'"-]|[#:]|^\.|^-|^[0-9]/.test(word)) return JSON.stringify(word);
    if (style < 0.4) return `'${word.replaceAll("'", "''")}'`;
    if (flow && /[,[\]{}]/.test(word)) return JSON.stringify(word);
    return word;
  };
  const flowValue = (depth: number): string => {
    const r = random();
    if (depth > 2 || r < 0.5) return scalar(true);
    if (r < 0.75) return `[${Array.from({ length: Math.floor(random() * 3) }, () => flowValue(depth + 1)).join(pick([', ', ',']))}]`;
    return `{${Array.from({ length: Math.floor(random() * 3) }, (_, k) => `${random() < 0.3 ? `"q${k}"` : `${pick(['k', 'name'])}${k}`}: ${flowValue(depth + 1)}`).join(', ')}}`;
  };
  const lines: string[] = [];
  const comment = () => (random() < 0.15 ? '  # note' : '');
  const block = (indent: number, depth: number): void => {
    const pad = ' '.repeat(indent);
    const keys = 1 + Math.floor(random() * 4);
    for (let k = 0; k < keys; k++) {
      if (random() < 0.1) lines.push(random() < 0.5 ? '' : `${pad}# comment`);
      const key = pick(['kind', 'name', 'spec', 'rules', 'labels', '"quoted', 'cidr']) + k + (random() < 0.1 ? ' ' : '');
      const quotedKey = key.startsWith('"') ? `${key.trim()}"` : key;
      const r = random();
      if (depth < 3 && r < 0.25) {
        lines.push(`${pad}${quotedKey}:${comment()}`);
        block(indent + pick([2, 4]), depth + 1);
      } else if (depth < 3 && r < 0.45) {
        lines.push(`${pad}${quotedKey}:${comment()}`);
        const at = indent + pick([0, 2]);
        for (let n = 0; n < 1 + Math.floor(random() * 3); n++) {
          if (random() < 0.5) lines.push(`${' '.repeat(at)}- ${scalar(false)}${comment()}`);
          else {
            const inner = at + 2;
            lines.push(`${' '.repeat(at)}- item${n}: ${scalar(false)}`);
            if (random() < 0.5) lines.push(`${' '.repeat(inner)}more${n}: ${flowValue(1)}`);
          }
        }
      } else if (r < 0.55) lines.push(`${pad}${quotedKey}:${random() < 0.5 ? '' : ' '}${comment()}`);
      else if (r < 0.7) lines.push(`${pad}${quotedKey}: ${flowValue(0)}${comment()}`);
      else lines.push(`${pad}${quotedKey}: ${scalar(false)}${comment()}`);
    }
  };
  block(0, 0);
  return `${random() < 0.5 ? '---\n' : ''}${lines.join('\n')}${random() < 0.8 ? '\n' : ''}`;
}
