/**
 * Durations as every duration flag reads them (`--lock-timeout`, `--timeout`, `--deadline`,
 * `--interval`, serve's `--latency`): one rule, so `30S` means the same to all of them.
 */

const UNITS: Record<string, number> = { '': 1000, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `0`, `45` (seconds), `30s`, `5m`, `1h`, `1500ms` -> milliseconds; undefined when malformed. */
export function parseDuration(text: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/i.exec(text);
  if (!match) return undefined;
  return Math.round(Number(match[1]) * UNITS[(match[2] ?? '').toLowerCase()]!);
}
