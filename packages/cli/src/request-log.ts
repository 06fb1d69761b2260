/**
 * `--verbose` (or `GATEHOUSE_LOG=debug`): what the CLI tells about its work on stderr, one line
 * per event, so that stdout stays the command's output. For each API request attempt one line
 * (`waited=` when it waited for its turn under the rate limit):
 *   request GET /ip_policies?limit=100 status=200 duration=12ms attempt=1 waited=480ms operation_id=op_...
 * Never a header value (the key is one) or a body. Other notes (a file skipped while searching
 * a directory) use `note`.
 */
import type { RequestEvent } from '@gatehouse/client';
import { sanitize } from '@gatehouse/engine/core';
import { Flags } from '@oclif/core';
import { printAbove } from './progress/live-line.js';

export const verboseFlag = {
  verbose: Flags.boolean({
    aliases: ['debug'],
    description:
      'print on stderr one line per API request (method, path, status, duration, attempt, time waited for the rate limit, operation_id) and what was skipped; GATEHOUSE_LOG=debug does the same',
    default: false,
  }),
};

/** `--verbose`, or `GATEHOUSE_LOG` set to debug or trace. */
export function isVerbose(flags: { verbose?: boolean | undefined }, env: NodeJS.ProcessEnv = process.env): boolean {
  const level = env.GATEHOUSE_LOG?.trim().toLowerCase();
  return flags.verbose === true || level === 'debug' || level === 'trace';
}

function formatRequestEvent(event: RequestEvent): string {
  const status = event.status ?? event.error?.errorCode ?? 'no-answer';
  const parts = [
    `request ${event.method} ${sanitize(event.path)}`,
    `status=${status}`,
    `duration=${Math.round(event.durationMs)}ms`,
    `attempt=${event.attempt}`,
    // Time it waited for its turn under the rate limit (or the cap on requests in flight).
    ...(event.waitedMs >= 1 ? [`waited=${Math.round(event.waitedMs)}ms`] : []),
    ...(event.operationId ? [`operation_id=${sanitize(event.operationId)}`] : []),
    ...(event.willRetry ? ['retrying'] : []),
  ];
  return parts.join(' ');
}

export type LogWriter = (line: string) => void;

/** A line on stderr, above the progress line when one is drawn there. */
const stderrWriter: LogWriter = (line) => printAbove(process.stderr, `${line}\n`);

/** The `onRequest` hook of a verbose run, or undefined when not verbose. */
export function requestLogger(verbose: boolean, write: LogWriter = stderrWriter): ((event: RequestEvent) => void) | undefined {
  return verbose ? (event) => write(formatRequestEvent(event)) : undefined;
}

/** A note of a verbose run: `note: <text>`; nothing otherwise. */
export function noteWriter(verbose: boolean, write: LogWriter = stderrWriter): (text: string) => void {
  return verbose ? (text) => write(`note: ${sanitize(text)}`) : () => undefined;
}
