/**
 * A plan of 100,000 IP policy rules that are live (1,000 policies of 100 rules, applied: every
 * object carries the marker apply writes, so the plan has no change), against `gatehouse serve`
 * without a limit (the figures are requests and memory, not time):
 *
 * - requests, counted by the server: one a page of 100, for every collection a plan lists (an
 *   empty collection still costs its one request). Aim: exactly that.
 * - peak RSS of the plan process (its own `maxRSS` at exit). Aim: at most 512 MB.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { KINDS } from '@gatehouse/engine';
import { apiEnv, CLI, ipPolicies, peakRss, row, startServe, writeFiles } from '../support.mjs';
import { seedApplied } from '../seeded.mjs';

const KEY = 'bench-large-key-0123456789abcdef';
const STACK = 'bench';
const POLICIES = 1000;
const RULES = 100;
const MB = 1024 * 1024;

/** Every collection a plan lists, with the objects it holds here. */
const LISTED = KINDS.flatMap((d) => ('lists' in d.observe ? d.observe.lists.map((c) => c.path) : []));
const HELD = { '/ip_policies': POLICIES, '/ip_policy_rules': POLICIES * RULES };

export async function largePlanRows(work) {
  const dir = writeFiles(join(work, 'large'), { 'policies.yaml': ipPolicies(POLICIES, { rules: RULES }) });
  const db = join(work, 'large.db');
  await seedApplied(db, dir, STACK);
  const server = await startServe(db, KEY);
  try {
    const env = { ...apiEnv(server, KEY), GATEHOUSE_STACK: STACK };
    const before = server.requests.length;
    const peak = await peakRss([CLI, 'plan', dir, '--format', 'json', '--detailed-exitcode'], work, { env });
    await sleep(200);
    const requests = server.requests.length - before;
    const expected = LISTED.reduce((n, path) => n + Math.max(1, Math.ceil((HELD[path] ?? 0) / 100)), 0);
    return [
      row(`plan of ${(POLICIES * RULES).toLocaleString('en-US')} live IP policy rules: requests`, {
        measured: String(requests),
        baseline: `${expected}: pages of 100 of ${LISTED.length} lists`,
        result: requests === expected ? 'equal' : `${requests - expected > 0 ? '+' : ''}${requests - expected}`,
        aim: 'equal',
        ok: requests === expected,
      }),
      row('that plan: peak RSS', { measured: `${Math.round(peak / MB)} MB`, result: `${Math.round(peak / MB)} MB`, aim: '<= 512 MB', ok: peak <= 512 * MB }),
    ];
  } finally {
    await server.stop();
  }
}
