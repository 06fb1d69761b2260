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
 * bin/run.js calls it first thing for `validate`, before oclif and the engine are loaded, and
 * the command again (a no-op) for callers that do not start through bin/run.js. Called only
 * when the command runs, loading would already have grown the young generation to 2 x 4 MB
 * semi-spaces, and it stays there. Called first, it stays at 2 x 1 MB: a 10 MB manifest peaks
 * some 5-8 MB lower (10.0x -> 9.2-9.5x the input, the aim being under 10x) for some 4% more CPU
 * time (more scavenges while nearly everything read survives them; 20:00 UTC, load average 3,
 * medians of 5: 2.35 -> 2.45 s). Memory is the stated aim for validate, so memory wins here.
 *
 * Contract: call early, before the input is read; idempotent; changes only when and how much the heap
 * grows, never what a program computes.
 */
export function keepHeapCompact(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
  setFlagsFromString('--heap-growing-percent=20');
}
