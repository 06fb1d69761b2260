/**
 * WAL checkpoints off the event loop. A checkpoint copies the WAL's pages into the database
 * file so that the WAL can start over; it fsyncs the WAL, writes the pages and fsyncs the
 * database file. SQLite's automatic checkpoint runs inside the COMMIT that crosses 1,000 WAL
 * pages, i.e. on the event loop, two fsyncs long, every few dozen group commits under load
 * (the latency spikes of the POST bench). Here the server's connection has
 * `wal_autocheckpoint = 0` and a worker thread, with a connection of its own to the same
 * file, runs `PRAGMA wal_checkpoint(PASSIVE)` after every `every` group commits, while the
 * event loop goes on. A PASSIVE checkpoint never waits for, nor blocks, the writer or readers.
 *
 * Why durability is unchanged: the checkpointing connection (synchronous = FULL) fsyncs the
 * WAL before it copies frames and fsyncs the database file before it records how far it got,
 * and SQLite starts the WAL over (overwriting frames) only once every frame is in the synced
 * database file. So a frame of a group commit whose own fsync has not returned yet is either
 * still in the WAL (that fsync covers it) or already in the synced database file, exactly as
 * with the automatic checkpoint.
 *
 * The worker starts at the first checkpoint, so short-lived apps (tests) never start one. If
 * it fails, the connection goes back to the automatic checkpoint. `close()` waits for the
 * checkpoint in progress and ends the worker.
 */
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Db } from './database.js';

/** Group commits between two checkpoints (each writes ten to twenty pages). */
export const CHECKPOINT_EVERY = 64;

/** SQLite's own default, restored if the worker fails. */
const AUTOCHECKPOINT_PAGES = 1000;

/** The worker: one connection, one PASSIVE checkpoint per message, its result sent back. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path);
db.pragma('synchronous = FULL');
parentPort.on('message', (message) => {
  if (message === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  const [result] = db.pragma('wal_checkpoint(PASSIVE)');
  parentPort.postMessage(result);
});
`;

export interface CheckpointResult {
  /** 1 if the checkpoint could not run at all (another was running). */
  busy: number;
  /** Frames in the WAL, and how many of them are now in the database file. */
  log: number;
  checkpointed: number;
}

export class Checkpointer {
  private worker: Worker | undefined;
  private running = false;
  private closed = false;
  private failed = false;
  private commitsSince = 0;
  private idle: (() => void)[] = [];
  /** Why the worker failed, if it did. */
  lastError: unknown;
  /** Checkpoints completed, and the last one's result (for tests and the bench). */
  readonly stats: { checkpoints: number; last: CheckpointResult | undefined } = { checkpoints: 0, last: undefined };

  constructor(
    private readonly db: Db,
    private readonly every: number = CHECKPOINT_EVERY,
  ) {
    db.pragma('wal_autocheckpoint = 0');
  }

  /** Called after each group commit: asks for a checkpoint every `every` of them. */
  committed(): void {
    if (this.closed || this.failed) return;
    this.commitsSince++;
    if (this.running || this.commitsSince < this.every) return;
    this.commitsSince = 0;
    this.running = true;
    try {
      (this.worker ??= this.startWorker()).postMessage('checkpoint');
    } catch (error) {
      this.fallBack(error);
    }
  }

  /** Waits for the checkpoint in progress, then ends the worker. */
  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    // Unreferenced, the worker would let the process exit in the middle of this close.
    worker?.ref();
    if (this.running) await new Promise<void>((done) => this.idle.push(done));
    this.worker = undefined;
    if (!worker) return;
    const exited = new Promise<void>((done) => worker.once('exit', () => done()));
    worker.postMessage('close');
    await exited;
  }

  private startWorker(): Worker {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver, path: resolve(this.db.name) } });
    worker.unref();
    worker.on('message', (result: CheckpointResult) => {
      this.stats.checkpoints++;
      this.stats.last = result;
      this.done();
    });
    worker.on('error', (error) => this.fallBack(error));
    return worker;
  }

  private done(): void {
    this.running = false;
    for (const resolveIdle of this.idle.splice(0)) resolveIdle();
  }

  /** The worker failed: SQLite's automatic checkpoint takes over again (on the event loop). */
  private fallBack(error: unknown): void {
    this.failed = true;
    this.worker = undefined;
    if (this.db.open && !this.db.inTransaction) this.db.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
    this.lastError = error;
    this.done();
  }
}
