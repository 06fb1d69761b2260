/**
 * Helpers for end-to-end tests of the BUILT command (`node packages/cli/bin/run.js`; root
 * `npm test` runs `tsc -b` first): run a command to completion, or start `gatehouse serve` as
 * a real process and learn its URL and key from its start-up lines.
 *
 * The environment passed to children starts from the test's own with every `GATEHOUSE_*`
 * variable and `CI` removed, so neither a developer's shell nor the CI runner changes what a
 * test sees (in CI, a command with no target refuses to fall back to the embedded server);
 * tests add what they mean to test, `CI` included, through `env`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const CLI = join(REPO_ROOT, 'packages/cli/bin/run.js');

/** The headers every API request needs, for a key. */
export const apiHeaders = (key: string, json = false): Record<string, string> => ({
  authorization: `Bearer ${key}`,
  'service-version': '2',
  ...(json ? { 'content-type': 'application/json' } : {}),
});

export interface SpawnOptions {
  /** Added to the cleaned environment. */
  env?: Record<string, string>;
  /**
   * Working directory: the repository root for `runCli`, a fresh temporary directory for
   * `startServe` (so that its default database never lands in the repository).
   */
  cwd?: string;
  /** `runCli`: written to the command's standard input, which is then closed. */
  input?: string;
}

function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('GATEHOUSE_') && name !== 'CI') env[name] = value;
  }
  return { ...env, NO_COLOR: '1', ...extra };
}

/** A temporary directory removed by the returned `cleanup`. */
export function tempDir(prefix = 'gatehouse-test-'): { path: string; cleanup(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `gatehouse <args>` to completion (with `options.input` on standard input, if given). */
export function runCli(args: readonly string[], options: SpawnOptions = {}): Promise<CliResult> {
  const cwd = options.cwd ?? REPO_ROOT;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd, env: childEnv(options.env), stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    if (options.input !== undefined) child.stdin.end(options.input);
  });
}

export interface ServeProcess {
  child: ChildProcess;
  /** The address printed in the `listening on <url>` line. */
  url: string;
  /** The key printed once when the server generated one at this start. */
  generatedKey: string | undefined;
  /** Everything printed so far. */
  stdout(): string;
  stderr(): string;
  /**
   * Resolves when stdout or stderr has a line matching `pattern` (already printed or to come):
   * without a terminal, serve logs JSON on stdout and says its start-up lines on stderr.
   */
  waitForOutput(pattern: RegExp): Promise<string>;
  /** Resolves with the exit code and signal once the process has ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Sends `signal` (SIGTERM by default) and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const URL_LINE = /listening on (https?:\/\/\S+)/;
const KEY_LINE = /API key \(generated, shown once\): (\S+)/;
/** The last start-up line: says which keys the server accepts. */
const READY_LINE = /^\s*API key/m;

/**
 * Starts `gatehouse serve <args>` (add `--port 0` to get a free port) and resolves once it has
 * printed its URL and key lines; rejects with its output if it exits first.
 */
export function startServe(args: readonly string[], options: SpawnOptions = {}): Promise<ServeProcess> {
  const cwd = options.cwd ?? tempDir().path;
  const child = spawn(process.execPath, [CLI, 'serve', ...args], { cwd, env: childEnv(options.env), stdio: 'pipe' });
  let stdout = '';
  let stderr = '';
  const waiters: { pattern: RegExp; resolve(line: string): void }[] = [];
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const check = () => {
    for (const waiter of [...waiters]) {
      const match = waiter.pattern.exec(stdout) ?? waiter.pattern.exec(stderr);
      if (match) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(match[0]);
      }
    }
  };
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    check();
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    check();
  });

  const waitForOutput = (pattern: RegExp) =>
    new Promise<string>((resolve) => {
      waiters.push({ pattern, resolve });
      check();
    });

  return new Promise((resolve, reject) => {
    void exited.then(({ code, signal }) => reject(new Error(`gatehouse serve exited (${code ?? signal}) before it was ready:\n${stdout}\n${stderr}`)));
    void waitForOutput(READY_LINE).then(() => {
      const url = URL_LINE.exec(stderr)?.[1] ?? URL_LINE.exec(stdout)?.[1];
      if (!url) {
        reject(new Error(`gatehouse serve printed no URL:\n${stdout}\n${stderr}`));
        return;
      }
      resolve({
        child,
        url,
        generatedKey: KEY_LINE.exec(stderr)?.[1] ?? KEY_LINE.exec(stdout)?.[1],
        stdout: () => stdout,
        stderr: () => stderr,
        waitForOutput,
        exited,
        async stop(signal = 'SIGTERM') {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal);
          return exited;
        },
      });
    });
  });
}

/**
 * A port that was free a moment ago (for testing `--port` / `GATEHOUSE_PORT` with a number).
 * Chosen below the system's ephemeral range, which `listen(0)` and outgoing connections draw
 * from: another test file running at the same time (servers on port 0, clients) cannot take
 * it between this check and the server's bind, as it could take a port from `listen(0)`.
 */
export async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  let ephemeralStart = 32768;
  try {
    ephemeralStart = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || ephemeralStart;
  } catch {
    // Not Linux: the common default stands.
  }
  const low = 10_000;
  const tryPort = (port: number) =>
    new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
  for (let tries = 0; tries < 50 && ephemeralStart > low; tries++) {
    const port = low + Math.floor(Math.random() * (ephemeralStart - low));
    if (await tryPort(port)) return port;
  }
  // No room below the ephemeral range (an unusual system setting): one the system picks.
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface RunningCli {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves when stdout or stderr has matched `pattern`. */
  waitFor(pattern: RegExp): Promise<void>;
  exited: Promise<CliResult>;
}

/** Starts `gatehouse <args>` and returns at once, for tests that signal it while it runs. */
export function spawnCli(args: readonly string[], options: SpawnOptions = {}): RunningCli {
  const child = spawn(process.execPath, [CLI, ...args], { cwd: options.cwd ?? REPO_ROOT, env: childEnv(options.env), stdio: 'pipe' });
  let stdout = '';
  let stderr = '';
  const waiters: { pattern: RegExp; resolve(): void }[] = [];
  const check = () => {
    for (const waiter of [...waiters]) {
      if (waiter.pattern.test(stdout) || waiter.pattern.test(stderr)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  };
  child.stdout!.on('data', (chunk: Buffer) => ((stdout += chunk.toString()), check()));
  child.stderr!.on('data', (chunk: Buffer) => ((stderr += chunk.toString()), check()));
  const exited = new Promise<CliResult>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    waitFor: (pattern) => new Promise<void>((resolve) => (waiters.push({ pattern, resolve }), check())),
    exited,
  };
}

/**
 * The line plan, apply and drift end with on stderr (`43 requests (36% of one minute's budget of
 * 120)`, prefixed with the environment's name under `--env all`; request-usage.ts).
 */
const USAGE_LINE = /^(?:[\w.-]+: )?\d+ requests? \([^\n]*\)$/m;

/** `stderr` without the request line(s): what a test that expects a quiet stderr compares. */
export const besideUsage = (stderr: string): string => stderr.replace(new RegExp(`${USAGE_LINE.source}\\n?`, 'gm'), '');
