#!/usr/bin/env node
/**
 * `npm run bench`: what users wait for, measured as users run it (the BUILT CLI, a fresh
 * process per command) against the reference server, each figure a ratio to a baseline
 * measured in the same run, or a count, printed with its aim and `ok` or `MISS`; then written as
 * `docs/performance.md`'s table (performance-table.mjs). One module per row or group of rows:
 *
 * - rows/paced-apply.mjs: apply of 1,000 creates under a scaled limit; the lock's requests
 * - rows/bad-manifests.mjs: requests of validate, plan and apply of a broken manifest
 * - rows/environments.mjs: plan --env all over three targets
 * - rows/hung-api.mjs: how long a hung API takes to fail, with the default limits
 * - rows/large-plan.mjs: requests and peak RSS of a plan of 100,000 live rules
 * - rows/guard-rails.mjs: start-up, plan CPU, validate memory, the server's durable creates
 *
 *   npm run bench                      (BENCH_ONLY=paced,environments runs some groups only,
 *                                       and then leaves docs/performance.md alone)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { PERFORMANCE_PAGE, performanceTable, thisMachine, writePerformanceTable } from './performance-table.mjs';
import { badManifestsRow } from './rows/bad-manifests.mjs';
import { environmentsRow } from './rows/environments.mjs';
import { guardRailRows } from './rows/guard-rails.mjs';
import { hungApiRow } from './rows/hung-api.mjs';
import { largePlanRows } from './rows/large-plan.mjs';
import { pacedApplyRows } from './rows/paced-apply.mjs';

const GROUPS = { paced: pacedApplyRows, bad: badManifestsRow, environments: environmentsRow, hung: hungApiRow, large: largePlanRows, rails: guardRailRows };

const only = process.env.BENCH_ONLY?.split(',')
  .map((g) => g.trim())
  .filter(Boolean);
for (const group of only ?? []) if (!(group in GROUPS)) throw new Error(`BENCH_ONLY: no group ${group}; the groups are ${Object.keys(GROUPS).join(', ')}`);

console.log(`gatehouse bench: ${cpus().length} CPUs (${cpus()[0]?.model ?? 'unknown'}), Node ${process.version}`);
const work = mkdtempSync(join(tmpdir(), 'gatehouse-bench-'));
const rows = [];
try {
  for (const [group, measure] of Object.entries(GROUPS)) {
    if (only && !only.includes(group)) continue;
    for (const r of await measure(work)) {
      rows.push(r);
      console.log(
        `${r.ok === undefined ? 'info' : r.ok ? 'ok  ' : 'MISS'}  ${r.figure}: ${r.measured}${r.baseline !== '-' ? ` vs ${r.baseline}` : ''} -> ${r.ratio} (aim ${r.aim})`,
      );
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
console.log(`\n${performanceTable(rows, thisMachine())}`);
if (!only) {
  writePerformanceTable(rows);
  console.log(`\nWrote the table of ${PERFORMANCE_PAGE}.`);
}
if (rows.some((r) => r.ok === false)) process.exitCode = 1;
