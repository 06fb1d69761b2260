/**
 * Step 1, load: read YAML files and directories (searched recursively for *.yaml / *.yml, in
 * path order, symbolic links followed: files.ts) into documents that remember where each of
 * their nodes was written, so later steps can report file:line:col. The only step that reads
 * files. Manifests that declare nothing at all (no file, or files holding only comments and
 * `---`) are the `no_manifests` problem: planned with --prune, they would delete everything.
 */
import { createHash } from 'node:crypto';
import { relative } from 'node:path';
import { MANIFEST_KINDS } from '@gatehouse/schemas/runtime';
import type { Document, Node } from 'yaml';
import { onFirstUse } from '../on-first-use.js';
import { problem, type Problem } from '../problems.js';
import type { SourceLocation } from '../source.js';
import { documentsWithLongLines, fastDocumentSteps, finish } from './fast-yaml.js';
import { LineIndex, type NodePositions } from './node-positions.js';
import { findManifestFiles, readManifestFile, STDIN_NAME, STDIN_PATH } from './files.js';
import {
  aliasProblem,
  flowNestingProblem,
  isAliasLimitError,
  isUnresolvedAliasError,
  MAX_ALIAS_COUNT,
  MAX_NESTING,
  nestingProblem,
  unresolvedAliasProblem,
  valueDepth,
} from './yaml-limits.js';

/** The `yaml` package: the reference parser, for the files `fastDocuments` cannot read exactly. */
const yaml = onFirstUse<typeof import('yaml')>('yaml');

export type Path = readonly (string | number)[];

export interface LoadedDocument {
  /** The file as the user would name it (relative to the working directory when inside it). */
  file: string;
  /** 0-based position of the document in its file. */
  index: number;
  /** The document as plain data. */
  value: unknown;
  /**
   * Where the node at `path` was written; the nearest existing ancestor when the path does not
   * exist. With `key: true`, points at the key of the last segment (for unknown fields).
   */
  locate(path: Path, options?: { key?: boolean }): SourceLocation;
}

export interface LoadResult {
  documents: LoadedDocument[];
  problems: Problem[];
  /** sha256 over every file's path and content, in path order. */
  checksum: string;
  /** What is worth saying but does not stop the run (a symbolic link loop). */
  warnings: Problem[];
  /** What was passed over on purpose (skipped directories and files), for `--verbose`. */
  notes: string[];
}

export interface LoadOptions {
  /** Files larger than this many bytes are refused before they are read (default 10 MiB). */
  maxFileSize?: number;
}

const KNOWN_KINDS = new Set<string>(MANIFEST_KINDS);
const EMPTY = new Uint8Array(0);

/**
 * Whether a file found by searching a directory is meant for gatehouse: one of its documents
 * has a known `kind`, or a `kind` and a `name` (a manifest with a mistyped kind is still
 * reported). Other YAML beside the manifests (CI files, Kubernetes objects, tool settings) is
 * skipped with a note, not reported as unknown kinds. A file that does not parse is kept: it
 * may be a broken manifest, and leaving one out would make `--prune` delete its objects.
 */
function claimsManifests(documents: readonly LoadedDocument[]): boolean {
  return documents.some(({ value }) => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
    const { kind } = value as Record<string, unknown>;
    return (typeof kind === 'string' && KNOWN_KINDS.has(kind)) || (kind !== undefined && 'name' in value);
  });
}

const display = (path: string) => {
  if (path === STDIN_PATH) return STDIN_NAME;
  const rel = relative(process.cwd(), path);
  return rel && !rel.startsWith('..') ? rel : path;
};

export async function load(paths: string[], options: LoadOptions = {}): Promise<LoadResult> {
  const found = await findManifestFiles(paths);
  const problems: Problem[] = [...found.problems];
  const files = found.files;
  if (files.length === 0 && problems.length === 0) {
    problems.push(problem('no_manifests', `no *.yaml or *.yml file under ${paths.join(', ') || '(no path)'}; give a manifest file or a directory holding some`));
  }
  let hash = createHash('sha256');
  const documents: LoadedDocument[] = [];
  const notes = [...found.notes];
  for (const file of [...files].sort()) {
    const name = display(file);
    const read = await readManifestFile(file, name, options.maxFileSize);
    if ('problem' in read) {
      problems.push(read.problem);
      continue;
    }
    // The checksum with this file, taken before parsing so that its bytes are not kept while
    // it is parsed; the same digest as hashing `${name}\0${text}\0` (the text is these bytes
    // decoded), without a concatenated copy of the file and its UTF-8 encoding.
    const withFile = hash.copy().update(`${name}\0`).update(read.bytes).update('\0');
    const { text } = read;
    read.bytes = EMPTY;
    const fileDocuments: LoadedDocument[] = [];
    const fileProblems: Problem[] = [];
    // Read in steps, letting I/O run between them (a plan's listing goes on meanwhile).
    const steps = parseFileSteps(name, text, fileDocuments, fileProblems);
    while (!steps.next().done) await letIoRun();
    if (found.searched.has(file) && fileProblems.length === 0 && fileDocuments.length > 0 && !claimsManifests(fileDocuments)) {
      notes.push(`skipped ${name}: no document has a gatehouse kind (name the file to check it anyway)`);
      continue;
    }
    hash = withFile;
    // A loop, not push(...): a file of many documents would exceed the arguments' limit.
    for (const doc of fileDocuments) documents.push(doc);
    problems.push(...fileProblems);
  }
  if (files.length > 0 && documents.length === 0 && problems.length === 0 && notes.length > found.notes.length) {
    problems.push(problem('no_manifests', `no manifest under ${paths.join(', ')}: no document of the ${files.length} YAML file${files.length === 1 ? '' : 's'} found has a gatehouse kind`));
  }
  // Whatever the files: a syntax error already says why nothing was read, an empty file does not.
  if (files.length > 0 && documents.length === 0 && problems.length === 0) {
    problems.push(
      problem('no_manifests', `${files.length === 1 ? `${display(files[0]!)} holds` : `the ${files.length} files under ${paths.join(', ')} hold`} no YAML document (only comments, --- or nothing); give manifests that declare something`),
    );
  }
  return { documents, problems, checksum: hash.digest('hex'), warnings: found.warnings, notes };
}

/**
 * Parses one file's documents; syntax errors become problems with their position.
 *
 * Values come from `fastDocuments` when it can give exactly `yaml`'s values (the plan path:
 * thousands of valid documents), with the positions of their nodes recorded during that one
 * parse. Otherwise the file is read with `yaml` at once, as the reference, and its syntax
 * errors are reported. Either way a file is parsed once: positions never read it again.
 */
export function parseFile(file: string, text: string, documents: LoadedDocument[], problems: Problem[]): void {
  finish(parseFileSteps(file, text, documents, problems));
}

/** Lets pending I/O callbacks run (`setImmediate`: after the poll phase of the event loop). */
const letIoRun = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * `parseFile` in steps: it pauses every few milliseconds of reading (`fastDocumentSteps`, and
 * after each piece of a file with a long line), so that `load` lets I/O run between steps.
 */
function* parseFileSteps(file: string, text: string, documents: LoadedDocument[], problems: Problem[]): Generator<void, void> {
  const pieces = documentsWithLongLines(text);
  if (!pieces) {
    yield* parseDocumentSteps(file, text, documents, problems);
    return;
  }
  // A long line sends only its document to `yaml`; the documents between such lines are read
  // together. Positions and document indexes are the file's: lines shifted by where the piece
  // starts, indexes by the documents before it.
  let index = 0;
  for (const piece of pieces) {
    const found: LoadedDocument[] = [];
    const issues: Problem[] = [];
    yield* parseDocumentSteps(file, piece.text, found, issues);
    for (const issue of issues) problems.push(issue.at ? { ...issue, at: shiftLines(issue.at, piece.line - 1) } : issue);
    for (const doc of found) documents.push({ ...doc, index: index + doc.index, locate: shiftedLocator(doc.locate, piece.line - 1) });
    // A piece holds a document per `---` line; the text before the first only if it holds one.
    index += piece.documents > 0 ? piece.documents : found.length > 0 || issues.length > 0 ? 1 : 0;
    yield;
  }
}

function* parseDocumentSteps(file: string, text: string, documents: LoadedDocument[], problems: Problem[]): Generator<void, void> {
  const tooDeep = flowNestingProblem(text, (offset) => positionOf(file, text, offset));
  if (tooDeep) {
    problems.push(tooDeep);
    return;
  }
  const fast = yield* fastDocumentSteps(text);
  // Deep block nesting is reported by the `yaml` path, at its position. The values are measured
  // only when the parse had that many nodes open at once (a bound on their depth).
  if (!fast || (fast.nodes.deepest > MAX_NESTING && fast.values.some((value) => valueDepth(value) > MAX_NESTING))) {
    parseWithYaml(file, text, documents, problems);
    return;
  }
  // Every position comes from what the one parse recorded (node-positions.ts): the file is
  // never composed with `yaml`.
  const { values, nodes } = fast;
  const lines = new LineIndex(text);
  const dollarFree = !text.includes('$');
  values.forEach((value, index) => {
    if (value === null || value === undefined) return;
    if (dollarFree && typeof value === 'object') WITHOUT_DOLLAR.add(value);
    documents.push({ file, index, value, locate: fastLocator(file, lines, nodes, index) });
  });
}

/**
 * Document values read from a file that holds no `$` at all: no string in them can hold a
 * placeholder, so interpolation passes them over without walking them (interpolate.ts). Keyed
 * by the value itself: a document whose value is replaced (an environment's overlay merges
 * into a copy) is walked as any other.
 */
export const WITHOUT_DOLLAR = new WeakSet<object>();

type Locate = LoadedDocument['locate'];

// The locators are made by functions of their own: a closure keeps every variable its
// function's closures capture, so one made beside a closure over the text would keep the
// whole file in memory for as long as its document lives.

/** Positions of document `index` of a file read by the fast reader. */
function fastLocator(file: string, lines: LineIndex, nodes: NodePositions, index: number): Locate {
  return (path, options) => ({ file, ...lines.position(nodes.offset(index, path, options?.key)) });
}

/** `locate` of a piece of a file, moved down by the `lines` before the piece. */
function shiftedLocator(locate: Locate, lines: number): Locate {
  return (path, options) => shiftLines(locate(path, options), lines);
}

const shiftLines = (at: SourceLocation, lines: number): SourceLocation => ({ ...at, line: at.line + lines });

/** The position of `offset` in `text`, counted directly (for problems found before parsing). */
function positionOf(file: string, text: string, offset: number): SourceLocation {
  let line = 1;
  let start = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) {
    line += 1;
    start = i + 1;
  }
  return { file, line, col: offset - start + 1 };
}

/** Every document of a file as `yaml` composes them, and how to turn an offset into a position. */
function compose(file: string, text: string): { docs: Document[]; position: (offset: number) => SourceLocation } {
  const { LineCounter, parseAllDocuments } = yaml();
  const lineCounter = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter, uniqueKeys: true, prettyErrors: false });
  const position = (offset: number): SourceLocation => {
    const { line, col } = lineCounter.linePos(offset);
    return { file, line, col };
  };
  return { docs: Array.isArray(docs) ? docs : [], position };
}

const isEmpty = (doc: Document) => doc.contents === null || (yaml().isScalar(doc.contents) && doc.contents.value === null);

function parseWithYaml(file: string, text: string, documents: LoadedDocument[], problems: Problem[]): void {
  const { docs, position } = compose(file, text);
  docs.forEach((doc, index) => {
    if (doc.errors.length > 0) {
      // The first error only: the parser's later errors in a document mostly follow from it.
      const error = doc.errors[0]!;
      if (error.code === 'RESOURCE_EXHAUSTION') problems.push(problem('nesting_too_deep', `collections nested too deep for the parser (limit ${MAX_NESTING})`, position(error.pos[0])));
      else problems.push(problem('yaml_syntax', `invalid YAML: ${error.message.split('\n')[0]}; fix the syntax (a value with {, }, [, ] or : may need quotes)`, position(error.pos[0])));
      return;
    }
    // An empty document (between two ---, or after a trailing ---) declares nothing.
    if (isEmpty(doc)) return;
    const tooDeep = nestingProblem(doc, position);
    if (tooDeep) {
      problems.push(tooDeep);
      return;
    }
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    } catch (error) {
      if (isAliasLimitError(error)) problems.push(aliasProblem(doc, position));
      else if (isUnresolvedAliasError(error)) problems.push(unresolvedAliasProblem(doc, position));
      else throw error;
      return;
    }
    documents.push({ file, index, value, locate: locator(doc, position) });
  });
}

function locator(doc: Document, position: (offset: number) => SourceLocation) {
  const { isMap, isPair, isScalar, isSeq } = yaml();
  return (path: Path, options: { key?: boolean } = {}): SourceLocation => {
    let node: unknown = doc.contents;
    let at: number = (doc.contents as Node).range?.[0] ?? 0;
    for (const [i, segment] of path.entries()) {
      const last = i === path.length - 1;
      if (isMap(node)) {
        const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(segment));
        if (!pair) break;
        const key = pair.key as Node;
        if (last && options.key) return position(key.range?.[0] ?? at);
        node = pair.value;
        at = (node as Node | null)?.range?.[0] ?? key.range?.[0] ?? at;
      } else if (isSeq(node) && typeof segment === 'number') {
        const item = node.items[segment] as Node | undefined;
        if (!item) break;
        node = item;
        at = item.range?.[0] ?? at;
      } else break;
    }
    return position(at);
  };
}
