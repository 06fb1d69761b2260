/**
 * An fsync of the WAL that fails: the writes it was to make durable are not acknowledged,
 * and nothing later is either (the kernel may have dropped the pages, so a later fsync that
 * succeeds proves nothing), and writes answered only by an fsync that started after their
 * commit, which a SIGKILL test cannot tell (the page cache outlives the process).
 * `fs.fdatasync` is replaced for this file only.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

const failNext = { on: false };
/** Makes every fsync take at least this long (a busy disk). */
const slowDisk = { ms: 0 };
/** While `on`, fsyncs do not complete until the test calls the callbacks held here. */
const held = { on: false, callbacks: [] as (() => void)[] };
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const fdatasync = (fd: number, callback: (error: NodeJS.ErrnoException | null) => void) => {
    if (failNext.on) {
      failNext.on = false;
      const error = Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
      setImmediate(() => callback(error));
      return;
    }
    if (held.on) held.callbacks.push(() => fs.fdatasync(fd, callback));
    else if (slowDisk.ms > 0) setTimeout(() => fs.fdatasync(fd, callback), slowDisk.ms);
    else fs.fdatasync(fd, callback);
  };
  return { ...fs, fdatasync, default: { ...fs, fdatasync } };
});

const { openDatabase } = await import('./database.js');
const { GroupCommit } = await import('./group-commit.js');

let dir: string;
let db: ReturnType<typeof openDatabase>;
/** A write of one row, as `GroupCommit.run` takes it. */
const insert = (v: string) => () => db.prepare('INSERT INTO t (v) VALUES (?)').run(v);
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gatehouse-group-fsync-'));
  db = openDatabase(join(dir, 'server.db'));
  db.exec('CREATE TABLE t (v TEXT)');
});
afterEach(() => {
  slowDisk.ms = 0;
  held.on = false;
  held.callbacks = [];
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('GroupCommit when an fsync fails', () => {
  it('rejects the writes of the group and every later write and read wait', async () => {
    const group = new GroupCommit(db);
    await group.run(insert('durable'));

    failNext.on = true;
    const failed = await Promise.allSettled([group.run(insert('a')), group.run(insert('b'))]);
    expect(failed.map((o) => o.status)).toEqual(['rejected', 'rejected']);
    expect((failed[0] as PromiseRejectedResult).reason.code).toBe('EIO');

    await expect(group.run(insert('later'))).rejects.toMatchObject({ code: 'EIO' });
    await expect(group.durable(0)).rejects.toMatchObject({ code: 'EIO' });
  });

  it('rejects a write queued behind the failing fsync without committing it', async () => {
    const group = new GroupCommit(db);
    failNext.on = true;
    const first = group.run(insert('a'));
    // Let the group commit (its fsync is now running), then queue one more write.
    await new Promise((resolve) => setImmediate(resolve));
    const queued = group.run(insert('queued'));
    await expect(first).rejects.toMatchObject({ code: 'EIO' });
    await expect(queued).rejects.toMatchObject({ code: 'EIO' });
    expect(db.prepare('SELECT v FROM t').pluck().all()).toEqual(['a']);
  });
});

/**
 * Makes the disk slow and has two clients' writes answered by one slow fsync (which starts the
 * pause after it); resolves with the group's stats at that point.
 */
async function answerTwoBySlowFsync(group: InstanceType<typeof GroupCommit>): Promise<InstanceType<typeof GroupCommit>['stats']> {
  await group.run(insert('warm'));
  slowDisk.ms = 5;
  await Promise.all([group.run(insert('a1')), group.run(insert('b1'))]);
  return { ...group.stats };
}

describe('GroupCommit on a slow disk', () => {
  it('lets the clients a slow fsync answered join the next fsync together', async () => {
    // A longer pause than the server's 1 ms, so that a loaded test machine cannot outrun it.
    const group = new GroupCommit(db, undefined, { gatherMs: 100 });
    const before = await answerTwoBySlowFsync(group);
    // Each sends its next write, a moment apart.
    const a2 = group.run(insert('a2'));
    await new Promise((resolve) => setImmediate(resolve));
    const b2 = group.run(insert('b2'));
    await Promise.all([a2, b2]);
    // Two groups, one fsync: without the pause the first would have had an fsync of its own.
    expect(group.stats.commits - before.commits).toBe(2);
    expect(group.stats.syncs - before.syncs).toBe(1);
  });

  it('ends the pause as soon as the writers the slow fsync answered are back', async () => {
    // A pause far longer than the test's time limit: only the early end lets it finish.
    const group = new GroupCommit(db, undefined, { gatherMs: 60_000 });
    const before = await answerTwoBySlowFsync(group);
    // Both clients answered are back (in two groups): the next fsync starts without the pause.
    const a2 = group.run(insert('a2'));
    await new Promise((resolve) => setImmediate(resolve));
    await Promise.all([a2, group.run(insert('b2'))]);
    expect(group.stats.commits - before.commits).toBe(2);
    expect(group.stats.syncs - before.syncs).toBe(1);
  });

  it('does not pause after a slow fsync that answered a lone write', async () => {
    const group = new GroupCommit(db);
    slowDisk.ms = 5;
    await group.run(insert('lone'));
    const before = { ...group.stats };
    const first = group.run(insert('c1'));
    await new Promise((resolve) => setImmediate(resolve));
    const second = group.run(insert('c2'));
    await Promise.all([first, second]);
    expect(group.stats.syncs - before.syncs).toBe(2);
  });
});

/** Lets the event loop run a few turns (commits, fsync callbacks, settlements). */
const turns = async (n = 5) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe('GroupCommit acknowledges only what an fsync made durable', () => {
  it('answers no write while the fsync that covers its commit has not completed', async () => {
    const group = new GroupCommit(db);
    held.on = true;
    let settled = false;
    const write = group.run(insert('a')).then(() => (settled = true));
    await turns();
    // Committed (visible to this connection), its fsync started and still running: no answer.
    expect(db.prepare('SELECT v FROM t').pluck().all()).toEqual(['a']);
    expect(held.callbacks).toHaveLength(1);
    expect(settled).toBe(false);
    held.on = false;
    held.callbacks.shift()!();
    await write;
    expect(settled).toBe(true);
  });

  it('does not answer a write by an fsync that started before its commit', async () => {
    const group = new GroupCommit(db);
    held.on = true;
    const first = group.run(insert('first'));
    await turns();
    expect(held.callbacks).toHaveLength(1);
    // Committed while the first fsync runs: that fsync may not cover it.
    let secondSettled = false;
    const second = group.run(insert('second')).then(() => (secondSettled = true));
    await turns();
    expect(db.prepare('SELECT v FROM t').pluck().all()).toEqual(['first', 'second']);
    held.callbacks.shift()!();
    await first;
    await turns();
    // The first fsync is done and answered its write; the second waits for the next one.
    expect(secondSettled).toBe(false);
    expect(held.callbacks).toHaveLength(1);
    held.on = false;
    held.callbacks.shift()!();
    await second;
    expect(secondSettled).toBe(true);
  });
});
