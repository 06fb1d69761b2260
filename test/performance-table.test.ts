/**
 * docs/performance.md has the one table `npm run bench` writes, between its markers, and the
 * bench's helper replaces that region and nothing else.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- plain ESM script without type declarations
import { PERFORMANCE_PAGE, performanceTable, replaceTable, TABLE_END, TABLE_START } from '../packages/cli/bench/performance-table.mjs';

const machine = { commit: 'abc1234', cpus: 2, cpuModel: 'a CPU', os: 'linux 6.1', node: 'v20.19.0', rounds: 5 };
const rows: Row[] = [
  { figure: 'gatehouse --version / node -e 0', measured: '120 ms', baseline: '40 ms', ratio: '3.00x', aim: '<= 4x', ok: true },
  { figure: 'a | row that missed', measured: '9 MB', baseline: '-', ratio: '-', aim: '<= 5 MB', ok: false },
  { figure: 'a figure for information', measured: '500 ms', baseline: '250 ms', ratio: '2.00x', aim: '-' },
];

type Row = { figure: string; measured: string; baseline: string; ratio: string; aim: string; ok?: boolean };

describe('the table of docs/performance.md', () => {
  it('the page has one region for it', () => {
    const page = readFileSync(PERFORMANCE_PAGE, 'utf8');
    expect(page.split(TABLE_START)).toHaveLength(2);
    expect(page.split(TABLE_END)).toHaveLength(2);
    expect(page.indexOf(TABLE_START)).toBeLessThan(page.indexOf(TABLE_END));
  });

  it('replaces the region with the rows and the machine, and keeps the prose around it', () => {
    const page = `# Performance\n\nprose before\n\n${TABLE_START}\n| old | table |\n${TABLE_END}\n\nprose after\n`;
    const written = replaceTable(page, performanceTable(rows, machine));
    expect(written).toContain('prose before');
    expect(written).toContain('prose after');
    expect(written).not.toContain('| old | table |');
    expect(written).toContain('| gatehouse --version / node -e 0 | 120 ms | 40 ms | 3.00x | <= 4x | met |');
    expect(written).toContain('| a \\| row that missed | 9 MB | - | - | <= 5 MB | **missed** |');
    // A figure without an aim neither meets nor misses one.
    expect(written).toContain('| a figure for information | 500 ms | 250 ms | 2.00x | - | - |');
    expect(written).toContain('at commit abc1234 on 2 CPUs (a CPU), linux 6.1, Node v20.19.0; 5 rounds.');
    // Writing again replaces the table instead of adding a second one.
    expect(replaceTable(written, performanceTable(rows, machine))).toBe(written);
  });

  it('refuses a page without the region', () => {
    expect(() => replaceTable('# Performance\n', 'table')).toThrow(/no region/);
  });
});
