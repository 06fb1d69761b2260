/**
 * The WAL's fsyncs, from a thread of their own.
 *
 * The group commit (db/group-commit.ts) answers a write once an fsync of the WAL that started
 * after its COMMIT has completed. Run as `fs.fdatasync` in libuv's thread pool, each fsync
 * waited twice for the event loop: a pool thread was woken to start it, and the next one
 * could only start once its callback had run on the event loop, which under load is busy
 * parsing, committing and answering. On the bench's 2 cores that doubled an fsync of about
 * 0.1 ms: the event loop saw 0.2 ms per fsync, and a write waited for the rest of the fsync
 * in flight and then its own.
 *
 * Here one worker thread loops: it reads how far the event loop has committed, fsyncs, posts
 * that number back, and starts the next fsync at once if more has been committed meanwhile.
 * The two threads share a few counters (a `SharedArrayBuffer`): the event loop publishes each
 * commit with two atomic stores and wakes the worker only if it sleeps, so a commit costs no
 * message and no system call under load; the worker sleeps in `Atomics.wait` when it has
 * caught up. It reports each fsync in shared memory too, which the event loop reads whenever
 * a write arrives or a group is about to commit (`poll`): under load the message waits its
 * turn for about 70 us, and an answer sent that much sooner brings its client back sooner.
 * Measured on 2026-11-27 against the pool (packages/server/README.md, medians of 8
 * interleaved runs): 16,241 to 18,007 POSTs a second, 65.4 to 62.0 us of server CPU per POST.
 *
 * Why it is as durable: the worker reads the committed count, which the event loop publishes
 * only after COMMIT has written the group's frames into the WAL file, before it calls
 * `fdatasync`; so an fsync reported as covering `seq` started after every group up to `seq`
 * was written, and `fdatasync` of any descriptor of the file flushes them.
 *
 * A slow disk (an fsync of 2 ms or more that answered two writes or more) makes the worker
 * pause before the next fsync, for at most `gatherMs`, until as many writes as it answered
 * have committed since: ten clients on a busy disk otherwise split into two cohorts that take
 * turns, each fsync answering about half of them.
 *
 * If an fsync fails the worker reports the error and syncs no more: the written data may be
 * lost, so nothing later may be acknowledged (group-commit.ts). If the thread itself is lost
 * (it cannot start, say under a container's limit on threads, or cannot open the WAL, or
 * dies), no fsync failed: the group commit goes on syncing on the event loop. The worker
 * starts with the first sync asked for (about 20 ms of a second thread's time, once per
 * process).
 */
import { Worker } from 'node:worker_threads';

/** An fsync at least this slow (ms) that answered two writes or more is followed by a pause. */
export const SLOW_SYNC_MS = 2;
/** The pause's length at most (ms). */
export const GATHER_MS = 1;

/** Slots of the shared counters (BigInt64Array). */
const COMMITTED = 0;
const WRITES = 1;
const SLEEPING = 2;
const CLOSING = 3;
const SYNCED = 4;
const SLOTS = 5;

/**
 * The worker. Its `fdatasyncSync` is `node:fs`'s except in tests, which make it fail, stall or
 * wait on their word (src/testing/fsync-double.cjs). Source that runs as CommonJS and as an ES
 * module alike (`process.getBuiltinModule`, no `require`): eval'd worker source is an ES module
 * when the process runs under `--input-type=module`.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = process.getBuiltinModule('node:worker_threads');
const { openSync, closeSync, fdatasyncSync: nodeFdatasyncSync } = process.getBuiltinModule('node:fs');
const double = workerData.fdatasyncModule;
const fdatasyncSync = double === undefined
  ? nodeFdatasyncSync
  : process.getBuiltinModule('node:module').createRequire(double)(double).fdatasyncSync;
const state = new BigInt64Array(workerData.state);
const [COMMITTED, WRITES, SLEEPING, CLOSING, SYNCED] = [${COMMITTED}, ${WRITES}, ${SLEEPING}, ${CLOSING}, ${SYNCED}];
const { slowSyncMs, gatherMs } = workerData;

/** Sleeps until the committed count is no longer seen (or ms pass, or close is asked). */
function awaitCommit(seen, ms) {
  Atomics.store(state, SLEEPING, 1n);
  if (Atomics.load(state, COMMITTED) === seen && Atomics.load(state, CLOSING) === 0n) {
    Atomics.wait(state, COMMITTED, seen, ms);
  }
  Atomics.store(state, SLEEPING, 0n);
}

let fd;
try {
  fd = openSync(workerData.walPath, 'r');
  let synced = 0n;
  let syncedWrites = 0n;
  for (;;) {
    const target = Atomics.load(state, COMMITTED);
    if (target === synced) {
      if (Atomics.load(state, CLOSING) !== 0n) break;
      awaitCommit(synced, Infinity);
      continue;
    }
    const writes = Atomics.load(state, WRITES);
    const started = performance.now();
    try {
      fdatasyncSync(fd);
    } catch (error) {
      parentPort.postMessage({ fsyncFailed: { message: String(error && error.message), code: error && error.code } });
      break;
    }
    const took = performance.now() - started;
    // Read before the answer goes out: what commits from here on may be the answered writers'.
    const endWrites = Atomics.load(state, WRITES);
    Atomics.store(state, SYNCED, target);
    parentPort.postMessage(target);
    const answered = writes - syncedWrites;
    synced = target;
    syncedWrites = writes;
    if (took < slowSyncMs || answered < 2n) continue;
    // A slow disk: wait for the writers just answered to be back (one fsync for all of them).
    const deadline = performance.now() + gatherMs;
    for (;;) {
      const seen = Atomics.load(state, COMMITTED);
      const left = deadline - performance.now();
      if (Atomics.load(state, WRITES) - endWrites >= answered || left <= 0 || Atomics.load(state, CLOSING) !== 0n) break;
      awaitCommit(seen, left);
    }
  }
} finally {
  if (fd !== undefined) closeSync(fd);
}
`;

export interface WalSyncerOptions {
  /** The pause after a slow fsync at most (ms; `GATHER_MS`). */
  gatherMs?: number;
  /**
   * For tests: a CommonJS module whose `fdatasyncSync` the worker calls instead of `node:fs`'s,
   * and what it finds as `workerData.fdatasyncModuleData` (src/testing/fsync-double.cjs).
   */
  fdatasyncModule?: string;
  fdatasyncModuleData?: unknown;
}

export class WalSyncer {
  private readonly state = new BigInt64Array(new SharedArrayBuffer(SLOTS * BigInt64Array.BYTES_PER_ELEMENT));
  private worker: Worker | undefined;
  private exited: Promise<void> | undefined;
  private committedSeq = 0;
  private writes = 0;
  private syncedSeq = 0;
  /** The thread is done with (an fsync failed, or the thread was lost): no more syncs. */
  private ended = false;
  private closing = false;
  /** The worker keeps the process alive: something waits for its fsync. */
  private referenced = false;

  /**
   * `onSynced(seq)`: an fsync that started after group `seq` was committed has completed.
   * `onFailed(error)`: an fsync failed. `onLost(error)`: the thread could not start or ended
   * without an fsync failing; what was committed since the last `onSynced` is not synced yet.
   * Neither is followed by anything.
   */
  constructor(
    private readonly walPath: string,
    private readonly onSynced: (seq: number) => void,
    private readonly onFailed: (error: unknown) => void,
    private readonly onLost: (error: unknown) => void,
    private readonly options: WalSyncerOptions = {},
  ) {}

  /**
   * Group `seq` (and every one before it) is committed, holding `writes` writes: have it
   * synced. Keeps the worker, and so the process, alive until it is.
   */
  committed(seq: number, writes: number): void {
    if (this.ended) return;
    this.committedSeq = seq;
    this.writes += writes;
    try {
      this.worker ??= this.start();
    } catch (error) {
      this.end(error, this.onLost);
      return;
    }
    this.reference(true);
    Atomics.store(this.state, WRITES, BigInt(this.writes));
    Atomics.store(this.state, COMMITTED, BigInt(seq));
    // The worker sets SLEEPING before it checks COMMITTED and waits; this reads SLEEPING after
    // storing COMMITTED: either it sees the new count or this sees it sleeping (and wakes it).
    if (Atomics.load(this.state, SLEEPING) !== 0n) Atomics.notify(this.state, COMMITTED);
  }

  /**
   * Reports an fsync that has completed and whose message has not arrived yet, if there is
   * one: a look at shared memory, for the moments the event loop is running anyway.
   */
  poll(): void {
    if (this.ended || this.syncedSeq >= this.committedSeq) return;
    this.report(Number(Atomics.load(this.state, SYNCED)));
  }

  /** Groups up to `seq` are durable: tells the group commit, once per fsync. */
  private report(seq: number): void {
    if (seq <= this.syncedSeq) return;
    this.syncedSeq = seq;
    // Idle: nothing waits for the worker, which must not keep the process alive.
    if (this.syncedSeq >= this.committedSeq) this.reference(false);
    this.onSynced(seq);
  }

  /** Finishes the fsync that what was committed still needs, then ends the worker. */
  async close(): Promise<void> {
    if (!this.worker) return;
    // Unreferenced, the worker would let the process exit in the middle of this close.
    this.reference(true);
    this.closing = true;
    Atomics.store(this.state, CLOSING, 1n);
    Atomics.notify(this.state, COMMITTED);
    await this.exited;
    this.worker = undefined;
  }

  private start(): Worker {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        state: this.state.buffer,
        walPath: this.walPath,
        fdatasyncModule: this.options.fdatasyncModule,
        fdatasyncModuleData: this.options.fdatasyncModuleData,
        slowSyncMs: SLOW_SYNC_MS,
        gatherMs: this.options.gatherMs ?? GATHER_MS,
      },
    });
    worker.on('message', (message: bigint | { fsyncFailed: { message: string; code?: string } }) => {
      if (this.ended) return;
      if (typeof message === 'bigint') {
        this.report(Number(message));
        return;
      }
      const { message: text, code } = message.fsyncFailed;
      this.end(Object.assign(new Error(text), { code }), this.onFailed);
    });
    worker.on('error', (error) => this.end(error, this.onLost));
    this.exited = new Promise<void>((resolve) =>
      worker.once('exit', (code) => {
        this.reference(false);
        if (!this.closing) this.end(new Error(`the WAL fsync thread ended (exit code ${code})`), this.onLost);
        resolve();
      }),
    );
    return worker;
  }

  private reference(on: boolean): void {
    if (this.referenced === on || !this.worker) return;
    this.referenced = on;
    if (on) this.worker.ref();
    else this.worker.unref();
  }

  /** The thread is done with: reports why, once. */
  private end(error: unknown, report: (error: unknown) => void): void {
    if (this.ended) return;
    this.ended = true;
    this.reference(false);
    report(error);
  }
}
