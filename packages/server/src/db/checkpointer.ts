/**
 * WAL checkpoints off the event loop. A checkpoint copies the WAL's pages into the database
 * file so that the WAL can start over; it fsyncs the WAL, writes the pages and fsyncs the
 * database file. SQLite's automatic checkpoint runs inside the COMMIT that crosses 1,000 WAL
 * pages, i.e. on the event loop, two fsyncs long, every few dozen group commits under load
 * (the latency spikes of the POST bench). Here the server's connection has
 * `wal_autocheckpoint = 0` and a worker thread, with a connection of its own to the same
 * file, runs `PRAGMA wal_checkpoint(PASSIVE)` every `every` group commits while the event
 * loop goes on parsing, reading and answering.
 *
 * Two passes. The WAL starts over only when a write begins while every frame is in the
 * database file; under steady load a group commits during any checkpoint, so a checkpoint
 * that runs alongside the writes never lets it start over, and the WAL would grow without
 * bound. So the first pass copies the bulk alongside the writes; then the group commit holds
 * its next flush (`holding`; the requests arriving meanwhile are parsed and validated and
 * queue up) while a second pass copies the few frames committed during the first; then the
 * next group writes the WAL from its start. Reads are never held.
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

/**
 * Group commits between two checkpoints. A group of a few creates writes about seven WAL
 * frames, so 1,024 groups leave some 7,000 frames (29 MB) in the WAL, seven times SQLite's own
 * automatic checkpoint (1,000 pages) and what a busy server's disk holds for a moment. Each
 * checkpoint has a fixed cost: two passes, each fsyncing the WAL and the database file, the
 * second holding the next flush; and the pages every group rewrites (the right edge of each
 * table and index, page 1) are copied once per checkpoint however often the groups rewrote
 * them. Every 64 groups, the POST bench spent about 5 us more server CPU per write and
 * answered some 15% fewer writes per second than every 256 (interleaved runs, 2026-11-27);
 * once the WAL's own fsyncs had a thread of their own (wal-syncer.ts), the checkpoints' fsyncs
 * of the same disk were what slowed them: every 1,024 groups, the server bench's POST row read
 * 0.29x, 0.32x, 0.32x and 0.31x against 0.28x, 0.28x, 0.29x and 0.30x every 256 (alternated
 * runs, 18:54-19:04 UTC).
 */
export const CHECKPOINT_EVERY = 1024;

/** SQLite's own default, restored if the worker fails. */
const AUTOCHECKPOINT_PAGES = 1000;

/**
 * The worker: one connection, one PASSIVE checkpoint per message, its result sent back. Source
 * that runs as CommonJS and as an ES module alike (`process.getBuiltinModule`, no `require`):
 * eval'd worker source is an ES module when the process runs under `--input-type=module`.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = process.getBuiltinModule('node:worker_threads');
const Database = process.getBuiltinModule('node:module').createRequire(workerData.driver)(workerData.driver);
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
  /** The second pass runs: the group commit must not commit until it ends. */
  private held = false;
  /** Called when a hold ends (the group commit flushes what queued meanwhile). */
  onRelease: () => void = () => {};
  /** Called once if the worker fails and SQLite's automatic checkpoint takes over. */
  onFallBack: (error: unknown) => void = () => {};
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

  /** True while the group commit must hold its commits (the second pass runs). */
  get holding(): boolean {
    return this.held;
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
      if (!this.held && !this.closed && result.busy === 0) {
        // First pass done: hold the writes and copy what they added meanwhile.
        this.held = true;
        worker.postMessage('checkpoint');
        return;
      }
      this.stats.checkpoints++;
      this.stats.last = result;
      this.done();
    });
    worker.on('error', (error) => this.fallBack(error));
    return worker;
  }

  private done(): void {
    this.running = false;
    const wasHeld = this.held;
    this.held = false;
    for (const resolveIdle of this.idle.splice(0)) resolveIdle();
    if (wasHeld) this.onRelease();
  }

  /** The worker failed: SQLite's automatic checkpoint takes over again (on the event loop). */
  private fallBack(error: unknown): void {
    if (!this.failed) this.onFallBack(error);
    this.failed = true;
    this.worker = undefined;
    if (this.db.open && !this.db.inTransaction) this.db.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
    this.lastError = error;
    this.done();
  }
}
