/**
 * The logger of `gatehouse serve`: Fastify's own pino logger at `--log-level`, as JSON lines
 * (one object per line: what log collectors read) or pretty, one readable line per record with
 * its fields, through pino-pretty in the server's thread (no transport thread of pino's,
 * nothing downloaded). Pretty is the default on a terminal, JSON otherwise. The server writes
 * one line per request (packages/server/src/http/request-log.ts); JSON lines are written a
 * turn's lines at a time (turn-batched-stream.ts). `serve` writes it from the thread the
 * server runs in (serve/thread.ts).
 */
import type { ServeOptions } from '@gatehouse/server';
import { turnBatched, type LogDestination } from './turn-batched-stream.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** `--log-format` when given, else pretty on a terminal and JSON otherwise. */
export function chooseLogFormat(given: string | undefined, isTTY = Boolean(process.stdout.isTTY)): LogFormat {
  return given === 'json' || given === 'pretty' ? given : isTTY ? 'pretty' : 'json';
}

/** Fastify's `logger` option, and how to write at once the lines still pending. */
export interface ServerLog {
  logger: NonNullable<ServeOptions['logger']>;
  /** Call before the process or thread ends: it runs no more turns to write them. */
  flush(): void;
}

/**
 * The server's log at `level` in `format`, written to `destination`: the serving thread's
 * synchronous writer of fd 1 (serve/serving-thread.ts), or a test's stream.
 */
export async function serverLogger(
  level: string,
  format: LogFormat,
  colour: boolean,
  destination: LogDestination,
): Promise<ServerLog> {
  if (format === 'json') {
    // A line per request: written a turn's lines at a time (turn-batched-stream.ts).
    const stream = turnBatched(destination);
    return { logger: { level, stream }, flush: stream.flush };
  }
  const { default: pretty } = await import('pino-pretty');
  const stream = pretty({
    colorize: colour,
    sync: true,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname',
    destination,
  });
  return { logger: { level, stream }, flush: () => undefined };
}
