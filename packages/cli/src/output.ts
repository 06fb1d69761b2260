/** Output helpers: colour decision, atomic file writes, problem lines. */
import { randomBytes } from 'node:crypto';
import { open, rename, rm, stat, writeFile, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { formatLocation, sanitize, type Problem, type Style } from '@gatehouse/engine/core';
import { makeDirectory } from '@gatehouse/schemas/runtime';
import pc from 'picocolors';
import { CliError } from './errors.js';

export { pc };

/**
 * Colour on a terminal only: off when NO_COLOR is set to anything but "" (no-color.org), on
 * when FORCE_COLOR is set (except "0"), otherwise on exactly when stdout is a TTY. Unlike
 * picocolors' own guess, a CI variable does not turn colour on for piped output.
 */
export function colourEnabled(env: NodeJS.ProcessEnv = process.env, isTTY = Boolean(process.stdout.isTTY)): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true;
  return isTTY;
}

/**
 * Writes `text` to stdout and resolves once it is flushed: a pipe may be written
 * asynchronously, and an exit right after a plain write could cut it short.
 */
export function printOut(text: string): Promise<void> {
  return new Promise<void>((resolve) => process.stdout.write(text, () => resolve()));
}

export function terminalStyle(enabled = colourEnabled()): Style {
  const c = pc.createColors(enabled);
  return { create: c.green, update: c.yellow, delete: c.red, replace: c.magenta, bold: c.bold, dim: c.dim };
}

/**
 * Writes `text` to `path` so that a reader sees the old file or the new one, never half of
 * one: a temporary file beside it, then a rename (atomic on one file system).
 * `mode` is the new file's mode before the umask (0600 unless given: a saved plan stays the
 * user's; exported manifests pass 0666, so the umask decides as for any file an editor saves).
 */
export async function writeFileAtomic(path: string, text: string, options: { mode?: number } = {}): Promise<void> {
  const dir = dirname(path);
  const temp = join(dir, `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    makeDirectory(dir);
    await writeFile(temp, text, { mode: options.mode ?? 0o600 });
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true }).catch(() => undefined);
    throw new CliError('write_failed', `cannot write ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

/**
 * The first two lines of the file at `path` (enough to see who wrote it, so only its first
 * 4 KiB are read), or undefined when there is none. It is about to be written over, so what
 * cannot be read, and what is not a regular file (a device such as /dev/null, a FIFO, a
 * directory: replacing one is never meant), is a `write_failed` naming it.
 */
export async function beginningOf(path: string): Promise<string | undefined> {
  const failed = (why: string) => new CliError('write_failed', `cannot write ${path}: ${why}`);
  let handle: FileHandle | undefined;
  try {
    const info = await stat(path).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    if (info === undefined) return undefined;
    if (!info.isFile()) throw failed('it is not a regular file; name a file');
    handle = await open(path, 'r');
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(4096), 0, 4096, 0);
    return buffer.subarray(0, bytesRead).toString('utf8').split('\n', 2).join('\n');
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw failed(`cannot read it (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  } finally {
    await handle?.close();
  }
}

/**
 * Of `paths`, about to be written, those that exist and whose beginning `isOwn` does not
 * recognise: files the command did not write, which it never replaces unasked (export, render,
 * plan --out). Every path is looked at, so that all of them can be named at once.
 */
export async function foreignFiles(paths: readonly string[], isOwn: (beginning: string) => boolean): Promise<string[]> {
  const foreign: string[] = [];
  for (const path of paths) {
    const beginning = await beginningOf(path);
    if (beginning !== undefined && !isOwn(beginning)) foreign.push(path);
  }
  return foreign;
}

/**
 * `file:line:col: message [code]`, or `message [code]` for a problem without a place; control
 * characters of the file name or of a value quoted in the message are escaped (`sanitize`).
 */
export function formatProblem(problem: Problem): string {
  return sanitize(`${problem.at ? `${formatLocation(problem.at)}: ` : ''}${problem.message} [${problem.code}]`);
}
