/**
 * The logger of `gatehouse serve`: Fastify's own pino logger at `--log-level`, as JSON lines
 * (one object per line: what log collectors read) or pretty, one readable line per record with
 * its fields, through pino-pretty in this process (no worker, nothing downloaded). Pretty is
 * the default on a terminal, JSON otherwise. The server writes one line per request
 * (packages/server/src/http/request-log.ts); JSON lines are written a turn's lines at a time
 * (turn-batched-stream.ts).
 */
import type { ServeOptions } from '@gatehouse/server';
import { turnBatched } from './turn-batched-stream.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** `--log-format` when given, else pretty on a terminal and JSON otherwise. */
export function chooseLogFormat(given: string | undefined, isTTY = Boolean(process.stdout.isTTY)): LogFormat {
  return given === 'json' || given === 'pretty' ? given : isTTY ? 'pretty' : 'json';
}

/** Fastify's `logger` option; `destination` (stdout by default) is for tests. */
export async function serverLogger(
  level: string,
  format: LogFormat,
  colour: boolean,
  destination?: NodeJS.WritableStream,
): Promise<NonNullable<ServeOptions['logger']>> {
  if (format === 'json') {
    // A line per request: written a turn's lines at a time (turn-batched-stream.ts), and what
    // is pending when the process exits is written on the way out.
    const stream = turnBatched(destination ?? process.stdout);
    if (!destination) process.once('exit', stream.flush);
    return { level, stream };
  }
  const { default: pretty } = await import('pino-pretty');
  const stream = pretty({
    colorize: colour,
    sync: true,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname',
    ...(destination ? { destination } : {}),
  });
  return { level, stream };
}
