/**
 * Writes exported manifests into a directory, safely: every file atomically (temp + rename),
 * in the subdirectory its path names (export's paths stay inside the directory:
 * engine export/paths.ts); a file that exists and was not written by export (no `EXPORT_HEADER`
 * line at its top) is never replaced unless `overwrite` is set, and then nothing at all is
 * written before that check passed for every file. Files an earlier export wrote that hold no
 * objects now (anywhere under the directory, where a manifest search would read them) are
 * removed, so the directory never declares objects that are gone.
 */
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { isExportedText, SCHEMA_LINE_PREFIX, type ExportFile } from '@gatehouse/engine/export';
import { MANIFEST_SCHEMA_URL } from '@gatehouse/schemas/runtime';
import { CliError } from '../errors.js';
import { beginningOf, foreignFiles, writeFileAtomic } from '../output.js';

/** `--out -`: the path that means standard output. */
export const STDOUT_PATH = '-';

/**
 * Every exported file as one multi-document YAML stream (`export --out -`): one `$schema`
 * line naming the schema of any manifest, then each file's text without its own, separated
 * by `---`.
 */
export function exportStream(files: readonly ExportFile[]): string {
  const bodies = files.map((f) => (f.text.startsWith(SCHEMA_LINE_PREFIX) ? f.text.slice(f.text.indexOf('\n') + 1) : f.text));
  return `${SCHEMA_LINE_PREFIX}${MANIFEST_SCHEMA_URL}\n${bodies.join('---\n')}`;
}

export async function writeExport(dir: string, files: ExportFile[], overwrite: boolean): Promise<{ written: string[]; removed: string[] }> {
  const paths = files.map((file) => join(dir, ...file.file.split('/')));
  const foreign = await foreignFiles(paths, isExportedText);
  if (foreign.length > 0 && !overwrite) {
    throw new CliError(
      'export_would_overwrite',
      `refusing to replace files that gatehouse export did not write: ${foreign.join(', ')}; choose another --out directory or pass --overwrite`,
    );
  }
  for (const [i, file] of files.entries()) {
    // Manifests are meant to be shared (committed, reviewed): the umask decides their mode.
    await writeFileAtomic(paths[i]!, file.text, { mode: 0o666 });
  }
  const current = new Set(paths);
  const removed: string[] = [];
  for (const path of await manifestFilesUnder(dir)) {
    if (current.has(path)) continue;
    const text = await beginningOf(path).catch(() => undefined);
    if (text === undefined || !isExportedText(text)) continue;
    await rm(path, { force: true });
    removed.push(path);
  }
  return { written: paths, removed };
}

/**
 * The YAML files under `dir` that a manifest search would read (hidden entries and
 * `node_modules` are never entered: engine load/files.ts), in path order; none when `dir` does
 * not exist. Links are not followed: export removes only what it wrote there.
 */
async function manifestFilesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const found: string[] = [];
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(await manifestFilesUnder(path)));
    else if (entry.isFile() && /\.ya?ml$/.test(entry.name)) found.push(path);
  }
  return found;
}
