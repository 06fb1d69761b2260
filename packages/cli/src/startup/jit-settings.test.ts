import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The built module (the test suite builds first): V8's flags are per process, so each case is a
// fresh Node. It calls a small function from a hot one until V8 has optimised the hot one,
// asking V8 through its natives syntax, allowed after start-up as any other flag. It prints the
// number of calls, and with `--trace-turbo-inlining` V8 prints a line for each function it inlines.
// `--no-concurrent-recompilation`: V8 compiles when it decides to, not on a thread that finishes
// some calls later, so that the count is the same from run to run.
const MODULE = fileURLToPath(new URL('../../dist/startup/jit-settings.js', import.meta.url));

function optimisedAfter(tuned: boolean): { calls: number; inlined: number } {
  const script = `
    const { tuneJitForShortRuns } = await import(${JSON.stringify(MODULE)});
    if (${tuned}) tuneJitForShortRuns();
    const { setFlagsFromString } = await import('node:v8');
    setFlagsFromString('--allow-natives-syntax');
    const optimised = new Function('f', 'return (%GetOptimizationStatus(f) & 16) !== 0');
    function leaf(x) { return (x * 31 + 7) % 1000; }
    function hot(x) { return leaf(x) + leaf(x + 1); }
    let calls = 0;
    while (!optimised(hot) && calls < 10000000) hot(calls++);
    console.log('calls ' + calls);
  `;
  const out = execFileSync(process.execPath, ['--trace-turbo-inlining', '--no-concurrent-recompilation', '--input-type=module', '-e', script], { encoding: 'utf8' });
  return { calls: Number(/^calls (\d+)$/m.exec(out)![1]), inlined: out.split('\n').filter((line) => line.startsWith('Inlining')).length };
}

describe('tuneJitForShortRuns', () => {
  it('optimises a hot function only after about three times as many calls, and without inlining what it calls', () => {
    const usual = optimisedAfter(false);
    const tuned = optimisedAfter(true);
    expect(usual.inlined).toBeGreaterThan(0);
    expect(tuned.inlined).toBe(0);
    // Optimised still (a long run gets fast code), but later: 200,000 against V8's 67,584.
    expect(tuned.calls).toBeLessThan(10_000_000);
    expect(tuned.calls).toBeGreaterThan(2 * usual.calls);
  });
});
