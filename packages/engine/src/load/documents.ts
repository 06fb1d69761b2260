/**
 * Step 1, load: read YAML files and directories (searched recursively for *.yaml / *.yml, in
 * path order, symbolic links followed: files.ts) into documents that remember where each of
 * their nodes was written, so later steps can report file:line:col. The only step that reads
 * files. Manifests that declare nothing at all (no file, or files holding only comments and
 * `---`) are the `no_manifests` problem: planned with --prune, they would delete everything.
 */
import { createHash } from 'node:crypto';
import { relative } from 'node:path';
import { Composer, isScalar, LineCounter, type Document } from 'yaml';
import { canonicalJson } from '../identity/canonical-json.js';
import { problem, type Problem } from '../problems.js';
import type { SourceLocation } from '../source.js';
import { findManifestFiles, readManifestFile, STDIN_NAME, STDIN_PATH } from './files.js';
import type { ExcludeRules } from './exclude.js';
import type { SecretUse } from './env-policy.js';
import { unicodeProblems } from './unicode.js';
import { offsetAt, placeOf, type Path, type Place } from './positions.js';
import {
  aliasProblem,
  isAliasLimitError,
  isUnresolvedAliasError,
  MAX_ALIAS_COUNT,
  NestingTooDeep,
  parseWithinNesting,
  unresolvedAliasProblem,
} from './yaml-limits.js';

export type { Path } from './positions.js';

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
  /** The strings that took a secret `${env:}` value (interpolate.ts): every output masks them. */
  secrets?: readonly SecretUse[];
}

export interface LoadResult {
  documents: LoadedDocument[];
  problems: Problem[];
  /** sha256 over every file's path and content, in path order. */
  checksum: string;
  /**
   * Per file read (as named in problems), sha256 over the canonical JSON of its documents as
   * parsed: a change of comments, formatting or key order changes nothing here.
   */
  files: Record<string, string>;
  /** What is worth saying but does not stop the run (a symbolic link loop). */
  warnings: Problem[];
  /** What was passed over on purpose (skipped directories and files), for `--verbose`. */
  notes: string[];
}

export interface LoadOptions {
  /** Files larger than this many bytes are refused before they are read (default 10 MiB). */
  maxFileSize?: number;
  /** gatehouse.yaml's `exclude:` globs: files a directory search leaves out (exclude.ts). */
  exclude?: ExcludeRules | undefined;
  /** Files and directories a directory search never reads as manifests: policy rules, the project file. */
  notManifests?: readonly string[] | undefined;
}

/** A path as problems name it: relative to the working directory when inside it, `<stdin>` for `-`. */
export const displayPath = (path: string) => {
  if (path === STDIN_PATH) return STDIN_NAME;
  const rel = relative(process.cwd(), path);
  return rel && !rel.startsWith('..') ? rel : path;
};

export async function load(paths: string[], options: LoadOptions = {}): Promise<LoadResult> {
  const found = await findManifestFiles(paths, options.exclude, options.notManifests);
  const problems: Problem[] = [...found.problems];
  const files = found.files;
  if (files.length === 0 && problems.length === 0) {
    problems.push(
      problem('no_manifests', `no *.yaml or *.yml file under ${paths.join(', ') || '(no path)'}; give a manifest file or a directory holding some`),
    );
  }
  const hash = createHash('sha256');
  const documents: LoadedDocument[] = [];
  const checksums: Record<string, string> = {};
  const notes = found.notes;
  for (const file of [...files].sort()) {
    const name = displayPath(file);
    const read = await readManifestFile(file, name, options.maxFileSize);
    if ('problem' in read) {
      problems.push(read.problem);
      continue;
    }
    const { documents: fileDocuments, problems: fileProblems } = parseFile(name, read.text);
    hash.update(`${name}\0`).update(read.text).update('\0');
    checksums[name] = documentsChecksum(fileDocuments);
    // A loop, not push(...): a file of many documents would exceed the arguments' limit.
    for (const doc of fileDocuments) documents.push(doc);
    problems.push(...fileProblems);
  }
  // Whatever the files: a syntax error already says why nothing was read, an empty file does not.
  if (files.length > 0 && documents.length === 0 && problems.length === 0) {
    problems.push(
      problem(
        'no_manifests',
        `${files.length === 1 ? `${displayPath(files[0]!)} holds` : `the ${files.length} files under ${paths.join(', ')} hold`} no YAML document (only comments, --- or nothing); give manifests that declare something`,
      ),
    );
  }
  return { documents, problems, checksum: hash.digest('hex'), files: checksums, warnings: found.warnings, notes };
}

/**
 * sha256 over the canonical JSON of a file's documents as a list, in order: what they say, not
 * how. Hashed a document at a time (the same text as the whole list's canonical JSON, where a
 * value with no JSON form is null), so that a large file is never held twice more as one string.
 */
function documentsChecksum(documents: readonly LoadedDocument[]): string {
  const hash = createHash('sha256').update('[');
  documents.forEach((d, i) => hash.update(`${i > 0 ? ',' : ''}${canonicalJson(d.value) || 'null'}`));
  return hash.update(']').digest('hex');
}

/**
 * Reads one file's documents with `yaml`, one at a time. A document with a syntax error is a
 * problem at the error (the first: the parser's later errors in a document mostly follow from
 * it); an empty one (between two `---`, or only comments) declares nothing and is passed over;
 * each other document keeps its value, and locates its paths through `filePlaces`. Collections
 * nested too deep refuse the whole file (yaml-limits.ts).
 */
export function parseFile(file: string, text: string): { documents: LoadedDocument[]; problems: Problem[] } {
  const lineCounter = new LineCounter();
  const position = (offset: number): SourceLocation => ({ file, ...lineCounter.linePos(offset) });
  const places = filePlaces(text);
  const documents: LoadedDocument[] = [];
  const problems: Problem[] = [];
  let index = 0;
  try {
    for (const doc of composeDocuments(text, lineCounter.addNewLine)) {
      const read = readDocument(doc, position);
      if (read && 'problem' in read) problems.push(read.problem);
      else if (read) {
        const doc: LoadedDocument = { file, index, value: read.value, locate: locator(file, lineCounter, places, index) };
        documents.push(doc);
        problems.push(...unicodeProblems(doc.value, doc.locate));
      }
      index += 1;
    }
  } catch (error) {
    if (!(error instanceof NestingTooDeep)) throw error;
    return { documents: [], problems: [problem('nesting_too_deep', error.message, position(error.offset))] };
  }
  return { documents, problems };
}

/**
 * What `parseAllDocuments` does (a duplicate key is an error), one document at a time: only
 * the nodes of the document being read are held.
 */
function composeDocuments(text: string, onNewLine: (offset: number) => void): Generator<Document.Parsed> {
  return new Composer({ uniqueKeys: true }).compose(parseWithinNesting(text, onNewLine));
}

/** A document's value, or its problem; `undefined` for an empty document. */
function readDocument(doc: Document, position: (offset: number) => SourceLocation): { value: unknown } | { problem: Problem } | undefined {
  const error = doc.errors[0];
  if (error) {
    const message = `invalid YAML: ${error.message.split('\n')[0]}; fix the syntax (a value with {, }, [, ] or : may need quotes)`;
    return { problem: problem('yaml_syntax', message, position(error.pos[0])) };
  }
  if (doc.contents === null || (isScalar(doc.contents) && doc.contents.value === null)) return undefined;
  try {
    return { value: doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) };
  } catch (error) {
    if (isAliasLimitError(error)) return { problem: aliasProblem(doc, position) };
    if (isUnresolvedAliasError(error)) return { problem: unresolvedAliasProblem(doc, position) };
    throw error;
  }
}

/**
 * Where the nodes of each document of a file were written (by document index), found the first
 * time a position in the file is asked for: the file is composed again and only the offsets are
 * kept (positions.ts). Most runs never ask (valid manifests, a plan without changes), and the
 * offsets of a large file take more memory than its values.
 */
function filePlaces(text: string): (index: number) => Place {
  let source: string | undefined = text;
  let places: Place[] | undefined;
  return (index) => {
    if (!places) {
      places = Array.from(
        composeDocuments(source!, () => {}),
        (doc) => placeOf(doc.contents),
      );
      source = undefined;
    }
    return places[index] ?? 0;
  };
}

/**
 * `locate` of a document, made outside `parseFile` so that it holds only what it needs: a
 * closure keeps whatever its function's other closures capture.
 */
function locator(file: string, lineCounter: LineCounter, places: (index: number) => Place, index: number): LoadedDocument['locate'] {
  return (path, options) => ({ file, ...lineCounter.linePos(offsetAt(places(index), path, options?.key)) });
}
