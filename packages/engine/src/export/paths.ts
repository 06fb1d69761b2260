/**
 * Where export writes an object: the manifest file its ownership marker records (the bot user
 * registry for bot users), so that exporting a repository and planning the export records the
 * same paths and changes nothing; objects without a usable recorded path go to a file per kind.
 *
 * A recorded path is data from the live API: it is used only when it is a plain relative path
 * of a YAML file that `load` would find again, inside the output directory (no `..`, no
 * absolute or drive path, no hidden or `node_modules` segment, no control, bidi or separator
 * characters); anything else counts as no path.
 */
import { fileNameOf } from './files.js';

/** A recorded path may be a little longer than any repository's, never a megabyte. */
const MAX_PATH_LENGTH = 1024;
/** C0/C1 controls, backslash, colon (drive letters, streams), bidi controls, line and paragraph separators. */
const FORBIDDEN = /[\u0000-\u001f\u007f-\u009f\\:\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/;

/** Whether `path` (from a marker) is a relative path of a manifest file that load would read. */
export function isExportablePath(path: string): boolean {
  if (path.length === 0 || path.length > MAX_PATH_LENGTH || FORBIDDEN.test(path) || path.startsWith('/')) return false;
  const segments = path.split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..' || s.startsWith('.') || s === 'node_modules')) return false;
  return /\.ya?ml$/.test(segments.at(-1)!);
}

/**
 * The file, relative to the output directory, that an object of manifest `kind` is written to.
 * `recorded` is the path its marker records (relative to the repository root); `within` is where
 * the output directory sits under that root ('' when it is the root, or when it has no
 * repository above it: a plan of it then takes it as the root). A recorded path under `within`
 * loses that prefix; one elsewhere is kept as it is, relative to the output directory.
 */
export function exportFileOf(kind: string, recorded: string | undefined, within = ''): string {
  if (recorded === undefined || !isExportablePath(recorded)) return fileNameOf(kind);
  const prefix = within === '' ? '' : `${within.replace(/\/+$/, '')}/`;
  return prefix !== '' && recorded.startsWith(prefix) ? recorded.slice(prefix.length) : recorded;
}
