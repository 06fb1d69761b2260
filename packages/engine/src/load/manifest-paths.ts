/**
 * Where the manifests sit, as the ownership marker records it (`marker.ts`, `path`) and as a
 * scoped `--prune` compares it (`prune-scope.ts`). The only I/O is looking for `.git` and
 * whether each PATH is a directory.
 *
 * - The root is the nearest directory, from the PATHs' common root upwards, that holds a
 *   `.git` (a directory, or a file as in git worktrees and submodules): the repository root.
 *   Without one, the PATHs' common root (a file PATH counts as its directory). In a checkout,
 *   a file therefore records the same path whichever PATH reached it (`manifests/`,
 *   `./manifests`, an absolute path, the file itself) and from whatever working directory.
 * - Paths are relative to the root, with `/` separators on every platform; `.` and `..` are
 *   resolved lexically, never through symbolic links: a manifest reached through a linked
 *   directory records the path through the link, which is how a later PATH names it again.
 * - Standard input (`-`) has no file: it records no path and adds nothing to the scope.
 */
import { existsSync, statSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { STDIN_NAME, STDIN_PATH } from './files.js';

/** One PATH given on the command line, relative to the root ('' is the root itself). */
export interface ScopeEntry {
  path: string;
  directory: boolean;
}

export interface ManifestPaths {
  /** Absolute root that recorded paths are relative to. */
  root: string;
  /** The PATHs (standard input left out), relative to the root. */
  entries: ScopeEntry[];
  /** Whether standard input (`-`) was among the PATHs. */
  stdin: boolean;
}

const toSlashes = (path: string) => (sep === '/' ? path : path.split(sep).join('/'));

/** Whether `path` is `base` or lies under it (lexically). */
function isInside(base: string, path: string): boolean {
  const rel = relative(base, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** Deepest directory holding every one of `dirs` (absolute). */
function commonRoot(dirs: readonly string[]): string {
  let common = dirs[0]!;
  for (const dir of dirs.slice(1)) {
    while (!isInside(common, dir) && common !== dirname(common)) common = dirname(common);
  }
  return common;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false; // load reports an unreadable PATH; nothing is planned then
  }
}

/** The root and the PATHs' scope entries (see the module comment). */
export function manifestPaths(paths: readonly string[], cwd: string = process.cwd()): ManifestPaths {
  const files = paths.filter((p) => p !== STDIN_PATH).map((p) => ({ absolute: resolve(cwd, p), directory: isDirectory(resolve(cwd, p)) }));
  const stdin = files.length < paths.length;
  if (files.length === 0) return { root: cwd, entries: [], stdin };
  const common = commonRoot(files.map((f) => (f.directory ? f.absolute : dirname(f.absolute))));
  const root = repositoryRoot(common) ?? common;
  return { root, entries: files.map((f) => ({ path: toSlashes(relative(root, f.absolute)), directory: f.directory })), stdin };
}

/** The nearest directory from `dir` (absolute) upwards that holds a `.git`, if any. */
function repositoryRoot(dir: string): string | undefined {
  for (let at = dir; ; at = dirname(at)) {
    if (existsSync(resolve(at, '.git'))) return at;
    if (at === dirname(at)) return undefined;
  }
}

/**
 * Where a manifest directory `dir` (that may not exist yet) sits as recorded paths see it: the
 * path of `dir` relative to the repository root above it, '' when there is none above it (a
 * plan of `dir` then takes `dir` itself as the root) or when it is that root.
 */
export function recordedDirectory(dir: string, cwd: string = process.cwd()): string {
  const absolute = resolve(cwd, dir);
  const root = repositoryRoot(absolute);
  return root === undefined ? '' : toSlashes(relative(root, absolute));
}

/**
 * The path a marker records for a manifest file as `load` names it (relative to the working
 * directory, or as given); undefined for standard input and for a file outside the root.
 */
export function recordedPath(where: ManifestPaths, file: string, cwd: string = process.cwd()): string | undefined {
  if (file === STDIN_NAME || file === STDIN_PATH) return undefined;
  const absolute = resolve(cwd, file);
  if (absolute === where.root || !isInside(where.root, absolute)) return undefined;
  return toSlashes(relative(where.root, absolute));
}

/** Whether a recorded path lies within a scope entry: that file, or anything under that directory. */
export function withinEntry(entry: ScopeEntry, recorded: string): boolean {
  if (!entry.directory) return recorded === entry.path;
  return entry.path === '' || recorded.startsWith(`${entry.path}/`);
}
