/**
 * Which files `load` reads, and reading one of them safely. Both matter to `apply --prune`:
 * a manifest that is silently left out is an object that gets deleted. So:
 * - symbolic links to files and directories are followed like the real thing; a link that
 *   points at one of its own ancestor directories (a loop) is reported as a warning and not
 *   followed again (its files are read once already), a dangling link is a problem;
 * - a file reached twice (through a link and directly) is read once, under the first path;
 * - a file larger than the size limit is refused before it is read (10 MiB by default: the
 *   parser needs several times a file's size in memory, and no manifest is that large); what
 *   has no size to check (a link to a device such as /dev/zero, a pipe) is read only up to it;
 * - bytes that are not UTF-8 are a problem at their file:line:col, never a silent U+FFFD.
 * Searching a directory never enters what is not manifests: `node_modules` and any entry whose
 * name starts with a dot (`.git`, `.github` with its workflows, `.gitlab-ci.yml`), the project
 * file and the policy files (`notManifests`), nor the files gatehouse.yaml's `exclude:` globs
 * name (exclude.ts); each skip is a note (`--verbose`). A path given by name is always read. The
 * path `-` is standard input, read once, shown as `<stdin>`.
 */
import { isUtf8 } from 'node:buffer';
import { createReadStream } from 'node:fs';
import { readFile, readdir, realpath, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { problem, type Problem } from '../problems.js';
import { excluder, type ExcludeRules } from './exclude.js';

/** Default of `--max-file-size`: 10 MiB. */
export const DEFAULT_MAX_FILE_SIZE = 10 * 1024 * 1024;

const isManifestFile = (name: string) => name.endsWith('.yaml') || name.endsWith('.yml');

/** The path that means standard input, and the name its problems are reported under. */
export const STDIN_PATH = '-';
export const STDIN_NAME = '<stdin>';

/** Entries a directory search never enters or reads. */
const isSkippedEntry = (name: string) => name.startsWith('.') || name === 'node_modules';

export interface FoundFiles {
  /** Manifest files in path order, each real file once. */
  files: string[];
  /** Unreadable paths and dangling links: the manifests cannot be read in full. */
  problems: Problem[];
  /** Link loops: reported, not fatal (nothing is missing because of them). */
  warnings: Problem[];
  /** The files that were found by searching a directory (not named on the command line). */
  searched: Set<string>;
  /** What the search passed over on purpose, for `--verbose`. */
  notes: string[];
}

/**
 * Every manifest file under `paths` (files as given, directories recursively, links followed),
 * but those a directory search finds that `exclude` names.
 */
export async function findManifestFiles(paths: readonly string[], exclude?: ExcludeRules, notManifests: readonly string[] = []): Promise<FoundFiles> {
  const found: FoundFiles = { files: [], problems: [], warnings: [], searched: new Set(), notes: [] };
  const excludedBy = excluder(exclude);
  const other = new Set(notManifests.map((path) => resolve(path)));
  const seen = new Set<string>();
  const add = async (file: string) => {
    // A pipe named by its /dev/fd path (a shell's `<(...)`) has no real path: it is itself.
    const real = file === STDIN_PATH ? file : await realpath(file).catch(() => file);
    if (seen.has(real)) return;
    seen.add(real);
    found.files.push(file);
  };
  for (const path of paths) {
    try {
      if (path === STDIN_PATH) {
        await add(path);
        continue;
      }
      const info = await stat(path);
      if (info.isDirectory()) {
        const files: string[] = [];
        await walk(path, new Set([await realpath(path)]), files, found, other);
        for (const file of files.sort()) {
          const glob = excludedBy(file);
          if (glob !== undefined) {
            found.notes.push(`excluded ${file}: exclude: ${glob} in ${exclude!.file}`);
            continue;
          }
          found.searched.add(file);
          await add(file);
        }
      } else await add(path);
    } catch (error) {
      found.problems.push(problem('path_unreadable', `cannot read ${path}: ${codeOf(error)}; give an existing file or directory`));
    }
  }
  return found;
}

/**
 * Collects the manifest files under `dir`; `ancestors` holds the real paths of the directories
 * on the way down, so a link back to one of them is a loop.
 */
async function walk(dir: string, ancestors: Set<string>, files: string[], found: FoundFiles, other: ReadonlySet<string>): Promise<void> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    found.problems.push(problem('path_unreadable', `cannot read the directory ${dir}: ${codeOf(error)}; make it readable or remove it`));
    return;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (isSkippedEntry(entry.name)) {
      if (entry.isDirectory() || isManifestFile(entry.name))
        found.notes.push(`skipped ${path}${entry.isDirectory() ? '/' : ''}: dot-files, dot-directories and node_modules are not searched (name it to read it)`);
      continue;
    }
    if (other.has(resolve(path))) {
      found.notes.push(`skipped ${path}${entry.isDirectory() ? '/' : ''}: not manifests (the project file, or policy rules)`);
      continue;
    }
    let isDirectory = entry.isDirectory();
    let isFile = entry.isFile();
    if (entry.isSymbolicLink()) {
      try {
        const info = await stat(path);
        isDirectory = info.isDirectory();
        isFile = info.isFile();
      } catch (error) {
        found.problems.push(problem('path_unreadable', `the symbolic link ${path} points at nothing readable (${codeOf(error)}); fix or remove the link`));
        continue;
      }
    }
    if (isFile && isManifestFile(entry.name)) files.push(path);
    if (!isDirectory) continue;
    const real = await realpath(path);
    if (ancestors.has(real)) {
      found.warnings.push(problem('symlink_loop', `${path} links back to ${real}, a directory it is inside; not followed again (its files are read once)`));
      continue;
    }
    await walk(path, new Set([...ancestors, real]), files, found, other);
  }
}

/**
 * The file's text, or the problem that keeps it from being read: larger than `maxFileSize`
 * (checked before reading), unreadable, or not UTF-8 (at the first bad byte).
 */
export async function readManifestFile(file: string, display: string, maxFileSize = DEFAULT_MAX_FILE_SIZE): Promise<ManifestText | { problem: Problem }> {
  try {
    if (file === STDIN_PATH) return checkText(await readStdin(maxFileSize, display), display, maxFileSize);
    const info = await stat(file);
    // A device or a pipe reports no size (0): read it no further than the limit, as stdin.
    if (!info.isFile()) return checkText(await readSizeless(file, maxFileSize), display, maxFileSize);
    if (info.size > maxFileSize) {
      return {
        problem: problem(
          'file_too_large',
          `${display} is ${formatBytes(info.size)}, over the manifest size limit of ${formatBytes(maxFileSize)}; split it into smaller files or raise --max-file-size`,
          { file: display, line: 1, col: 1 },
        ),
      };
    }
    return checkText(await readFile(file), display, maxFileSize);
  } catch (error) {
    return { problem: problem('path_unreadable', `cannot read ${display}: ${codeOf(error)}`) };
  }
}

/** A manifest file's content. */
export interface ManifestText {
  text: string;
}

/** The bytes as text, unless they are too many (stdin's size is known only once read) or not UTF-8. */
function checkText(bytes: Buffer | undefined, display: string, maxFileSize: number): ManifestText | { problem: Problem } {
  if (bytes === undefined || bytes.length > maxFileSize) {
    return {
      problem: problem('file_too_large', `${display} is over the manifest size limit of ${formatBytes(maxFileSize)}; split it or raise --max-file-size`, {
        file: display,
        line: 1,
        col: 1,
      }),
    };
  }
  if (!isUtf8(bytes)) {
    const at = invalidUtf8Position(bytes, display);
    return { problem: problem('not_utf8', `invalid UTF-8 (byte 0x${bytes[at.offset]!.toString(16).padStart(2, '0')}); save the file as UTF-8`, at.location) };
  }
  return { text: bytes.toString('utf8') };
}

/** Standard input to its end, or `undefined` once it gives more than `limit` bytes. */
async function readStdin(limit: number, display: string): Promise<Buffer | undefined> {
  if (process.stdin.isTTY)
    throw Object.assign(new Error(`${display} is a terminal`), {
      code: 'a terminal, not a file or pipe; pipe the manifests in (e.g. cat *.yaml | gatehouse validate -)',
    });
  return readCapped(process.stdin, limit);
}

/**
 * The bytes of the file at `path`, or `undefined` when it holds more than `limit`: a regular
 * file larger than that is not read at all, and what reports no size (a pipe, `<(...)`, a
 * device such as /dev/zero) is read no further than the limit, so that no path given to a
 * command makes it read without end.
 */
export async function readUpTo(path: string, limit: number): Promise<Buffer | undefined> {
  const info = await stat(path);
  if (info.isFile()) return info.size <= limit ? readFile(path) : undefined;
  return readSizeless(path, limit);
}

/** What reports no size (a pipe, a device) at `path`, as `readCapped` reads a stream. */
function readSizeless(path: string, limit: number): Promise<Buffer | undefined> {
  // Chunks of 1 MiB: a device such as /dev/zero fills each read, and the limit may be large.
  return readCapped(createReadStream(path, { highWaterMark: 1024 * 1024 }), limit);
}

/**
 * A stream to its end, or `undefined` as soon as more than `limit` bytes came: the stream is
 * then closed and what came is dropped, so at most `limit` bytes are ever held.
 */
async function readCapped(stream: AsyncIterable<Buffer>, limit: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += chunk.length;
    if (size > limit) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

/** U+FFFD as the file itself may hold it: not where the decoder replaced bytes. */
const REPLACEMENT_CHARACTER = Buffer.from('\uFFFD');

/**
 * Where the first byte that is not part of a well-formed UTF-8 sequence is (RFC 3629): where
 * decoding put its first U+FFFD that the file does not hold as such. Columns count characters
 * (UTF-16 code units), as the parser's positions do.
 */
function invalidUtf8Position(bytes: Buffer, file: string): { offset: number; location: { file: string; line: number; col: number } } {
  let offset = 0;
  let line = 1;
  let col = 1;
  for (const char of bytes.toString('utf8')) {
    if (char === '\uFFFD' && !bytes.subarray(offset, offset + 3).equals(REPLACEMENT_CHARACTER)) break;
    const code = char.codePointAt(0)!;
    offset += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    if (char === '\n') [line, col] = [line + 1, 1];
    else col += char.length;
  }
  return { offset, location: { file, line, col } };
}

const formatBytes = (n: number) => (n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(1)} MiB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${n} bytes`);

const codeOf = (error: unknown) => (error as NodeJS.ErrnoException).code ?? String(error);
