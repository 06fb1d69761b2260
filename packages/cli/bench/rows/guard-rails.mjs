/**
 * The guard rails of the engine's clean-up (issue 39): ceilings, not aims, each measured against
 * a baseline in the same run, round by round (which one goes first alternates), so that a busy
 * moment of the shared machine slows both; each figure is the median of its rounds.
 *
 * - `gatehouse --version` over `node -e 0`: at most 4x.
 * - `plan` of 5,000 applied objects (no change) over a bare listing of the same collections
 *   (bare/list.mjs: node and undici, pages of 100, every collection at once), against
 *   `gatehouse serve` without a limit: at most 2.5x. Beside it, with no aim, the floor of that
 *   ceiling: the bare listing after `yaml` has read the same manifests (bare/list.mjs --parse),
 *   the least any plan on the design's YAML library can take.
 * - Peak RSS of `validate` of a generated 10 MB manifest, less that of `gatehouse --version`
 *   (Node and the CLI's code, whatever the input), over the file's size: at most 15x (the
 *   measure of issue 15's row, with issue 39's ceiling).
 * - The server's durable creates a second from 10 clients (packages/server/bench), over the
 *   service's own limit of 2 a second: over 100x, none failed.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeFileSync, statSync } from 'node:fs';
import { KINDS } from '@gatehouse/engine';
import { apiEnv, CLI, ipPolicies, median, peakRss, row, run, seconds, startServe, times, writeFiles } from '../support.mjs';
import { seedApplied } from '../seeded.mjs';

const ROUNDS = 7;
const KEY = 'bench-rails-key-0123456789abcdef';
const BARE_LIST = fileURLToPath(new URL('../bare/list.mjs', import.meta.url));
const COLLECTIONS = KINDS.flatMap((d) => ('lists' in d.observe ? d.observe.lists.map((c) => `${c.path}:${c.listKey}`) : []));
const MB = 1e6;

/**
 * `rounds` rounds of `baseline` and each of `measured` (functions resolving with ms), the order
 * turning each round so that none always goes first; the medians, and for each measured one the
 * median of the rounds' ratios to the baseline.
 */
async function interleaved(rounds, baseline, ...measured) {
  const all = [baseline, ...measured];
  const samples = all.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < all.length; k++) {
      const i = (round + k) % all.length;
      samples[i].push(await all[i]());
    }
  }
  const [base, ...ours] = samples;
  return { baseMs: median(base), measured: ours.map((ms) => ({ ms: median(ms), ratio: median(ms.map((m, i) => m / base[i])) })) };
}

async function startupRow() {
  // One round first, unmeasured: the file system's cache.
  await run([CLI, '--version']);
  const {
    baseMs,
    measured: [r],
  } = await interleaved(
    ROUNDS + 2,
    async () => (await run(['-e', '0'])).ms,
    async () => (await run([CLI, '--version'])).ms,
  );
  return row('gatehouse --version / node -e 0', {
    measured: seconds(r.ms),
    baseline: seconds(baseMs),
    result: times(r.ratio, 4),
    aim: '<= 4x',
    ok: r.ratio <= 4,
  });
}

async function planRow(work) {
  const dir = writeFiles(join(work, 'rails-plan'), { 'policies.yaml': ipPolicies(2500, { rules: 1 }) });
  const db = join(work, 'rails-plan.db');
  const objects = await seedApplied(db, dir, 'bench');
  const server = await startServe(db, KEY);
  try {
    const env = { ...apiEnv(server, KEY), GATEHOUSE_STACK: 'bench' };
    // No change: the plan reads everything and finds it as applied (exit 0, not 2).
    await run([CLI, 'plan', dir, '--detailed-exitcode'], { env });
    const {
      baseMs,
      measured: [plan, floor],
    } = await interleaved(
      ROUNDS,
      async () => (await run([BARE_LIST, server.url, KEY, ...COLLECTIONS])).ms,
      async () => (await run([CLI, 'plan', dir], { env })).ms,
      async () => (await run([BARE_LIST, '--parse', join(dir, 'policies.yaml'), server.url, KEY, ...COLLECTIONS])).ms,
    );
    return [
      row(`plan of ${objects.toLocaleString('en-US')} objects (no change, unpaced) / bare listing`, {
        measured: seconds(plan.ms),
        baseline: seconds(baseMs),
        result: times(plan.ratio, 2.5),
        aim: '<= 2.5x',
        ok: plan.ratio <= 2.5,
      }),
      row("that ceiling's floor: `yaml` reading the same manifests, then the bare listing / bare listing", {
        measured: seconds(floor.ms),
        baseline: seconds(baseMs),
        result: `${floor.ratio.toFixed(2)}x`,
        aim: '-',
      }),
    ];
  } finally {
    await server.stop();
  }
}

/** About `bytes` of block-style manifests as people write them: policies with rules, backends, bot users. */
function manifests(bytes) {
  const chunks = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const n = String(i).padStart(6, '0');
    const rules = Array.from(
      { length: 20 },
      (_, r) =>
        `    - cidr: 10.${i % 250}.${r}.${(Math.floor(i / 250) % 64) * 4}/30\n      action: ${r % 3 === 0 ? 'deny' : 'allow'}\n      description: rule ${r} of policy ${n}\n`,
    );
    const text =
      `---\nkind: IPPolicy\nname: policy-${n}\nspec:\n  description: Office egress addresses ${n}\n  rules:\n${rules.join('')}` +
      `---\nkind: Backend\nname: backend-${n}\nspec:\n  type: tunnel_group\n  description: Web frontends ${n}\n  labels:\n    app: web-${n}\n    tier: frontend\n` +
      `---\nkind: BotUser\nname: bot-${n}\nspec:\n  active: true\n`;
    chunks.push(text);
    size += text.length;
  }
  return chunks.join('');
}

async function validateMemoryRow(work) {
  const file = join(work, 'validate-10mb.yaml');
  writeFileSync(file, manifests(10 * MB));
  const size = statSync(file).size;
  const peaks = [];
  const baselines = [];
  for (let round = 0; round < 3; round++) {
    baselines.push(await peakRss([CLI, '--version'], work));
    peaks.push(await peakRss([CLI, 'validate', file, '--max-file-size', '1GB'], work));
  }
  const peak = median(peaks);
  const baseline = median(baselines);
  const ratio = (peak - baseline) / size;
  return row(`validate of ${(size / MB).toFixed(0)} MB: peak RSS less --version's / input size`, {
    measured: `${(peak / MB).toFixed(0)} MB - ${(baseline / MB).toFixed(0)} MB`,
    baseline: `${(size / MB).toFixed(0)} MB`,
    result: `${ratio.toFixed(1)}x`,
    aim: '<= 15x',
    ok: ratio <= 15,
  });
}

async function serverRow() {
  const { measureDurablePosts } = await import('../../../server/bench/server-bench.mjs');
  const result = await measureDurablePosts({ cli: CLI });
  // The service allows 120 requests a minute: 2 a second.
  const ratio = result.postsPerSecond / 2;
  return row("server: durable POST /ip_policies a second, 10 clients / the service's 2 a second", {
    measured: `${result.postsPerSecond.toFixed(0)}/s`,
    baseline: '2/s',
    result: `${ratio.toFixed(0)}x, ${result.failures} failed`,
    aim: '> 100x, none failed',
    ok: ratio > 100 && result.failures === 0,
  });
}

export async function guardRailRows(work) {
  return [await startupRow(), ...(await planRow(work)), await validateMemoryRow(work), await serverRow()];
}
