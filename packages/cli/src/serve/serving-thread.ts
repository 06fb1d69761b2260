/**
 * The worker thread `gatehouse serve` runs the server in (thread.ts starts it and says why).
 *
 * Takes its settings as `workerData`, loads the server, starts it and tells the command's
 * thread by one message either where it listens or why it did not start. Then it serves
 * until told to stop: it finishes in-flight requests, closes the database, writes the log's
 * pending lines and says it closed.
 *
 * The log goes straight to the process's stdout (fd 1) through pino's own file-descriptor
 * writer (sonic-boom, synchronous), not through the thread's `process.stdout`, which Node
 * forwards to the command's thread by message: a line per request would cost a message, and
 * the banner the command's thread prints could overtake the server's first lines.
 */
import { parentPort, workerData } from 'node:worker_threads';
import sonicBoom from 'sonic-boom';
import { CliError } from '../errors.js';
import { loadServer } from '../server/load.js';
import { serverLogger } from './logger.js';
import { ServingRefused, type ServingMessage, type ServingSettings, type StopMessage } from './thread.js';

const port = parentPort!;

function tell(message: ServingMessage): void {
  port.postMessage(message);
}

async function serve(settings: ServingSettings): Promise<void> {
  const { parseFaultInjection, parseRateLimit, startServer } = await loadServer('serve');
  const rateLimit = settings.rateLimit === undefined ? undefined : refusedAs('--rate-limit', () => parseRateLimit(settings.rateLimit!));
  const given = settings.faults;
  const faults = given === undefined ? undefined : refusedAs('--inject-faults', () => parseFaultInjection(given.rate, given.seed, given.modes));
  const { logger, flush } = await serverLogger(settings.logLevel, settings.logFormat, settings.colour, new sonicBoom.SonicBoom({ fd: 1, sync: true }));
  const server = await startServer({
    logger,
    host: settings.host,
    port: settings.port,
    db: settings.db,
    apiKeys: settings.apiKeys,
    ...(settings.baseUrl !== undefined ? { baseUrl: settings.baseUrl } : {}),
    ...(rateLimit ? { rateLimit } : {}),
    ...(settings.eventSink !== undefined ? { delivery: { sinkPath: settings.eventSink } } : {}),
    ...(faults ? { faults } : {}),
    reservationCheck: settings.reservationCheck,
  });
  flush();
  tell({
    type: 'listening',
    url: server.url,
    ...(server.generatedKey !== undefined ? { generatedKey: server.generatedKey } : {}),
    storedKeyCount: server.app.apiKeys.storedCount(),
    ...(faults ? { faults: { rate: faults.rate, ...(faults.seed !== undefined ? { seed: faults.seed } : {}) } } : {}),
  });
  // The command's thread sends one message, and only once it has this one: stop.
  port.once('message', (_stop: StopMessage) => {
    void server.close().then(() => {
      flush();
      tell({ type: 'closed' });
      port.close();
    });
  });
}

/** `parse()`'s result, or its error as a refusal of `flag`. */
function refusedAs<T>(flag: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new ServingRefused(`${flag}: ${(error as Error).message}`);
  }
}

function reportFailure(error: unknown): void {
  const err = error instanceof Error ? error : new Error(String(error));
  const code = (err as NodeJS.ErrnoException).code;
  tell({
    type: 'failed',
    refused: err instanceof ServingRefused || err instanceof CliError,
    error: { name: err.name, message: err.message, ...(typeof code === 'string' ? { code } : {}), ...(err.stack ? { stack: err.stack } : {}) },
  });
  port.close();
}

serve(workerData as ServingSettings).catch(reportFailure);
