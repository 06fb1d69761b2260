/**
 * Group commit: the write requests that reach the server together are committed together, in
 * one SQLite transaction and so one fsync, instead of one fsync each.
 *
 * `run(fn)` queues `fn` and returns a promise of its result. The queue is flushed in a
 * `setImmediate` callback, i.e. after the event loop has handled every request whose bytes
 * arrived in the current turn; while a flush runs (it is synchronous, better-sqlite3 blocks),
 * newly arriving requests wait in the socket buffers and are parsed in the next turn, so they
 * form the next group. Under load a group therefore holds about as many writes as there are
 * concurrent clients, and the fsync is paid once per group; a lone write waits one turn.
 *
 * A flush is `BEGIN IMMEDIATE`, then each queued function inside its own `SAVEPOINT`: a
 * function that throws has its savepoint rolled back and its promise rejected with its error,
 * and the others go on. Everything a function does through the connection (its object rows,
 * the audit event it records and the outbox rows that event's trigger adds) is in its
 * savepoint, so they land together or not at all. Then one `COMMIT`: with `synchronous = FULL`
 * (db/database.ts) it returns only after the WAL has reached the disk, and only then are the
 * promises settled, so every request is answered after the commit that holds it is durable,
 * and nothing another reader sees is less durable than that. If the commit itself fails (the
 * disk is full, the file is locked for longer than the busy timeout), every function of the
 * group fails with that error and nothing of the group is kept.
 *
 * `afterCommit` runs once per flush that ran at least one function (the render cache is
 * cleared once per commit rather than once per row written).
 */
import type { Statement } from 'better-sqlite3';
import type { Db } from './database.js';

interface Job {
  fn: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export class GroupCommit {
  private queue: Job[] = [];
  private scheduled = false;
  private closed = false;
  private running = false;
  private readonly sql: Record<'begin' | 'commit' | 'rollback' | 'savepoint' | 'release' | 'rollbackTo', Statement>;
  /** Groups committed and functions run so far (for tests and the bench). */
  readonly stats = { commits: 0, writes: 0 };

  constructor(
    private readonly db: Db,
    private readonly afterCommit: () => void = () => {},
  ) {
    this.sql = {
      begin: db.prepare('BEGIN IMMEDIATE'),
      commit: db.prepare('COMMIT'),
      rollback: db.prepare('ROLLBACK'),
      savepoint: db.prepare('SAVEPOINT group_commit_write'),
      release: db.prepare('RELEASE group_commit_write'),
      rollbackTo: db.prepare('ROLLBACK TO group_commit_write'),
    };
  }

  /**
   * Runs `fn` (synchronous, reading and writing through this connection) in the next group
   * and resolves with its result once that group's commit is durable; rejects with what `fn`
   * threw (nothing of it kept), or with the commit's error.
   */
  run<R>(fn: () => R): Promise<R> {
    if (this.closed) return Promise.reject(new Error('the database is closed'));
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ fn, resolve: resolve as (value: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** True while a group runs: its functions' writes are committed by the flush. */
  get flushing(): boolean {
    return this.running;
  }

  /** Commits what is queued now and refuses any later `run` (before the database closes). */
  close(): void {
    this.flush();
    this.closed = true;
  }

  /** Commits every queued function as one group (see the module comment). */
  flush(): void {
    this.scheduled = false;
    const jobs = this.queue;
    if (jobs.length === 0) return;
    this.queue = [];
    this.running = true;
    try {
      this.commitGroup(jobs);
    } finally {
      this.running = false;
    }
  }

  private commitGroup(jobs: Job[]): void {
    const outcomes: { ok: boolean; value: unknown }[] = [];
    try {
      this.sql.begin.run();
    } catch (error) {
      for (const job of jobs) job.reject(error);
      return;
    }
    try {
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
      this.sql.commit.run();
    } catch (error) {
      if (this.db.inTransaction) this.sql.rollback.run();
      this.afterCommit();
      for (const job of jobs) job.reject(error);
      return;
    }
    this.stats.commits++;
    this.stats.writes += jobs.length;
    this.afterCommit();
    jobs.forEach((job, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) job.resolve(outcome.value);
      else job.reject(outcome.value);
    });
  }
}
