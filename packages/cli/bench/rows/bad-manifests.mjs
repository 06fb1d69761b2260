/**
 * What a manifest that cannot be read costs: `validate`, `plan` and `apply --yes` of a
 * directory with a YAML error, against `gatehouse serve`, each a fresh process; the requests
 * counted by the server. Aim: 0 for each (and so no lock taken).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { apiEnv, gatehouse, ipPolicies, row, startServe, writeFiles } from '../support.mjs';

const KEY = 'bench-bad-key-0123456789abcdef';

export async function badManifestsRow(work) {
  const server = await startServe(join(work, 'bad.db'), KEY);
  try {
    const dir = writeFiles(join(work, 'bad'), { 'policies.yaml': `${ipPolicies(20)}---\nkind: IPPolicy\nname: broken\nspec: {description: [unclosed\n` });
    const counts = [];
    for (const args of [
      ['validate', dir],
      ['plan', dir],
      ['apply', dir, '--yes'],
    ]) {
      const before = server.requests.length;
      await gatehouse(args, { env: apiEnv(server, KEY, '120/60s'), expectCode: 1 });
      await sleep(100);
      counts.push(`${args[0]} ${server.requests.length - before}`);
    }
    const total = counts.reduce((n, c) => n + Number(c.split(' ')[1]), 0);
    return [row('bad manifests: requests of validate, plan, apply', { measured: counts.join(', '), result: String(total), aim: '0', ok: total === 0 })];
  } finally {
    await server.stop();
  }
}
