/**
 * Group commit: the write requests that reach the server together are committed together, in
 * one SQLite transaction and one fsync, and the fsync runs off the event loop.
 *
 * Grouping. `run(fn)` queues `fn` and returns a promise of its result. The queue is flushed
 * in a `setImmediate` callback, i.e. after the event loop has handled every request whose
 * bytes arrived in the current turn; requests arriving while a group commits (better-sqlite3
 * is synchronous) or while its fsync runs are parsed in later turns and form the next group.
 * Under load a group holds about as many writes as there are concurrent clients.
 *
 * Isolation. A flush is `BEGIN IMMEDIATE`, then each queued function inside its own
 * `SAVEPOINT`: a function that throws has its savepoint rolled back and its promise rejected
 * with its error, and the others go on. Everything a function does through the connection
 * (its object rows, the audit event it records and the outbox rows that event's trigger adds)
 * is in its savepoint, so they land together or not at all. Then one `COMMIT`. If the commit
 * itself fails, every function of the group fails with that error and nothing is kept.
 *
 * Durability. For a database file, the group's COMMIT runs with `synchronous = NORMAL` (the
 * WAL is written, not yet fsynced; the connection is `FULL` otherwise, so writes made outside
 * groups stay durable at their commit) and the WAL file is then synced by `fdatasync` in a
 * thread of its own (db/wal-syncer.ts), while the event loop goes on parsing, reading and
 * committing the next group. `fdatasync`, not `fsync`, because it is what SQLite itself calls
 * for a WAL sync on Linux under `synchronous = FULL` (os_unix.c's `full_fsync`): it flushes
 * the data and the metadata needed to read it back (the file's size when the WAL grows), not
 * the timestamps (libuv makes it `F_FULLFSYNC` on macOS, as SQLite's `fullfsync` would). One
 * fsync covers every group committed before it started. A function's promise
 * settles only once an fsync that started after its group's COMMIT has completed: every
 * request is answered after the commit that holds it is durable. Readers must not be shown
 * what is committed but not yet durable either: `durable(seq)` tells a reader whether to
 * wait (app.ts holds GET answers until the commits they may have read are durable).
 * If an fsync fails, the written data may be lost: every waiting and later write fails with
 * that error and nothing more is acknowledged (as databases do: the kernel may have dropped
 * the pages, so a retry could falsely succeed). An in-memory database has nothing to sync.
 *
 * Checkpoints. For a database file, the connection does not checkpoint the WAL inside a
 * COMMIT (two fsyncs on the event loop); a worker thread does, every few hundred groups, and
 * holds the flush of the queue during its short second pass so that the WAL can start over
 * (db/checkpointer.ts, which says why that is as durable).
 *
 * `afterCommit` runs once per committed group (the render cache is cleared once per commit
 * rather than once per row written).
 */
import { closeSync, fdatasyncSync, openSync } from 'node:fs';
import type { Statement } from 'better-sqlite3';
import { Checkpointer } from './checkpointer.js';
import type { Db } from './database.js';
import { WalSyncer, type WalSyncerOptions } from './wal-syncer.js';

/**
 * The WAL file as SQLite names it: the main database file's full path, as SQLite resolved it
 * (through a symbolic link to the file, say), and `-wal`. The path the database was opened
 * with would name no file when it is a link.
 */
function walPathOf(db: Db): string {
  const files = db.pragma('database_list') as { name: string; file: string }[];
  return `${files.find((file) => file.name === 'main')!.file}-wal`;
}

/**
 * Something an operator must hear about, because the server goes on in a changed way: the
 * fsync thread or the checkpoint thread was lost (as durable, slower), or an fsync failed (no
 * write is acknowledged any more). Said once each; app.ts logs them.
 */
export interface StorageNotice {
  level: 'warn' | 'error';
  message: string;
  error: unknown;
}

interface Job {
  fn: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

interface Waiter {
  seq: number;
  resolve: () => void;
  reject: (error: unknown) => void;
}

type Sql = 'begin' | 'commit' | 'rollback' | 'savepoint' | 'release' | 'rollbackTo' | 'deferSync' | 'fullSync';

export class GroupCommit {
  private queue: Job[] = [];
  private scheduled = false;
  private closed = false;
  private running = false;
  private readonly sql: Record<Sql, Statement>;
  /**
   * Syncs the WAL after each group's commit; none for an in-memory database, nor once the
   * thread is lost (each COMMIT then syncs the WAL itself: `syncLost`).
   */
  private syncer: WalSyncer | undefined;
  private readonly walPath: string | undefined;
  /** Why the fsync thread was lost, if it was (also told through `notice`). */
  syncLost: unknown;
  /** Groups committed so far; `durableSeq` of them are known durable. */
  private committedSeq = 0;
  private durableSeq = 0;
  private readonly beforeCommit: (() => void) | undefined;
  private readonly notice: (notice: StorageNotice) => void;
  private failure: unknown;
  private waiters: Waiter[] = [];
  /** Runs WAL checkpoints off the event loop; none for an in-memory database. */
  readonly checkpointer: Checkpointer | undefined;
  /** Groups committed, fsyncs done and functions run so far (for tests and the bench). */
  readonly stats = { commits: 0, syncs: 0, writes: 0 };

  constructor(
    private readonly db: Db,
    private readonly afterCommit: () => void = () => {},
    options: WalSyncerOptions & {
      checkpointEvery?: number;
      /**
       * Runs inside each group's transaction after its writes, just before COMMIT: a read there
       * sees the group's writes and takes no lock of its own (a throw fails the group).
       */
      beforeCommit?: () => void;
      /** Hears each `StorageNotice` (none is repeated). */
      notice?: (notice: StorageNotice) => void;
    } = {},
  ) {
    this.beforeCommit = options.beforeCommit;
    this.notice = options.notice ?? (() => {});
    this.walPath = db.memory ? undefined : walPathOf(db);
    this.syncer =
      this.walPath === undefined
        ? undefined
        : new WalSyncer(this.walPath, (seq) => this.synced(seq), (error) => this.fail(error), (error) => this.syncOnEventLoop(error), options);
    this.checkpointer = db.memory ? undefined : new Checkpointer(db, options.checkpointEvery);
    if (this.checkpointer) {
      this.checkpointer.onRelease = () => this.schedule();
      this.checkpointer.onFallBack = (error) =>
        this.notice({
          level: 'warn',
          message: "the WAL's checkpoint thread failed: SQLite checkpoints inside commits from now on (as durable, slower)",
          error,
        });
    }
    this.sql = {
      begin: db.prepare('BEGIN IMMEDIATE'),
      commit: db.prepare('COMMIT'),
      rollback: db.prepare('ROLLBACK'),
      savepoint: db.prepare('SAVEPOINT group_commit_write'),
      release: db.prepare('RELEASE group_commit_write'),
      rollbackTo: db.prepare('ROLLBACK TO group_commit_write'),
      deferSync: db.prepare('PRAGMA synchronous = NORMAL'),
      fullSync: db.prepare('PRAGMA synchronous = FULL'),
    };
    // SQLite applies a PRAGMA when its statement is prepared, and a run applies it again only
    // from the statement's second run on (observed, and tested: `perf` shows those runs
    // re-preparing the statement). Unrun, the first group's switch to NORMAL did nothing: that
    // group committed at FULL, SQLite's own fsync on the event loop. One run of each here,
    // leaving FULL, as prepared.
    this.sql.deferSync.run();
    this.sql.fullSync.run();
  }

  /**
   * Runs `fn` (synchronous, reading and writing through this connection) in the next group
   * and resolves with its result once that group's commit is durable; rejects with what `fn`
   * threw (nothing of it kept), or with the commit's or the fsync's error.
   */
  run<R>(fn: () => R): Promise<R> {
    if (this.closed) return Promise.reject(new Error('the database is closed'));
    if (this.failure !== undefined) return Promise.reject(this.failure);
    // The event loop runs anyway: answer what an fsync made durable before its message arrives.
    this.syncer?.poll();
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ fn, resolve: resolve as (value: unknown) => void, reject });
      this.schedule();
    });
  }

  /** Flushes the queue in the next turn (or when a checkpoint's hold ends). */
  private schedule(): void {
    if (this.scheduled || this.queue.length === 0 || this.checkpointer?.holding) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  /** True while a group runs: its functions' writes are committed by the flush. */
  get flushing(): boolean {
    return this.running;
  }

  /** Sequence number of the last committed group: what a read made now may have seen. */
  get committed(): number {
    return this.committedSeq;
  }

  /**
   * `undefined` when every group up to `seq` is durable (the common case, no promise made),
   * else a promise that resolves when they are (rejects if the fsync failed).
   */
  durable(seq: number = this.committedSeq): Promise<void> | undefined {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    if (seq <= this.durableSeq) return undefined;
    return new Promise<void>((resolve, reject) => this.waiters.push({ seq, resolve, reject }));
  }

  /**
   * Commits what is queued now, waits until it is durable and refuses any later `run`
   * (before the database closes).
   */
  async close(): Promise<void> {
    this.closed = true;
    // A checkpoint's hold ends first; nothing is committed during it.
    await this.checkpointer?.close();
    this.flush();
    await this.durable()?.catch(() => {});
    await this.syncer?.close();
  }

  /** Commits every queued function as one group (see the module comment). */
  flush(): void {
    this.scheduled = false;
    this.syncer?.poll();
    const jobs = this.queue;
    if (jobs.length === 0 || this.checkpointer?.holding) return;
    this.queue = [];
    if (this.failure !== undefined) {
      for (const job of jobs) job.reject(this.failure);
      return;
    }
    this.running = true;
    try {
      this.commitGroup(jobs);
    } finally {
      this.running = false;
    }
  }

  private commitGroup(jobs: Job[]): void {
    const outcomes: { ok: boolean; value: unknown }[] = [];
    const deferSync = this.syncer !== undefined;
    try {
      if (deferSync) this.sql.deferSync.run();
      this.sql.begin.run();
      for (const job of jobs) {
        this.sql.savepoint.run();
        try {
          const value = job.fn();
          this.sql.release.run();
          outcomes.push({ ok: true, value });
        } catch (error) {
          this.sql.rollbackTo.run();
          this.sql.release.run();
          outcomes.push({ ok: false, value: error });
        }
      }
      this.beforeCommit?.();
      this.sql.commit.run();
    } catch (error) {
      if (this.db.inTransaction) this.sql.rollback.run();
      if (deferSync) this.sql.fullSync.run();
      this.afterCommit();
      for (const job of jobs) job.reject(error);
      return;
    }
    if (deferSync) this.sql.fullSync.run();
    const seq = ++this.committedSeq;
    this.stats.commits++;
    this.stats.writes += jobs.length;
    this.afterCommit();
    this.checkpointer?.committed();
    const settle = () =>
      jobs.forEach((job, i) => {
        const outcome = outcomes[i]!;
        if (outcome.ok) job.resolve(outcome.value);
        else job.reject(outcome.value);
      });
    const failAll = (error: unknown) => jobs.forEach((job) => job.reject(error));
    if (!this.syncer) {
      this.durableSeq = seq;
      settle();
      return;
    }
    this.waiters.push({ seq, resolve: settle, reject: failAll });
    this.syncer.committed(seq, jobs.length);
  }

  /** An fsync that started after group `seq` was committed has completed. */
  private synced(seq: number): void {
    if (seq <= this.durableSeq) return;
    this.stats.syncs++;
    this.durableSeq = seq;
    const ready = this.waiters.filter((w) => w.seq <= seq);
    this.waiters = this.waiters.filter((w) => w.seq > seq);
    for (const waiter of ready) waiter.resolve();
  }

  /**
   * The fsync thread is lost without an fsync having failed (it could not start, or it died):
   * what was committed since its last fsync is synced here, now, and from now on each group's
   * COMMIT syncs the WAL itself (`synchronous = FULL`, on the event loop, as SQLite does by
   * default): slower, as durable.
   */
  private syncOnEventLoop(reason: unknown): void {
    this.syncer = undefined;
    this.syncLost = reason;
    this.notice({
      level: 'warn',
      message: "the WAL's fsync thread was lost: each commit syncs the WAL on the event loop from now on (as durable, slower)",
      error: reason,
    });
    if (this.durableSeq >= this.committedSeq) return;
    let fd: number | undefined;
    try {
      fd = openSync(this.walPath!, 'r');
      fdatasyncSync(fd);
    } catch (error) {
      this.fail(error);
      return;
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
    this.synced(this.committedSeq);
  }

  /** An fsync failed: nothing committed since the last good one may be on disk. */
  private fail(error: unknown): void {
    const first = this.failure === undefined;
    this.failure = error;
    if (first)
      this.notice({
        level: 'error',
        message:
          'an fsync of the WAL failed: no write is acknowledged from now on, and the writes not yet acknowledged may be lost; restart the server once the disk is sound',
        error,
      });
    const waiters = this.waiters;
    this.waiters = [];
    for (const waiter of waiters) waiter.reject(error);
    // Writes queued behind the failed fsync are never committed.
    const queued = this.queue;
    this.queue = [];
    for (const job of queued) job.reject(error);
  }
}
