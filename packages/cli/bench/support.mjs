/**
 * What the bench's rows share: the built CLI run as a user runs it (a fresh process, timed from
 * spawn to exit), `gatehouse serve` as a process whose request log is counted, peak memory of a
 * process, generated manifests, and the row record every module returns.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CLI = fileURLToPath(new URL('../bin/run.js', import.meta.url));
const PEAK_RSS = fileURLToPath(new URL('./bare/peak-rss.cjs', import.meta.url));

/**
 * A row of the table (performance-table.mjs): what was measured against what, and whether it
 * meets its aim. `measured` and `baseline` are as printed; `result` (the table's `ratio` column)
 * is the ratio or the count compared with `aim`. A row without `ok` (and with `aim` '-') is a
 * figure for information: it is printed, and neither meets nor misses anything.
 */
export const row = (figure, { measured, baseline = '-', result, aim, ok }) => ({ figure, measured, baseline, ratio: result, aim, ok });

/**
 * Starts `gatehouse serve` on a free port over `db` with `key` and `args` (more flags); resolves
 * once it listens, with its URL, the requests it has answered so far (from its JSON log: method,
 * path, status, when it arrived and when it was answered) and `stop()`.
 */
export function startServe(db, key, args = []) {
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--db', db, '--api-key', key, '--log-format', 'json', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const requests = [];
  return new Promise((resolve, reject) => {
    let url;
    let banner = '';
    child.on('exit', (code) => url === undefined && reject(new Error(`gatehouse serve exited ${code} before it listened: ${banner}`)));
    // The banner (its URL, then its keys) on either stream; the request log is JSON lines.
    const read = (stream) => {
      let pending = '';
      stream.on('data', (chunk) => {
        pending += chunk;
        const lines = pending.split('\n');
        pending = lines.pop();
        for (const line of lines) {
          if (line.startsWith('{')) {
            const record = JSON.parse(line);
            if (record.msg === 'request')
              requests.push({ method: record.method, path: record.path, status: record.status, start: record.time - record.duration_ms, end: record.time });
            continue;
          }
          banner += `${line}\n`;
          url ??= /listening on (\S+)/.exec(line)?.[1];
          if (url && /API key/.test(line)) resolve({ url, requests, stop: () => stopChild(child) });
        }
      });
    };
    read(child.stdout);
    read(child.stderr);
  });
}

/** Asks `child` to end if it still runs; resolves once it has exited. */
export async function stopChild(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/**
 * Runs `node ...argv` to completion: its exit code, output and time from spawn to exit (ms).
 * `expectCode` (default 0) is checked: another code throws with the output.
 */
export function run(argv, { env = {}, cwd, expectCode = 0 } = {}) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, argv, { cwd, env: { ...process.env, NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('exit', (code) => {
      const ms = performance.now() - started;
      if (expectCode !== undefined && code !== expectCode)
        reject(new Error(`node ${argv.join(' ')} exited ${code} (expected ${expectCode}): ${stderr.slice(-2000) || stdout.slice(-2000)}`));
      else resolve({ code, stdout, stderr, ms });
    });
  });
}

/** `run` of `gatehouse ...args`. */
export const gatehouse = (args, options) => run([CLI, ...args], options);

/** Peak resident memory (bytes) of `node ...argv`, read by the process itself at exit (bare/peak-rss.cjs). */
export async function peakRss(argv, work, options = {}) {
  const file = join(work, `rss-${Math.random().toString(36).slice(2)}.txt`);
  await run(['--require', PEAK_RSS, ...argv], { ...options, env: { ...options.env, GATEHOUSE_BENCH_RSS_FILE: file } });
  return Number(readFileSync(file, 'utf8').trim());
}

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The environment that points the CLI at `server` with `key` (the scaled budget, or none: `off`). */
export const apiEnv = (server, key, rateLimit = 'off') => ({ GATEHOUSE_API_URL: server.url, GATEHOUSE_API_KEY: key, GATEHOUSE_RATE_LIMIT: rateLimit });

/** Writes `files` (name -> text) under `dir`, making directories; returns `dir`. */
export function writeFiles(dir, files) {
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

/** One manifest document, spec as JSON (which is YAML). */
export const yamlDoc = (kind, name, spec) => `---\nkind: ${kind}\nname: ${name}\nspec: ${JSON.stringify(spec)}\n`;

/** `n` IP policies named `prefix-00000`..., as manifests; each with `rules` rules (CIDRs unique within it). */
export function ipPolicies(n, { prefix = 'policy', rules = 0 } = {}) {
  const docs = [];
  for (let i = 0; i < n; i++) {
    const name = `${prefix}-${String(i).padStart(5, '0')}`;
    const list = Array.from({ length: rules }, (_, r) => ({ cidr: `10.${Math.floor(r / 256)}.${r % 256}.0/24`, action: 'allow' }));
    docs.push(yamlDoc('IPPolicy', name, { description: `bench ${i}`, ...(rules > 0 ? { rules: list } : {}) }));
  }
  return docs.join('');
}

/** `3.2 s`, `850 ms`. */
export const seconds = (ms) => (ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`);

/**
 * A ratio as printed: two decimals, or as many more (up to five) as it takes not to read as the
 * aim itself (1.0496 and 1.0504 both read 1.05), so that a figure never looks like the aim it
 * missed or met.
 */
export function times(ratio, aim) {
  let digits = 2;
  while (digits < 5 && Number(ratio.toFixed(digits)) === aim) digits++;
  return `${ratio.toFixed(digits)}x`;
}
