import { setFlagsFromString } from 'node:v8';

/**
 * Heap settings for a command that reads a large input and keeps nearly all of it (validate):
 * peak memory, not collection time, is what matters there (issue 15: under 10x the input).
 *
 * - The young generation stays at its starting size. V8 doubles it (up to 16 MB per semi-space,
 *   32 MB or more resident) whenever most young objects survive a scavenge, which is exactly
 *   what reading does.
 * - The old generation may grow by 20% of what survived a full collection before the next one,
 *   instead of V8's own factor (up to 4x), which left the garbage of parsing resident at the peak.
 *
 * Measured with bench/validate-memory.mjs (peak RSS beyond `--version`): 10 MB of manifests
 * 174 -> 150 MB for the young generation alone, then about 188 -> 148 MB and 529 -> 443 MB
 * (50 MB) for the old generation, CPU time unchanged within noise. Both flags are read by V8 each
 * time it sizes a space, so setting them once the process runs takes effect (unlike
 * `--max-semi-space-size`, read only when the heap is set up).
 *
 * Called when the command runs, after oclif and the engine are loaded: loading has grown the
 * young generation to 2 x 4 MB semi-spaces by then, and it stays there. Called before loading
 * (first thing in bin/run.js), the young generation stays at 2 x 1 MB: 10 MB of manifests peak
 * some 5 MB lower, but validate takes some 10% more CPU time (four times as many scavenges while
 * nearly everything read survives them), so it is not done.
 *
 * Contract: call once, early in the command; idempotent; changes only when and how much the heap
 * grows, never what a program computes.
 */
export function keepHeapCompact(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
  setFlagsFromString('--heap-growing-percent=20');
}
