/**
 * Writes exported manifests into a directory, safely: every file atomically (temp + rename);
 * a file that exists and was not written by export (no `EXPORT_HEADER` line at its top) is never
 * replaced unless `overwrite` is set, and then nothing at all is written before that check
 * passed for every file. Files an earlier export wrote for kinds that now have no objects are
 * removed, so the directory never declares objects that are gone.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { KINDS } from '@gatehouse/engine/core';
import { fileNameOf, isExportedText, SCHEMA_LINE_PREFIX, type ExportFile } from '@gatehouse/engine/export';
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
  const foreign = await foreignFiles(files.map((file) => join(dir, file.file)), isExportedText);
  if (foreign.length > 0 && !overwrite) {
    throw new CliError('export_would_overwrite', `refusing to replace files that gatehouse export did not write: ${foreign.join(', ')}; choose another --out directory or pass --overwrite`);
  }
  const written: string[] = [];
  for (const file of files) {
    // Manifests are meant to be shared (committed, reviewed): the umask decides their mode.
    await writeFileAtomic(join(dir, file.file), file.text, { mode: 0o666 });
    written.push(join(dir, file.file));
  }
  const removed: string[] = [];
  const current = new Set(files.map((f) => f.file));
  for (const kind of KINDS.filter((k) => k.manifestKind !== undefined)) {
    const name = fileNameOf(kind.manifestKind!);
    const path = join(dir, name);
    const text = current.has(name) ? undefined : await beginningOf(path);
    if (text === undefined || !isExportedText(text)) continue;
    await rm(path, { force: true });
    removed.push(path);
  }
  return { written, removed };
}
