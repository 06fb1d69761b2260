/**
 * `--git-pull`: before each cycle, the repository holding the manifests is brought up to date
 * with `git pull --ff-only` (never a merge: a watcher has nobody to resolve one), with no
 * terminal prompt (a credential it lacks is a failure, not a hang) and within a time limit.
 * A failed pull skips the cycle; its reason is said with any credential in a URL replaced by
 * `***` (git prints the remote's URL, which may hold a token).
 */
import { execFile } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

const PULL_TIMEOUT_MS = 120_000;

export interface GitResult {
  ok: boolean;
  /** HEAD after the pull (short), when known. */
  commit?: string;
  /** Why the pull failed: git's own words, credentials masked, at most a few lines. */
  reason?: string;
}

/** The directory to run git in: the project file's, else the first manifest path's (a file's directory). */
export async function repositoryDirectory(projectFile: string | undefined, paths: readonly string[]): Promise<string> {
  if (projectFile) return dirname(resolve(projectFile));
  const first = resolve(paths[0] ?? '.');
  try {
    return (await stat(first)).isDirectory() ? first : dirname(first);
  } catch {
    return dirname(first);
  }
}

export async function gitPull(dir: string, signal?: AbortSignal): Promise<GitResult> {
  const pulled = await git(dir, ['pull', '--ff-only', '--quiet'], signal);
  if (!pulled.ok) return { ok: false, reason: pulled.output || 'git pull failed' };
  const head = await git(dir, ['rev-parse', '--short', 'HEAD'], signal);
  return head.ok ? { ok: true, commit: head.output } : { ok: true };
}

function git(dir: string, args: string[], signal?: AbortSignal): Promise<{ ok: boolean; output: string }> {
  return new Promise((done) => {
    execFile(
      'git',
      ['-C', dir, ...args],
      { timeout: PULL_TIMEOUT_MS, ...(signal ? { signal } : {}), env: { ...process.env, GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' }, maxBuffer: 1024 * 1024 },
      (error, stdout, stderr) => {
        const text =
          `${stderr}`.trim() ||
          `${stdout}`.trim() ||
          (error ? ((error as NodeJS.ErrnoException).code === 'ENOENT' ? 'git is not installed (--git-pull needs it on the PATH)' : error.message) : '');
        done({ ok: !error, output: maskCredentials(text).split('\n').slice(0, 5).join(' / ') });
      },
    );
  });
}

/** `https://user:token@host/...` -> `https://***@host/...`. */
export function maskCredentials(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/@\s'"]+@/gi, '$1***@');
}
