/**
 * `plan --env all` over three environments, each on a target of its own (its own `gatehouse
 * serve --rate-limit 120/6s --latency 20ms`, as each environment is usually an account of its
 * own), each holding 15,000 IP policies: a listing of some 166 requests, more than one window,
 * so each environment's plan is set by its budget. Wall time of `plan --env all` over the
 * slowest environment planned alone, each a fresh process. Aim: at most 1.2x (in turn, it
 * would be about 3x).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { gatehouse, row, seconds, startServe, times, writeFiles, yamlDoc } from '../support.mjs';
import { seedIpPolicies } from '../../../server/bench/seed.mjs';

const KEY = 'bench-environments-key-0123456789';
const NAMES = ['one', 'two', 'three'];
const RATE = '120/6s';
const WINDOW_MS = 6000;
const POLICIES = 15_000;

export async function environmentsRow(work) {
  const servers = [];
  try {
    for (const name of NAMES) {
      const db = join(work, `environment-${name}.db`);
      seedIpPolicies(
        db,
        Array.from({ length: POLICIES }, (_, i) => ({ description: `${name} ${i}` })),
      );
      servers.push(await startServe(db, KEY, ['--rate-limit', RATE, '--latency', '20ms']));
    }
    const project = writeFiles(join(work, 'environments'), {
      'gatehouse.yaml': `manifests: [manifests]\nenvironments:\n${NAMES.map((name) => `  ${name}:\n    api_url: \${env:${name.toUpperCase()}_URL}\n    api_key: \${env:BENCH_KEY}\n    stack: bench\n`).join('')}`,
      'manifests/office.yaml': yamlDoc('IPPolicy', 'office', { description: 'office' }),
    });
    const env = { BENCH_KEY: KEY, GATEHOUSE_RATE_LIMIT: RATE, ...Object.fromEntries(NAMES.map((name, i) => [`${name.toUpperCase()}_URL`, servers[i].url])) };
    // Each run starts with every server's window empty, as a run in CI would.
    const timed = async (args) => {
      await sleep(WINDOW_MS + 500);
      return (await gatehouse(['plan', ...args, '--format', 'json'], { cwd: project, env })).ms;
    };
    const alone = [];
    for (const name of NAMES) alone.push(await timed(['--env', name]));
    const all = await timed(['--env', 'all']);
    const slowest = Math.max(...alone);
    const ratio = all / slowest;
    return [
      row('plan --env all, 3 environments on 3 targets / the slowest alone', {
        measured: seconds(all),
        baseline: `${seconds(slowest)} (alone: ${alone.map(seconds).join(', ')})`,
        result: times(ratio, 1.2),
        aim: '<= 1.2x',
        ok: ratio <= 1.2,
      }),
    ];
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
  }
}
