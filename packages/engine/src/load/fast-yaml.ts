/**
 * The fast reading of a manifest file's values, for `load`: js-yaml builds plain values about
 * twenty times faster than the `yaml` package composes documents, which matters on the plan
 * path (thousands of documents, no problem to report, so no position needed).
 *
 * The `yaml` package stays the reference: its documents are what positions and syntax errors
 * come from. This module answers only when it can give exactly the values `yaml` would give
 * (YAML 1.2, core schema, no merge keys, unique keys), and `undefined` otherwise, so that the
 * caller uses `yaml` for that file:
 * - scalars resolve with the `yaml` core schema's own patterns (null, bool, int, float);
 *   js-yaml's CORE_SCHEMA differs (0b..., -0x1, signed exponents);
 * - files using features where the two libraries differ or `yaml` is stricter go to `yaml`:
 *   directives (`%YAML 1.1` changes the schema), tags, anchors and aliases, collection or
 *   explicit (`?`) keys, a comment right after a closing quote, lines over 1024
 *   characters (`yaml` refuses such implicit keys), null keys;
 * - anything js-yaml refuses (syntax errors, duplicate keys) goes to `yaml`, which reports it.
 * `fast-yaml.test.ts` checks a corpus of valid and broken inputs against `yaml` itself.
 *
 * Within a file, each document is first offered to simple-yaml.ts, a reader of the plain YAML
 * manifests are nearly always written in (several times faster than js-yaml with its listener);
 * js-yaml reads the documents it gives up on. Both record positions into the same
 * `NodePositions`, and simple-yaml.test.ts checks they record the same ones.
 */
import { createRequire } from 'node:module';
import type JsYaml from 'js-yaml';
import { NodePositions } from './node-positions.js';
import { readSimpleDocument, readsSimply } from './simple-yaml.js';
import { CORE_SCALARS } from './yaml-core.js';

/**
 * js-yaml and `yaml`'s core schema (yaml-core.ts) in its terms, pattern for pattern, in its
 * order; loaded when a document first needs them. Most manifests never do (simple-yaml.ts reads
 * them), and loading js-yaml is some 5-9 ms of every plan, apply and validate otherwise.
 * `require`, not `import()`: reading stays synchronous, and an ES module's `import` of a
 * CommonJS file would load Node's export lexer.
 */
let jsYaml: { load: typeof JsYaml.loadAll; schema: JsYaml.Schema } | undefined;
function jsYamlReader(): NonNullable<typeof jsYaml> {
  if (jsYaml) return jsYaml;
  const jsyaml = createRequire(import.meta.url)('js-yaml') as typeof JsYaml;
  const schema = jsyaml.FAILSAFE_SCHEMA.extend({
    implicit: CORE_SCALARS.map(
      ({ tag, test, construct }) =>
        new jsyaml.Type(`tag:yaml.org,2002:${tag}`, {
          kind: 'scalar',
          resolve: (text: string | null) => test.test(text ?? ''),
          construct: (text: string | null) => construct(text ?? ''),
        }),
    ),
  });
  return (jsYaml = { load: jsyaml.loadAll, schema });
}

/**
 * Text that may mean something else to js-yaml than to `yaml`, or that `yaml` refuses and
 * js-yaml accepts. Over-matching is harmless (the file takes the `yaml` path); each entry is a
 * case of the test corpus.
 */
const DIFFERENT: [RegExp, string[]][] = [
  [/^%/m, ['%']], // directives
  [/(?:^|[\s[{,:-])[!&*]/m, ['!', '&', '*']], // tags, anchors, aliases (also `*` or `!` in plain values: harmless)
  [/[\]}][ \t]*:(?:\s|$)/, [']', '}']], // collection keys
  [/(?:^|[\s[{,])\?(?:\s|$)/m, ['?']], // explicit keys
  [/["']#/, ['#']], // a comment right after a closing quote
  [/(?:^|[\s{,])(?:~|null|Null|NULL)?:(?:\s|$)/m, [':']], // null keys ("" to yaml, "null" to js-yaml)
];

/**
 * Whether `text` holds one of the `DIFFERENT` forms. Each pattern is tried only when the text
 * holds a character every match of it holds (a search for one character is much cheaper than a
 * pattern that may start anywhere, such as `(?:^|[\s[{,])\?`).
 */
const holdsDifferentForm = (text: string) => DIFFERENT.some(([pattern, needs]) => needs.some((c) => text.includes(c)) && pattern.test(text));

/** A document start marker at the start of a line (`---` then a space, a line end or the end). */
const DOCUMENT_START = /^---(?=[ \t\r\n]|$)/gm;

/**
 * A file with a long line cut into pieces, so that the line sends only its own document to
 * `yaml` (the long-line rule is decided per document): the text before the first `---` line,
 * then each document that holds a long line alone, and each run of documents between them
 * together (read as one text by the fast path, as a file without long lines is: a piece per
 * document cost each document a parse of its own, and retained per-document indexes made a
 * validate of 10,000 objects 2.4x slower than without the line). Each piece has `line`, the
 * 1-based line it starts at, and `documents`, the `---` lines it holds (0 for the text before
 * the first, which holds a document only if it is not empty or comments). `undefined` when
 * the file has no long line, or when cutting could change meaning: directives (they belong to
 * the next document) or `...` end markers. A `---` at the start of a line is always a marker:
 * YAML forbids it inside any scalar.
 */
export function documentsWithLongLines(text: string): { text: string; line: number; documents: number }[] | undefined {
  if (!hasLongLine(text) || /^%/m.test(text) || /^\.\.\.(?=[ \t\r\n]|$)/m.test(text)) return undefined;
  const starts = [0, ...[...text.matchAll(DOCUMENT_START)].map((m) => m.index).filter((i) => i > 0)];
  const pieces: { text: string; line: number; documents: number }[] = [];
  /** The run of documents without a long line being gathered, if any. */
  let run: { start: number; line: number; documents: number } | undefined;
  const endRun = (end: number) => {
    if (run) pieces.push({ text: text.slice(run.start, end), line: run.line, documents: run.documents });
    run = undefined;
  };
  // Every start but the file's own is a `---` line; the file's is one if the file begins with it.
  const beginsWithMarker = /^---(?=[ \t\r\n]|$)/.test(text);
  let line = 1;
  starts.forEach((start, i) => {
    const piece = text.slice(start, starts[i + 1] ?? text.length);
    const isDocument = i > 0 || beginsWithMarker;
    if (isDocument && !hasLongLine(piece)) {
      run ??= { start, line, documents: 0 };
      run.documents++;
    } else {
      endRun(start);
      pieces.push({ text: piece, line, documents: isDocument ? 1 : 0 });
    }
    for (let n = piece.indexOf('\n'); n >= 0; n = piece.indexOf('\n', n + 1)) line++;
  });
  endRun(text.length);
  return pieces;
}

/**
 * The file's documents as `yaml`'s `toJS` would give them, one entry per document (empty
 * documents as `null`), with where each of their nodes was written (offsets in `text`),
 * recorded during this one parse; `undefined` when the file must be read with `yaml`.
 *
 * js-yaml reads the file document by document (cut at each `---` line, as
 * `documentsWithLongLines` cuts): it works on a copy of its input, and a copy of one document at
 * a time, dropped once read, costs far less than a copy of a large file kept for the whole parse.
 */
export function fastDocuments(text: string, options: FastOptions = {}): FastDocuments | undefined {
  return finish(fastDocumentSteps(text, options));
}

export interface FastOptions {
  /** False: every document is read by js-yaml (the tests' reference for simple-yaml.ts). */
  simple?: boolean;
}

export interface FastDocuments {
  values: unknown[];
  nodes: NodePositions;
}

/** Documents read between two pauses of `fastDocumentSteps` (a few milliseconds of work). */
const DOCUMENTS_PER_STEP = 256;

/**
 * `fastDocuments` in steps: the generator pauses after every `DOCUMENTS_PER_STEP` documents and
 * returns what `fastDocuments` returns. A caller that lets I/O run at each pause (`load`) keeps
 * the listing of a plan going while a large file is read: each page's answer is taken, and the
 * next page asked for, only when the reading yields.
 */
export function* fastDocumentSteps(text: string, options: FastOptions = {}): Generator<void, FastDocuments | undefined> {
  if (holdsDifferentForm(text) || hasLongLine(text)) return undefined;
  const nodes = new NodePositions();
  const values: unknown[] = [];
  const ranges = documentRanges(text);
  // Most documents are read by simple-yaml.ts; js-yaml reads the others.
  const simple = options.simple !== false && readsSimply(text);
  for (let i = 0; i < ranges.length; i++) {
    const [start, end] = ranges[i]!;
    if (simple) {
      const mark = nodes.mark();
      const read = readSimpleDocument(text, start, end, nodes, values);
      if (read === 'yaml') return undefined;
      if (read) {
        if ((i + 1) % DOCUMENTS_PER_STEP === 0 && i + 1 < ranges.length) yield;
        continue;
      }
      nodes.rollback(mark);
    }
    // js-yaml drops the byte order mark that starts the file: its offsets are one less there.
    nodes.base = start === 0 && text.charCodeAt(0) === 0xfeff ? 1 : start;
    const piece = start === 0 && end === text.length ? text : text.slice(start, end);
    try {
      const reader = jsYamlReader();
      for (const value of reader.load(piece, undefined, { schema: reader.schema, listener: nodes.listener })) values.push(value);
    } catch {
      return undefined;
    }
    if ((i + 1) % DOCUMENTS_PER_STEP === 0 && i + 1 < ranges.length) yield;
  }
  nodes.trim();
  return { values, nodes };
}

/** Runs steps to the end at once; what they return. */
export function finish<T>(steps: Generator<void, T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * `[start, end)` of each document of `text`: from one `---` line to the next (the first from
 * the start). The whole text when it has `...` end markers (a document may then end before the
 * next `---`); directives never reach here (`DIFFERENT`).
 */
function documentRanges(text: string): [number, number][] {
  if (/^\.\.\.(?=[ \t\r\n]|$)/m.test(text)) return [[0, text.length]];
  const ranges: [number, number][] = [];
  let start = 0;
  // `test` rather than `matchAll`: no match object per document (the `---` found is the three
  // characters before `lastIndex`, the lookahead taking none).
  DOCUMENT_START.lastIndex = 0;
  while (DOCUMENT_START.test(text)) {
    const index = DOCUMENT_START.lastIndex - 3;
    if (index === 0) continue;
    ranges.push([start, index]);
    start = index;
  }
  ranges.push([start, text.length]);
  return ranges;
}

/** A line over 1024 characters (`yaml` refuses implicit keys that long); a loop, ~4x a regex. */
export function hasLongLine(text: string): boolean {
  for (let start = 0; start < text.length; ) {
    const newline = text.indexOf('\n', start);
    const end = newline < 0 ? text.length : newline;
    if (end - start > 1024) return true;
    start = end + 1;
  }
  return false;
}
