import { createRequire } from 'node:module';

/**
 * Tunes V8's optimising compiler (TurboFan) for a command that runs for well under a second.
 *
 * V8 recompiles a function with TurboFan once the function has run a set amount of bytecode
 * (the interrupt budget: 67,584 bytes in Node 20's V8). The compile runs on a background thread
 * and inlines the functions it calls. A plan of 5,000 objects compiled about 100 functions that
 * way (`--trace-opt`: the YAML reader, the kinds' conversions, resolve, the marker parser), and the
 * compiles took 250 ms of background CPU in a 350 ms process. On 2 cores that CPU competed with
 * the main thread and with the API server, and most of the compiled code then ran for a few
 * milliseconds before exit. The two settings:
 * - `--no-turbo-inlining`: each compile covers one function, and costs several times less;
 * - `--interrupt-budget=200000` (about 3x the default): only a function that keeps running is
 *   compiled, so a long run (a large validate or plan) still gets optimised code.
 *
 * Measured as a user runs it (README, performance, fourth round): a plan of 5,000 objects took
 * 17% less wall time and 26% less CPU, and a validate of 50,000 objects (5 MB) was not slower
 * (0.93x). Not used for `serve`: a server runs for hours, and its throughput needs inlining.
 *
 * Contract: call before the command's own code runs (bin/run.js calls it first thing for every
 * command but `serve`). It changes when and how V8 optimises, never what a program computes.
 * Idempotent. V8 reads both flags each time it decides, so setting them at run time works. They
 * are part of the flags V8 checks a code cache against, so a process that runs without them
 * (`serve`) has code caches of its own (a profile of src/startup/code-cache.ts). `node:v8` by
 * `require`, as in wasm-tiering.ts: about 1 ms less than its ES module wrapper.
 */
export function tuneJitForShortRuns(): void {
  const v8 = createRequire(import.meta.url)('node:v8') as typeof import('node:v8');
  v8.setFlagsFromString('--no-turbo-inlining');
  v8.setFlagsFromString('--interrupt-budget=200000');
}
