import { setFlagsFromString } from 'node:v8';

/**
 * Keeps V8's young generation at its starting size for the rest of the process.
 *
 * V8 doubles the young generation (up to 16 MB per semi-space, 32 MB or more of resident
 * memory) whenever most young objects survive a scavenge, which is exactly what reading a
 * large manifest does: every parsed value is kept. The memory bought is then resident for the
 * whole run while it saves little time (measured: `validate` of 10 MB, peak RSS 212 MB -> 195
 * MB, same wall time; see bench/validate-memory.mjs). `--semi-space-growth-factor` is read by
 * V8 each time it considers growing, so setting it once the process runs takes effect (unlike
 * `--max-semi-space-size`, read only when the heap is set up).
 *
 * Contract: call once, early in a command whose peak memory matters (validate); idempotent;
 * changes only how the young generation grows, never what a program computes.
 */
export function keepYoungGenerationSmall(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
}
