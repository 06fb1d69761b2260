/**
 * Connection flags shared by plan, apply, drift and export, each with its environment
 * variable. Which API is used is decided by `chooseTarget` (target.ts): an API URL, or the
 * embedded reference server with `--embedded` / `GATEHOUSE_API_URL=embedded`, or by default
 * outside CI.
 */
import { Flags } from '@oclif/core';
import { verboseFlag } from '../request-log.js';
import { transportFlags, type TransportFlagValues } from './transport.js';

const DEFAULT_STACK = 'default';

export const connectionFlags = {
  'api-url': Flags.string({
    description: 'base URL of the management API, or "embedded" for the embedded reference server; without it, the embedded server outside CI only',
    env: 'GATEHOUSE_API_URL',
    helpGroup: 'CONNECTION',
  }),
  'api-key': Flags.string({
    description: 'API key (prefer the environment variable: flags show up in process lists)',
    env: 'GATEHOUSE_API_KEY',
    helpGroup: 'CONNECTION',
  }),
  embedded: Flags.boolean({
    description: 'use the embedded reference server over .gatehouse/server.db on purpose (required when CI is set and no API URL is given)',
    default: false,
    helpGroup: 'CONNECTION',
  }),
  stack: Flags.string({
    description: 'ownership scope: objects this stack manages carry its marker',
    env: 'GATEHOUSE_STACK',
    default: DEFAULT_STACK,
    helpGroup: 'CONNECTION',
  }),
  'rate-limit': Flags.string({
    description:
      "requests per rolling window this run may send, retries included, e.g. 60/60s to leave half of the service's budget to another process on the same account, or off for an API without a limit (default: 120/60s, the service's budget, against an API URL; none for the embedded server)",
    env: 'GATEHOUSE_RATE_LIMIT',
    helpGroup: 'CONNECTION',
  }),
  ...transportFlags,
  ...verboseFlag,
};

export interface ConnectionFlagValues extends TransportFlagValues {
  verbose?: boolean | undefined;
  'api-url'?: string | undefined;
  'api-key'?: string | undefined;
  embedded?: boolean | undefined;
  stack: string;
  'rate-limit'?: string | undefined;
}
