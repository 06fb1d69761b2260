/**
 * A worker thread that runs CommonJS source handed over as a string: the database's helper
 * threads (checkpointer.ts, wal-syncer.ts). A string travels with the module that starts it,
 * whether the server runs from its own build or from the CLI's bundle.
 *
 * The worker gets the process's Node options, as workers do by default, except
 * `--input-type`: under `node --input-type=module` (a script given with `-e`) the eval'd source
 * would be read as an ES module, where `require` does not exist, and the thread would fail.
 */
import { Worker } from 'node:worker_threads';

export function startScriptWorker(source: string, workerData: unknown): Worker {
  const execArgv = process.execArgv.filter((arg) => !arg.startsWith('--input-type'));
  return new Worker(source, { eval: true, workerData, execArgv });
}
