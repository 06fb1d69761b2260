/**
 * Who holds a lock, precisely enough to tell that it died: the holder's name (`user@host (pid
 * N)`), a run id (the CI's own when there is one), and, on Linux, the kernel's boot id, the pid
 * namespace and the pid (`holderIsDead`).
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, readlinkSync } from 'node:fs';
import { hostname, userInfo } from 'node:os';

/** A process, identified across containers: the same boot and pid namespace make `pid` comparable. */
export interface ProcessIdentity {
  boot_id: string;
  pid_ns: string;
  pid: number;
}

/** This process's identity, or undefined where the system does not expose one (not Linux). */
export function currentProcess(): ProcessIdentity | undefined {
  try {
    const boot_id = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    const pid_ns = readlinkSync('/proc/self/ns/pid');
    return boot_id && pid_ns ? { boot_id, pid_ns, pid: process.pid } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether the holder recorded as `recorded` is provably gone: it ran on this very boot in this
 * pid namespace (so its pid means the same here) and no process has that pid now. Anything
 * less certain (another machine or container, an older record, a reused pid) is not.
 */
export function holderIsDead(recorded: ProcessIdentity | undefined, here: ProcessIdentity | undefined = currentProcess()): boolean {
  if (!recorded || !here || recorded.boot_id !== here.boot_id || recorded.pid_ns !== here.pid_ns) return false;
  if (!Number.isInteger(recorded.pid) || recorded.pid <= 0 || recorded.pid === here.pid) return false;
  try {
    process.kill(recorded.pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** Who holds a lock: `user@host (pid N)`. */
export function defaultHolder(): string {
  let user = process.env.USER ?? process.env.USERNAME;
  try {
    user ??= userInfo().username;
  } catch {
    user ??= 'unknown';
  }
  return `${user}@${hostname()} (pid ${process.pid})`;
}

/** A run id: the CI's own when there is one (GitHub, GitLab, Jenkins, Buildkite), else random. */
export function defaultRunId(env: NodeJS.ProcessEnv = process.env): string {
  if (env.GATEHOUSE_RUN_ID) return env.GATEHOUSE_RUN_ID;
  if (env.GITHUB_RUN_ID) return `github:${env.GITHUB_REPOSITORY ?? ''}#${env.GITHUB_RUN_ID}.${env.GITHUB_RUN_ATTEMPT ?? '1'}`;
  if (env.CI_JOB_ID) return `gitlab:${env.CI_JOB_ID}`;
  if (env.BUILD_TAG) return `jenkins:${env.BUILD_TAG}`;
  if (env.BUILDKITE_BUILD_ID) return `buildkite:${env.BUILDKITE_BUILD_ID}`;
  return randomUUID();
}
