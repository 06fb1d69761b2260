import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The built module (the test suite builds first): V8 settings are per process, so each case is
// a fresh Node that keeps 50 MB of small objects, as reading a large manifest does.
const MODULE = fileURLToPath(new URL('../../dist/startup/young-generation.js', import.meta.url));

function youngGenerationAfterManyKeptObjects(call: boolean): number {
  const script = `
    const { keepYoungGenerationSmall } = await import(${JSON.stringify(MODULE)});
    if (${call}) keepYoungGenerationSmall();
    const kept = [];
    for (let i = 0; i < 500000; i++) kept.push({ text: 'value ' + i, i });
    const { getHeapSpaceStatistics } = await import('node:v8');
    process.stdout.write(String(getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size));
  `;
  return Number(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }));
}

describe('keepYoungGenerationSmall', () => {
  it('keeps the young generation from growing while a program keeps most of what it allocates', () => {
    const grown = youngGenerationAfterManyKeptObjects(false);
    const kept = youngGenerationAfterManyKeptObjects(true);
    expect(kept).toBeLessThanOrEqual(4 * 1024 * 1024);
    expect(grown).toBeGreaterThan(kept);
  });
});
