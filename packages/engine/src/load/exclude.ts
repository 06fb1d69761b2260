/**
 * `exclude:` of gatehouse.yaml: files under the manifest paths that belong to other tools
 * (Kubernetes objects, Helm values, a kustomization), left out by glob. Every other YAML file a
 * directory search finds must be gatehouse manifests: a document without a gatehouse kind is a
 * problem, never skipped in silence, since a manifest left out is an object `--prune` deletes.
 *
 * Globs (picomatch: `*`, `**`, `?`, `[...]`, `{a,b}`) are relative to the directory of
 * gatehouse.yaml, with `/` separators, and match a file or any directory above it (`k8s`
 * excludes everything under `k8s/`, as `k8s/**` does). They apply to what a directory search
 * finds: a file named on the command line is always read.
 */
import { relative, resolve, sep } from 'node:path';
import picomatch from 'picomatch';

export interface ExcludeRules {
  /** The globs as written. */
  globs: readonly string[];
  /** Absolute directory the globs are relative to (gatehouse.yaml's). */
  base: string;
  /** The project file, for notes (`gatehouse.yaml`). */
  file: string;
}

/** A test for the files a search finds: the glob that excludes a file, or undefined. */
export function excluder(rules: ExcludeRules | undefined): (file: string) => string | undefined {
  if (!rules || rules.globs.length === 0) return () => undefined;
  const matchers = rules.globs.map((glob) => ({ glob, matches: picomatch(glob, { dot: true }) }));
  return (file) => {
    const rel = relative(rules.base, resolve(file));
    if (rel === '' || rel.startsWith('..')) return undefined;
    const parts = rel.split(sep);
    // The file itself, then each directory above it, nearest first.
    for (let n = parts.length; n > 0; n--) {
      const path = parts.slice(0, n).join('/');
      const found = matchers.find((m) => m.matches(path));
      if (found) return found.glob;
    }
    return undefined;
  };
}

/** The problem of one glob, or undefined: a glob must be relative and stay under gatehouse.yaml's directory. */
export function excludeGlobProblem(glob: string): string | undefined {
  if (glob.startsWith('/') || /^[A-Za-z]:[\\/]/.test(glob))
    return `exclude glob "${glob}" is absolute; write it relative to gatehouse.yaml's directory (k8s/**, **/kustomization.yaml)`;
  if (glob.split('/').includes('..')) return `exclude glob "${glob}" leaves gatehouse.yaml's directory (..); only files under it are searched`;
  if (glob.includes('\\')) return `exclude glob "${glob}" holds a backslash; separate directories with /`;
  return undefined;
}
