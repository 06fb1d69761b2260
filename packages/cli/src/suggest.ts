/**
 * "Did you mean ...?" for a mistyped command or flag: the closest known name by edit
 * distance, offered only when it is close enough to be a typo (at most a third of the
 * name's length, and at least 2 edits, as a swap of two letters is, so `plna` finds `plan`
 * and `xyz` finds nothing).
 */
import { createRequire } from 'node:module';
import type * as Levenshtein from 'fastest-levenshtein';

/**
 * fastest-levenshtein is CommonJS: `require`d, as src/oclif.ts explains, because an ES import of
 * it made Node load its export lexer (WebAssembly, some 50 ms of CPU and 10 MB) in every command
 * that fails or exits 2 (bin/run.js reports those through report-error.ts, which uses this).
 */
const { distance } = createRequire(import.meta.url)('fastest-levenshtein') as typeof Levenshtein;

export function closestName(typed: string, known: readonly string[]): string | undefined {
  let best: { name: string; d: number } | undefined;
  for (const name of known) {
    const d = distance(typed, name);
    if (!best || d < best.d) best = { name, d };
  }
  if (!best) return undefined;
  const allowed = Math.max(2, Math.floor(Math.max(typed.length, best.name.length) / 3));
  return best.d <= allowed ? best.name : undefined;
}
