/**
 * The reference server's bench: durable creates a second. `gatehouse serve` (the BUILT CLI)
 * runs as a user starts it, over a fresh SQLite file with its default log (a JSON line per
 * request, read and dropped); 10 clients create IP policies back to back for a few seconds
 * (autocannon), and every answer must be a 201, each one on disk before it was sent. The aim is
 * a hundred times the service's own limit (120 requests a minute, 2 a second): 200 a second;
 * CPU time beyond that buys a user nothing.
 *
 *   npm run build && node packages/server/bench/server-bench.mjs     (BENCH_SECONDS, default 5)
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const KEY = 'bench-key-0123456789';
const DEFAULT_CLI = fileURLToPath(new URL('../../cli/bin/run.js', import.meta.url));

/**
 * Runs the bench against `gatehouse serve` of `cli` (its bin/run.js) and resolves with the 201
 * answers a second and the requests that got anything else (non-2xx answers and errors, which
 * make the figure worthless: a fast error is not a result).
 */
export async function measureDurablePosts({ cli = DEFAULT_CLI, seconds = 5, connections = 10 } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-server-bench-'));
  const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--db', join(dir, 'bench.db'), '--api-key', KEY, '--log-format', 'json'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    // The start-up lines come on stderr (stdout is the JSON log); whatever follows them, on either
    // stream, is read and dropped, so that the server never waits on a pipe.
    const url = await new Promise((resolve, reject) => {
      let out = '';
      const onData = (chunk) => {
        out += chunk;
        const found = /listening on (\S+)/.exec(out)?.[1];
        if (!found) return;
        for (const stream of [child.stdout, child.stderr]) stream.off('data', onData).resume();
        resolve(found);
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      child.once('exit', (code) => reject(new Error(`gatehouse serve exited (${code}) before it listened: ${out}`)));
    });
    const result = await autocannon({
      url: `${url}/ip_policies`,
      method: 'POST',
      connections,
      duration: seconds,
      headers: { authorization: `Bearer ${KEY}`, 'service-version': '2', 'content-type': 'application/json' },
      body: JSON.stringify({ description: 'bench policy', metadata: '{"team":"bench"}' }),
    });
    return { postsPerSecond: result['2xx'] / seconds, failures: result.non2xx + result.errors + result.timeouts };
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const seconds = Number(process.env.BENCH_SECONDS ?? 5);
  const { postsPerSecond, failures } = await measureDurablePosts({ seconds });
  console.log(
    `durable POST /ip_policies, 10 clients, ${seconds} s: ${postsPerSecond.toFixed(0)}/s (aim: over 200/s, 100x the service's 2/s); ${failures} failed`,
  );
  if (failures > 0 || postsPerSecond <= 200) process.exitCode = 1;
}
