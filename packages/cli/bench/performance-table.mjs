/**
 * The one table of docs/performance.md, written by `npm run bench`: the region between
 * `<!-- bench:start -->` and `<!-- bench:end -->` is replaced with the rows of the run that just
 * finished and the machine it ran on. The prose around it is written by hand. Only a run of
 * every row replaces it (a run with BENCH_ONLY would drop rows). No history is kept: git has it.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, platform, release } from 'node:os';
import { fileURLToPath } from 'node:url';
import { replaceRegion, tableCell as cell } from '../scripts/markdown-region.mjs';

export const TABLE_START = '<!-- bench:start (written by `npm run bench`: packages/cli/bench/performance-table.mjs; do not edit) -->';
export const TABLE_END = '<!-- bench:end -->';
export const PERFORMANCE_PAGE = fileURLToPath(new URL('../../../docs/performance.md', import.meta.url));

/**
 * The table's Markdown: one line per row (`figure`, `measured`, `baseline`, `ratio`, `aim`, `ok`,
 * as the bench's `row()` records them; `ratio` is the result, a ratio or a count; a row without
 * `ok` is a figure for information, with no aim), then the machine and the commit it was
 * measured on (and the rounds, when the rows share a number).
 */
export function performanceTable(rows, machine) {
  return [
    '| Figure | gatehouse | Baseline | Result | Aim | |',
    '|---|--:|--:|--:|---|---|',
    ...rows.map(
      (r) =>
        `| ${cell(r.figure)} | ${cell(r.measured)} | ${cell(r.baseline)} | ${cell(r.ratio)} | ${cell(r.aim)} | ${r.ok === undefined ? '-' : r.ok ? 'met' : '**missed**'} |`,
    ),
    '',
    `Measured by \`npm run bench\` at commit ${machine.commit} on ${machine.cpus} CPUs (${machine.cpuModel}), ${machine.os}, Node ${machine.node}${machine.rounds ? `; ${machine.rounds} rounds` : ''}.`,
  ].join('\n');
}

/** `text` with its table region replaced by `table`; throws when the page has no region. */
export const replaceTable = (text, table) => replaceRegion(text, TABLE_START, TABLE_END, table, 'docs/performance.md');

/** This machine and the commit checked out, as the table's last line names them. */
export function thisMachine() {
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    // Not a git checkout: the table says so.
  }
  return { commit, cpus: cpus().length, cpuModel: cpus()[0]?.model.trim() ?? 'unknown', os: `${platform()} ${release()}`, node: process.version };
}

/** Replaces the table of docs/performance.md with this run's rows, measured on this machine. */
export function writePerformanceTable(rows) {
  const table = performanceTable(rows, thisMachine());
  writeFileSync(PERFORMANCE_PAGE, replaceTable(readFileSync(PERFORMANCE_PAGE, 'utf8'), table));
}
