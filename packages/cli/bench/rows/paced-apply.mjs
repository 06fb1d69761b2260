/**
 * Apply against the service's limit, scaled to seconds: `gatehouse serve --rate-limit 120/6s
 * --latency 20ms` (the service's 120 a minute, ten times faster) and the client given the same
 * budget. 1,000 creates take some 50 s, set by the limit alone.
 *
 * - Wall time of `apply --yes` (a fresh process, from spawn to exit) over the least time its
 *   requests can take under the limit: all of them sent in full windows of 120, the first at
 *   once, each next one a window later, the last answered a latency after it was sent. Aim: at
 *   most 1.05x, with not one request answered 429 (counted by the server). The client counts a
 *   request in the window until a window after its answer (it cannot know when the server
 *   counted it), so each window costs it one answer's time: a window of 6 s, not 3, keeps that
 *   share near what a minute's window makes it against the service.
 * - The requests the server saw, less the writes (one create each) and the listing (a plan's
 *   `requests`): the lock's. Aim: at most 4.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { apiEnv, gatehouse, ipPolicies, row, seconds, startServe, times, writeFiles } from '../support.mjs';

const KEY = 'bench-paced-key-0123456789abcdef';
const LIMIT = { requests: 120, windowMs: 6000 };
const LATENCY_MS = 20;
const CREATES = 1000;

export async function pacedApplyRows(work) {
  const rate = `${LIMIT.requests}/${LIMIT.windowMs}ms`;
  const server = await startServe(join(work, 'paced.db'), KEY, ['--rate-limit', rate, '--latency', `${LATENCY_MS}ms`]);
  try {
    const dir = writeFiles(join(work, 'paced'), { 'policies.yaml': ipPolicies(CREATES) });
    const env = apiEnv(server, KEY, rate);
    const plan = JSON.parse((await gatehouse(['plan', dir, '--format', 'json'], { env })).stdout);
    const { requests: listing } = plan;
    const writes = plan.summary.create;
    // The plan's requests leave the server's window before the apply starts with all of it.
    await sleep(LIMIT.windowMs + 500);
    const before = server.requests.length;
    const apply = await gatehouse(['apply', dir, '--yes', '--format', 'json'], { env });
    await sleep(200);
    const sent = server.requests.slice(before);
    const refused = sent.filter((r) => r.status === 429).length;
    const minimum = (Math.ceil(sent.length / LIMIT.requests) - 1) * LIMIT.windowMs + LATENCY_MS;
    const ratio = apply.ms / minimum;
    const lock = sent.length - writes - listing;
    return [
      row(`apply of ${CREATES.toLocaleString('en-US')} creates at 120/6s / the least time its requests allow`, {
        measured: seconds(apply.ms),
        baseline: `${seconds(minimum)} (${sent.length} requests)`,
        result: `${times(ratio, 1.05)}, ${refused} answered 429`,
        aim: '<= 1.05x, 0 answered 429',
        ok: ratio <= 1.05 && refused === 0,
      }),
      row('requests of that apply - (writes + listing)', {
        measured: `${sent.length} requests`,
        baseline: `${writes} writes + ${listing} listing`,
        result: String(lock),
        aim: '<= 4',
        ok: lock >= 0 && lock <= 4,
      }),
    ];
  } finally {
    await server.stop();
  }
}
