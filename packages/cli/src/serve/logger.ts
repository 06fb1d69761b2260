/**
 * The logger of `gatehouse serve`: Fastify's own pino logger at `--log-level`, as JSON lines
 * (one object per line: what log collectors read) written by pino's own destination to
 * stdout, or pretty, one readable line per record with its fields, through pino-pretty (no
 * transport thread, nothing downloaded). Pretty is the default on a terminal, JSON otherwise.
 * The server writes one line per request (packages/server/src/http/request-log.ts).
 */
import type { ServeOptions } from '@gatehouse/server';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** `--log-format` when given, else pretty on a terminal and JSON otherwise. */
export function chooseLogFormat(given: string | undefined, isTTY = Boolean(process.stdout.isTTY)): LogFormat {
  return given === 'json' || given === 'pretty' ? given : isTTY ? 'pretty' : 'json';
}

/**
 * Fastify's `logger` option for the server's log at `level` in `format`, written to stdout,
 * or to `destination` (a test's stream).
 */
export async function serverLogger(
  level: string,
  format: LogFormat,
  colour: boolean,
  destination?: NodeJS.WritableStream,
): Promise<{ logger: NonNullable<ServeOptions['logger']> }> {
  if (format === 'json') return { logger: destination ? { level, stream: destination } : { level } };
  const { default: pretty } = await import('pino-pretty');
  const stream = pretty({
    colorize: colour,
    sync: true,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname',
    destination: destination ?? 1,
  });
  return { logger: { level, stream } };
}
