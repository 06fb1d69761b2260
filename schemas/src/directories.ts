/**
 * Making the directory a file is about to be written in: the CLI's saved plans, exports and
 * renders, the server's database and event log.
 */
import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * `mkdir -p` that always returns: creates `path` and whichever of its parents are missing,
 * and is done when `path` is a directory (or a link to one) already; otherwise throws the
 * error of the first directory that could not be made (`ENOENT`, `EACCES`, `ENOTDIR`, `EEXIST`
 * for a file in the way, ...).
 *
 * Why not `mkdir(path, { recursive: true })`: Node's walk (20 and 22, synchronous and not)
 * goes back to the parent on `ENOENT` and forward again once the parent exists, for ever when
 * a parent exists but answers `ENOENT` for a child it will never hold, as procfs does
 * (`/proc/x/db`): a synchronous caller spins at 100% CPU and an asynchronous one never
 * settles, so a mistyped `--db` or `--out` hung the command. Here each directory is tried at
 * most twice: once, and once more after its parent was made.
 */
export function makeDirectory(path: string): void {
  try {
    mkdirSync(path);
  } catch (error) {
    const parent = dirname(path);
    if (codeOf(error) !== 'ENOENT' || parent === path) return acceptExisting(error, path);
    makeDirectory(parent);
    // The second and last try: an ENOENT now is the answer, not a missing parent.
    try {
      mkdirSync(path);
    } catch (error) {
      acceptExisting(error, path);
    }
  }
}

/**
 * Returns when `path` is a directory already (made before, or by another process meanwhile):
 * that is success. Anything else, a file in the way included, throws `error`.
 */
function acceptExisting(error: unknown, path: string): void {
  if (codeOf(error) === 'EEXIST' && statSync(path, { throwIfNoEntry: false })?.isDirectory()) return;
  throw error;
}

function codeOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}
