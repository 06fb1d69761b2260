#!/usr/bin/env node
/**
 * Peak memory of `gatehouse validate` per byte of input (issue 15: under 10x the input size).
 *
 * Generates a manifest file of about 10 MB and one of about 50 MB (block-style YAML as people
 * write it: IP policies with their rules, backends, bot users, HTTPS edges with routes), runs
 * the BUILT CLI's `validate --max-file-size 1GB` on each as a fresh process, and reads the
 * process's own peak RSS (bare/peak-rss.cjs). The figure is (peak RSS of validate - peak RSS of
 * `gatehouse --version`, the process baseline of Node and the CLI's code) / input size, median of
 * ROUNDS runs (default 3). A bench, never a test assertion: it prints, and exits 0.
 *
 *   npx tsc -b && node packages/cli/bench/validate-memory.mjs          (MEMORY_SIZES=10,50 MEMORY_ROUNDS=3)
 *
 * `measureValidateMemory` is also the `npm run bench` row (user-bench.mjs), on the 10 MB file.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CLI, median } from './support.mjs';

const PEAK_RSS = fileURLToPath(new URL('./bare/peak-rss.cjs', import.meta.url));

/** About `bytes` of manifests: one document of each kind in turn, until the size is reached. */
export function generateManifests(bytes) {
  const chunks = [];
  let size = 0;
  const push = (text) => {
    chunks.push(text);
    size += text.length;
  };
  for (let i = 0; size < bytes; i++) {
    const n = String(i).padStart(6, '0');
    const rules = [];
    for (let r = 0; r < 20; r++) {
      rules.push(`    - cidr: 10.${i % 250}.${r}.${(Math.floor(i / 250) % 64) * 4}/30\n      action: ${r % 3 === 0 ? 'deny' : 'allow'}\n      description: rule ${r} of policy ${n}\n`);
    }
    push(`---\nkind: IPPolicy\nname: policy-${n}\nspec:\n  description: Office egress addresses ${n}\n  rules:\n${rules.join('')}`);
    push(`---\nkind: Backend\nname: backend-${n}\nspec:\n  type: tunnel_group\n  description: Web frontends ${n}\n  labels:\n    app: web-${n}\n    tier: frontend\n`);
    push(`---\nkind: BotUser\nname: bot-${n}\nspec:\n  active: true\n`);
  }
  return chunks.join('');
}

/** Runs `node --require peak-rss.cjs CLI ...args`; resolves with its peak RSS in bytes. */
function peakRss(args, work) {
  const file = join(work, `rss-${Math.random().toString(36).slice(2)}.txt`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--require', PEAK_RSS, CLI, ...args], {
      env: { ...process.env, GATEHOUSE_BENCH_RSS_FILE: file, NO_COLOR: '1' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (c) => (err += c));
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`gatehouse ${args.join(' ')} exited ${code}: ${err.slice(0, 2000)}`));
      resolve(Number(readFileSync(file, 'utf8').trim()));
    });
  });
}

/**
 * Peak RSS of validate on a generated file of `megabytes` MB, less the `--version` baseline,
 * per byte of input: `{ inputBytes, peakBytes, baselineBytes, ratio }` (medians of `rounds`).
 */
export async function measureValidateMemory(megabytes, rounds = 3) {
  const work = mkdtempSync(join(tmpdir(), 'gatehouse-validate-memory-'));
  try {
    const file = join(work, 'objects.yaml');
    writeFileSync(file, generateManifests(megabytes * 1e6));
    const inputBytes = statSync(file).size;
    const peaks = [];
    const baselines = [];
    for (let round = 0; round < rounds; round++) {
      baselines.push(await peakRss(['--version'], work));
      peaks.push(await peakRss(['validate', file, '--max-file-size', '1GB'], work));
    }
    const peakBytes = median(peaks);
    const baselineBytes = median(baselines);
    // Each round's ratio too: the peak depends on when the collector runs, which a busy machine moves.
    const ratios = peaks.map((peak, i) => (peak - baselines[i]) / inputBytes);
    return { inputBytes, peakBytes, baselineBytes, ratio: (peakBytes - baselineBytes) / inputBytes, ratios };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const sizes = (process.env.MEMORY_SIZES ?? '10,50').split(',').map(Number);
  const rounds = Number(process.env.MEMORY_ROUNDS ?? 3);
  const mb = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;
  console.log(`gatehouse validate peak memory, ${rounds} rounds, Node ${process.version}`);
  for (const size of sizes) {
    const r = await measureValidateMemory(size, rounds);
    console.log(
      `validate of ${mb(r.inputBytes)}: peak RSS ${mb(r.peakBytes)} - --version ${mb(r.baselineBytes)} = ${mb(r.peakBytes - r.baselineBytes)}, ` +
        `${r.ratio.toFixed(1)}x the input (aim < 10x)${r.ratio < 10 ? '' : '  (missed)'}; rounds: ${r.ratios.map((x) => `${x.toFixed(1)}x`).join(', ')}`,
    );
  }
}
