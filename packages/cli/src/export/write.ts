/**
 * Writes exported manifests into a directory, safely: every file atomically (temp + rename);
 * a file that exists and was not written by export (no `EXPORT_HEADER` first line) is never
 * replaced unless `overwrite` is set, and then nothing at all is written before that check
 * passed for every file. Files an earlier export wrote for kinds that now have no objects are
 * removed, so the directory never declares objects that are gone.
 */
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { EXPORT_HEADER, fileNameOf, KINDS, type ExportFile } from '@gatehouse/engine';
import { CliError } from '../errors.js';
import { writeFileAtomic } from '../output.js';

async function firstLine(path: string): Promise<string | undefined> {
  try {
    return (await readFile(path, 'utf8')).split('\n', 1)[0];
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CliError('write_failed', `cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
}

export async function writeExport(dir: string, files: ExportFile[], overwrite: boolean): Promise<{ written: string[]; removed: string[] }> {
  const foreign: string[] = [];
  for (const file of files) {
    const line = await firstLine(join(dir, file.file));
    if (line !== undefined && !line.startsWith(EXPORT_HEADER)) foreign.push(join(dir, file.file));
  }
  if (foreign.length > 0 && !overwrite) {
    throw new CliError('export_would_overwrite', `refusing to replace files that gatehouse export did not write: ${foreign.join(', ')}; choose another --out directory or pass --overwrite`);
  }
  const written: string[] = [];
  for (const file of files) {
    await writeFileAtomic(join(dir, file.file), file.text);
    written.push(join(dir, file.file));
  }
  const removed: string[] = [];
  const current = new Set(files.map((f) => f.file));
  for (const kind of KINDS.filter((k) => k.manifestKind !== undefined)) {
    const name = fileNameOf(kind.manifestKind!);
    const path = join(dir, name);
    if (current.has(name) || !(await firstLine(path))?.startsWith(EXPORT_HEADER)) continue;
    await rm(path, { force: true });
    removed.push(path);
  }
  return { written, removed };
}
