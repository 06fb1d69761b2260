/** The flags of the per-stack lock (engine lock/record.ts): how long apply waits for it. */
import { Flags } from '@oclif/core';
import { parseDuration } from './duration.js';

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
