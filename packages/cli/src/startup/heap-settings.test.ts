import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The built module (the test suite builds first): V8 settings are per process, so each case is
// a fresh Node that keeps many small objects and drops as many, as reading a large manifest does.
const MODULE = fileURLToPath(new URL('../../dist/startup/heap-settings.js', import.meta.url));

function heapAfterReading(call: boolean): { young: number; total: number; used: number } {
  const script = `
    const { keepHeapCompact } = await import(${JSON.stringify(MODULE)});
    if (${call}) keepHeapCompact();
    const kept = [];
    let dropped;
    for (let i = 0; i < 600000; i++) {
      kept.push({ text: 'value ' + i, i });
      dropped = [i, { i }, 'x' + i];
    }
    const { getHeapSpaceStatistics } = await import('node:v8');
    const young = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
    const { heapTotal, heapUsed } = process.memoryUsage();
    process.stdout.write(JSON.stringify({ young, total: heapTotal, used: heapUsed }));
  `;
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })) as { young: number; total: number; used: number };
}

describe('keepHeapCompact', () => {
  it('keeps the young generation at its starting size and the heap close to what is kept', () => {
    const grown = heapAfterReading(false);
    const compact = heapAfterReading(true);
    expect(compact.young).toBeLessThanOrEqual(4 * 1024 * 1024);
    expect(grown.young).toBeGreaterThan(compact.young);
    expect(compact.total).toBeLessThan(grown.total);
  });
});
