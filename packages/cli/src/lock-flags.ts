/** The flags of the per-stack lock (engine lock/record.ts): how long apply waits for it. */
import { Flags } from '@oclif/core';

const UNITS: Record<string, number> = { '': 1000, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `0`, `45` (seconds), `30s`, `5m`, `1h`, `1500ms` -> milliseconds; undefined when malformed. */
export function parseDuration(text: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/i.exec(text);
  if (!match) return undefined;
  return Math.round(Number(match[1]) * UNITS[(match[2] ?? '').toLowerCase()]!);
}

export const lockTimeoutFlag = Flags.custom<number>({
  description: "how long to wait while another apply holds the stack's lock (0: fail at once; 30s, 5m, 1h)",
  default: 0,
  defaultHelp: async () => '0',
  env: 'GATEHOUSE_LOCK_TIMEOUT',
  parse: async (input) => {
    const ms = parseDuration(input);
    if (ms === undefined) throw new Error(`"${input}" is not a duration; give seconds or a number with ms, s, m or h (30s, 5m)`);
    return ms;
  },
})();
