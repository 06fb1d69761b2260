/**
 * Helpers for the tests of an installed gatehouse (test/release.test.ts): a digest of an install
 * tree to prove nothing under it changed, and running a command as an unprivileged user.
 */
import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Every entry under `dir` (relative path -> type, mode, owner, size, mtime and the digest of
 * its content or link target). Two calls compare equal only when nothing was added, removed,
 * written (even with the same bytes: the mtime moves), renamed, re-owned or chmodded.
 */
export function treeState(dir: string): Map<string, string> {
  const state = new Map<string, string>();
  const visit = (relative: string) => {
    for (const name of readdirSync(join(dir, relative)).sort()) {
      const path = relative ? `${relative}/${name}` : name;
      const full = join(dir, path);
      const stat = lstatSync(full);
      const kind = stat.isSymbolicLink() ? 'link' : stat.isDirectory() ? 'dir' : stat.isFile() ? 'file' : 'other';
      const content = kind === 'file' ? createHash('sha256').update(readFileSync(full)).digest('hex') : kind === 'link' ? readlinkSync(full) : '';
      state.set(path, `${kind} ${(stat.mode & 0o7777).toString(8)} ${stat.uid}:${stat.gid} ${stat.size} ${stat.mtimeMs} ${content}`);
      if (kind === 'dir') visit(path);
    }
  };
  visit('');
  return state;
}

/** The paths whose entries differ between two `treeState`s (added, removed or changed). */
export function treeChanges(before: Map<string, string>, after: Map<string, string>): string[] {
  const changes: string[] = [];
  for (const [path, entry] of after) {
    if (!before.has(path)) changes.push(`added ${path}`);
    else if (before.get(path) !== entry) changes.push(`changed ${path}: ${before.get(path)} -> ${entry}`);
  }
  for (const path of before.keys()) if (!after.has(path)) changes.push(`removed ${path}`);
  return changes;
}

/** Who runs the read-only test's commands, or why no one can here. */
export type Unprivileged = { uid: number; gid: number; name: string } | { reason: string };

/**
 * The `nobody` user, reached with util-linux's `setpriv` from root. The test never creates a
 * user or installs a package: `.ci/run` runs as root, where Debian always has `nobody`.
 */
export function unprivilegedUser(): Unprivileged {
  if (process.getuid?.() !== 0) {
    return { reason: 'it must start as root, to hand the install to root and run gatehouse as the unprivileged user nobody (CI runs as root)' };
  }
  try {
    const uid = Number(execFileSync('id', ['-u', 'nobody'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'nobody'], { encoding: 'utf8' }).trim());
    execFileSync('setpriv', ['--version'], { stdio: 'ignore' });
    if (!(uid > 0) || !(gid > 0)) return { reason: `the user nobody has uid ${uid}, gid ${gid}` };
    return { uid, gid, name: 'nobody' };
  } catch (error) {
    return { reason: `no user nobody, or no setpriv (util-linux) to become it: ${(error as Error).message.split('\n')[0]}` };
  }
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `file args` as `user` (setpriv, no supplementary groups), never rejecting on an exit code. */
export function runAs(
  user: { uid: number; gid: number },
  file: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<RunResult> {
  const argv = ['--reuid', String(user.uid), '--regid', String(user.gid), '--clear-groups', '--', file, ...args];
  return new Promise((resolve) => {
    execFile('setpriv', argv, { cwd: options.cwd, env: options.env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof (error as { code?: unknown }).code === 'number' ? (error as { code: number }).code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}
