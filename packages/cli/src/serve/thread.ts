/**
 * `gatehouse serve` runs the server in a worker thread of the same process: the command's
 * thread parses the flags and prints the banner, the serving thread (serving-thread.ts) loads
 * the server and answers requests. One process and one pid, as before; signals arrive at the
 * command's thread, which asks the serving thread to stop.
 *
 * Why: code a thread has loaded and run slows the requests it serves afterwards. `serve`'s
 * server answered GETs some 7% slower than the same server in a plain `node` process (50
 * against 46 us of CPU a GET), and loading oclif alone into the plain process cost it most of
 * that (server README, "The same machine again"). A worker thread is a V8 isolate of its own,
 * holding only the server's code: the CLI's start-up (oclif, its flag parsing, the code cache
 * loader) stays in the command's thread, which then only waits.
 *
 * The log is written by the serving thread to the process's stdout (fd 1) synchronously, as
 * the banner is by the command's thread, so the lines of both arrive in the order written.
 */
import { Worker } from 'node:worker_threads';
import type { FaultInjection } from '@gatehouse/server';
import type { LogFormat } from './logger.js';

/** The fault injection in force, as the server parsed it: what the banner shows. */
export type FaultsInForce = Pick<FaultInjection, 'rate' | 'seed'>;

/** What the serving thread needs: plain values only (they are copied into the thread). */
export interface ServingSettings {
  host: string;
  port: number;
  db: string;
  apiKeys: string[];
  baseUrl?: string;
  /** `--rate-limit` as given: the server's own parser reads it in the serving thread. */
  rateLimit?: string;
  eventSink?: string;
  /** `--inject-faults`, `--fault-seed` and `--fault-modes` as given (tests only). */
  faults?: { rate: string; seed?: string; modes?: string };
  reservationCheck: boolean;
  logLevel: string;
  logFormat: LogFormat;
  colour: boolean;
}

/** The serving thread's messages to the command's thread. */
export type ServingMessage =
  | { type: 'listening'; url: string; generatedKey?: string; storedKeyCount: number; faults?: FaultsInForce }
  | { type: 'failed'; refused: boolean; error: { name: string; message: string; code?: string; stack?: string } }
  | { type: 'closed' };

/** The command's thread's one message to the serving thread. */
export interface StopMessage {
  type: 'stop';
}

/** A server that listens, in its thread. */
export interface ServingThread {
  url: string;
  /** A key generated at this start because none was given or stored; shown once. */
  generatedKey?: string;
  /** Keys stored in the database (what it accepts when none was given). */
  storedKeyCount: number;
  /** The fault injection in force (tests only), as parsed. */
  faults?: FaultsInForce;
  /** Finishes in-flight requests, closes the database and writes the log's last lines. */
  stop(): Promise<void>;
}

/**
 * A setting the server refused (`--rate-limit: ...`), or the server not installed: the
 * message says what to do, and is reported as it is, like any refused flag. Thrown in the
 * serving thread, and made again from its message in the command's thread.
 */
export class ServingRefused extends Error {
  override name = 'ServingRefused';
}

/** The serving thread's module: compiled next to this one in dist/ (never bundled). */
const SERVING_THREAD = new URL('../../dist/serve/serving-thread.js', import.meta.url);

/**
 * Starts the server in a thread of its own and resolves once it listens. Rejects with
 * `ServingRefused`, or with the server's own error (its message, code and stack: a port in
 * use, a database that cannot be opened), when it cannot start; the thread is then ended.
 *
 * Once listening, a failure of the thread (an exception nothing caught, the thread ending
 * before it was asked to) is `gatehouse serve` failing: reported on stderr, and the process
 * exits 1, as an uncaught exception ends it.
 */
export async function startServingThread(settings: ServingSettings, entry: URL = SERVING_THREAD): Promise<ServingThread> {
  // The thread's `process.stdout` and `stderr` are forwarded to the process's own by Node: the
  // log does not use them (serving-thread.ts writes to fd 1), warnings may.
  const worker = new Worker(entry, { workerData: settings });
  const first = await firstMessage(worker);
  if (first.type !== 'listening') {
    void worker.terminate();
    throw startFailure(first);
  }

  let stopping = false;
  const crashed = (error: Error) => failed(`the server failed: ${error.stack ?? error.message}`);
  worker.on('error', crashed);
  worker.on('exit', (code) => {
    if (!stopping) failed(`the server's thread ended unexpectedly (exit code ${code})`);
  });
  return {
    url: first.url,
    ...(first.generatedKey !== undefined ? { generatedKey: first.generatedKey } : {}),
    storedKeyCount: first.storedKeyCount,
    ...(first.faults ? { faults: first.faults } : {}),
    stop: () => {
      stopping = true;
      return new Promise<void>((resolve, reject) => {
        worker.off('error', crashed);
        worker.on('message', (message: ServingMessage) => message.type === 'closed' && resolve());
        worker.once('error', reject);
        worker.once('exit', () => resolve());
        worker.postMessage({ type: 'stop' } satisfies StopMessage);
      });
    },
  };
}

/** The thread's first message: where it listens, or why it did not start. */
function firstMessage(worker: Worker): Promise<ServingMessage> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: ServingMessage) => settle(() => resolve(message));
    const onError = (error: Error) => settle(() => reject(error));
    const onExit = (code: number) =>
      settle(() => reject(new Error(`the server's thread ended (exit code ${code}) before it listened`)));
    const settle = (then: () => void) => {
      worker.off('message', onMessage).off('error', onError).off('exit', onExit);
      then();
    };
    worker.on('message', onMessage).on('error', onError).on('exit', onExit);
  });
}

/** The error a start that failed rejects with, rebuilt from the thread's message. */
function startFailure(message: ServingMessage): Error {
  if (message.type !== 'failed') return new Error(`the server's thread answered "${message.type}" before it listened`);
  const { name, message: text, code, stack } = message.error;
  if (message.refused) return new ServingRefused(text);
  const error = Object.assign(new Error(text), code !== undefined ? { code } : {});
  error.name = name;
  if (stack !== undefined) error.stack = stack;
  return error;
}

function failed(reason: string): never {
  process.stderr.write(`Error: gatehouse serve: ${reason}\n`);
  process.exit(1);
}
