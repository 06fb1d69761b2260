/**
 * Start-up bench: how long a user waits for `gatehouse --version` (and a few other cheap
 * commands) against `node -e 0` measured in the same run. Every run is a fresh process, timed
 * from spawn to exit; the commands are interleaved with the baseline round by round, so a
 * busy moment of the shared machine hits both; each figure is the median of the rounds.
 *
 * `measureStartup()` is exported for the user-level bench (`npm run bench`), which prints the
 * same row among its own; run directly, this file prints the table:
 *   node packages/cli/bench/startup-bench.mjs [--rounds 15]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CLI = fileURLToPath(new URL('../bin/run.js', import.meta.url));

/** `argv` for `node`: the baseline and the commands measured by default. */
export const BASELINE = { name: 'node -e 0', argv: ['-e', '0'] };
export const DEFAULT_COMMANDS = [
  { name: 'gatehouse --version', argv: [CLI, '--version'] },
  { name: 'gatehouse help', argv: [CLI, 'help'] },
];

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Milliseconds from spawn to exit of `node ...argv` (output discarded; a failure throws). */
export function timeProcess(argv, options = {}) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, argv, { stdio: 'ignore', cwd: options.cwd, env: { ...process.env, ...options.env } });
    child.on('error', reject);
    child.on('exit', (code) => {
      const ms = performance.now() - started;
      if (code === 0 || options.allowFailure) resolve(ms);
      else reject(new Error(`node ${argv.join(' ')} exited ${code}`));
    });
  });
}

/**
 * Runs the baseline and each command `rounds` times, interleaved, after one warm-up round
 * (the file system cache). Returns `{ baseline, rows }`: the baseline's median and, per
 * command, its median and its ratio to the baseline.
 */
export async function measureStartup({ commands = DEFAULT_COMMANDS, rounds = 15, baseline = BASELINE, cwd, env } = {}) {
  const runs = new Map([[baseline.name, []], ...commands.map((c) => [c.name, []])]);
  for (let round = 0; round <= rounds; round++) {
    for (const command of [baseline, ...commands]) {
      const ms = await timeProcess(command.argv, { cwd, env });
      if (round > 0) runs.get(command.name).push(ms);
    }
  }
  const base = median(runs.get(baseline.name));
  return {
    baseline: { name: baseline.name, medianMs: base },
    rows: commands.map((c) => {
      const ms = median(runs.get(c.name));
      return { name: c.name, medianMs: ms, ratio: ms / base };
    }),
  };
}

/** `validate` of a small repository (two documents), in a temporary directory. */
export function smallRepository() {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-startup-'));
  writeFileSync(
    join(dir, 'policy.yaml'),
    'kind: IPPolicy\nname: office\nspec:\n  description: office\n  rules:\n    - action: allow\n      cidr: 10.0.0.0/8\n',
  );
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

async function main() {
  const at = process.argv.indexOf('--rounds');
  const rounds = at > 0 ? Number(process.argv[at + 1]) : 15;
  const repo = smallRepository();
  try {
    const result = await measureStartup({
      rounds,
      commands: [...DEFAULT_COMMANDS, { name: 'gatehouse validate (small repo)', argv: [CLI, 'validate', repo.dir] }],
    });
    console.log(`Start-up, median of ${rounds} fresh processes each, interleaved with the baseline:`);
    console.log(`  ${result.baseline.name.padEnd(32)} ${result.baseline.medianMs.toFixed(0).padStart(6)} ms`);
    for (const row of result.rows) {
      console.log(`  ${row.name.padEnd(32)} ${row.medianMs.toFixed(0).padStart(6)} ms  ${row.ratio.toFixed(2)}x`);
    }
  } finally {
    repo.remove();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
