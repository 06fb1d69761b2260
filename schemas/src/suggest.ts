/**
 * "Did you mean ...?" for a mistyped command, flag or manifest kind (the CLI's messages, the
 * engine's `unknown_kind`): the closest known name by edit distance, offered only when it is
 * close enough to be a typo (at most a third of the name's length, and at least 2 edits, as a
 * swap of two letters is, so `plna` finds `plan` and `xyz` finds nothing).
 */
import { distance } from 'fastest-levenshtein';

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
