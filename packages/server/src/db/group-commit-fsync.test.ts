/**
 * An fsync of the WAL that fails: the writes it was to make durable are not acknowledged,
 * and nothing later is either (the kernel may have dropped the pages, so a later fsync that
 * succeeds proves nothing), and writes answered only by an fsync that started after their
 * commit, which a SIGKILL test cannot tell (the page cache outlives the process). The fsync
 * thread (wal-syncer.ts) calls the double in src/testing/fsync-double.cjs, which this file
 * steers through shared memory.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openDatabase } from './database.js';
import { GroupCommit, type StorageNotice } from './group-commit.js';

/** The double's slots (see fsync-double.cjs). */
const [FAIL_NEXT, SLOW_MS, HOLD, STARTED, RELEASED, CRASH_NEXT, DONE] = [0, 1, 2, 3, 4, 6, 7];
let control: Int32Array;
const fsyncDouble = () => ({
  fdatasyncModule: fileURLToPath(new URL('../testing/fsync-double.cjs', import.meta.url)),
  fdatasyncModuleData: control.buffer,
});
/** Makes the next fsync fail with EIO. */
const failNext = () => Atomics.store(control, FAIL_NEXT, 1);
/** Makes the fsync thread end at its next fsync, without one failing. */
const crashNext = () => Atomics.store(control, CRASH_NEXT, 1);
/** Makes every fsync take at least this long (a busy disk). */
const slowDisk = (ms: number) => Atomics.store(control, SLOW_MS, ms);
/** From now on, fsyncs do not complete until `release()`. */
const hold = () => {
  Atomics.store(control, RELEASED, Atomics.load(control, STARTED));
  Atomics.store(control, HOLD, 1);
};
/** Fsyncs started and not yet released. */
const held = () => Atomics.load(control, STARTED) - Atomics.load(control, RELEASED);
/** Lets the oldest held fsync go on. */
const release = () => {
  Atomics.add(control, RELEASED, 1);
  Atomics.notify(control, RELEASED);
};
/** Lets every fsync go on, now and later. */
const releaseAll = () => {
  Atomics.store(control, HOLD, 0);
  Atomics.store(control, RELEASED, 1 << 30);
  Atomics.notify(control, RELEASED);
};

/** Lets the event loop run a few turns (commits, fsync messages, settlements). */
const turns = async (n = 5) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

let dir: string;
let db: ReturnType<typeof openDatabase>;
let groups: GroupCommit[];
/** What the group commits told an operator (`notice`). */
let notices: StorageNotice[];
const notice = (n: StorageNotice) => notices.push(n);
/** A group commit whose fsync thread calls the double. */
const groupCommit = (options: { gatherMs?: number } = {}) => {
  const group = new GroupCommit(db, undefined, { ...options, ...fsyncDouble(), notice });
  groups.push(group);
  return group;
};
/** A write of one row, as `GroupCommit.run` takes it. */
const insert = (v: string) => () => db.prepare('INSERT INTO t (v) VALUES (?)').run(v);
beforeEach(() => {
  control = new Int32Array(new SharedArrayBuffer(8 * Int32Array.BYTES_PER_ELEMENT));
  groups = [];
  notices = [];
  dir = mkdtempSync(join(tmpdir(), 'gatehouse-group-fsync-'));
  db = openDatabase(join(dir, 'server.db'));
  db.exec('CREATE TABLE t (v TEXT)');
});
afterEach(async () => {
  releaseAll();
  await Promise.all(groups.map((group) => group.close()));
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('GroupCommit when an fsync fails', () => {
  it('rejects the writes of the group and every later write and read wait', async () => {
    const group = groupCommit();
    await group.run(insert('durable'));

    failNext();
    const failed = await Promise.allSettled([group.run(insert('a')), group.run(insert('b'))]);
    expect(failed.map((o) => o.status)).toEqual(['rejected', 'rejected']);
    expect((failed[0] as PromiseRejectedResult).reason.code).toBe('EIO');

    await expect(group.run(insert('later'))).rejects.toMatchObject({ code: 'EIO' });
    await expect(group.durable(0)).rejects.toMatchObject({ code: 'EIO' });
    // Told once, however many writes it fails.
    expect(notices).toEqual([
      { level: 'error', message: expect.stringMatching(/^an fsync of the WAL failed: no write is acknowledged/), error: (failed[0] as PromiseRejectedResult).reason },
    ]);
  });

  it('rejects a write committed while the failing fsync ran, and commits nothing asked for after it', async () => {
    const group = groupCommit();
    hold();
    failNext();
    const first = group.run(insert('a'));
    // Its fsync is running: a write committed now is covered by the next one, which never comes.
    await vi.waitFor(() => expect(held()).toBe(1));
    const second = group.run(insert('b'));
    await turns();
    release();
    await expect(first).rejects.toMatchObject({ code: 'EIO' });
    await expect(second).rejects.toMatchObject({ code: 'EIO' });
    await expect(group.run(insert('after'))).rejects.toMatchObject({ code: 'EIO' });
    expect(db.prepare('SELECT v FROM t').pluck().all()).toEqual(['a', 'b']);
  });
});

describe('GroupCommit when the fsync thread is lost', () => {
  it('syncs on the event loop from then on, answering every write once durable', async () => {
    const group = groupCommit();
    await group.run(insert('before'));
    crashNext();
    // Committed, then its fsync's thread ends: the write is synced on the event loop instead.
    await group.run(insert('when lost'));
    expect(group.syncLost).toBeInstanceOf(Error);
    expect(notices).toEqual([{ level: 'warn', message: expect.stringMatching(/fsync thread was lost: each commit syncs the WAL on the event loop/), error: group.syncLost }]);
    const startedBefore = Atomics.load(control, STARTED);
    // From now on each COMMIT syncs the WAL itself (synchronous = FULL): no thread is asked.
    await Promise.all([group.run(insert('after 1')), group.run(insert('after 2'))]);
    expect(Atomics.load(control, STARTED)).toBe(startedBefore);
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
    expect(group.durable()).toBeUndefined();
    expect(db.prepare('SELECT v FROM t').pluck().all()).toEqual(['before', 'when lost', 'after 1', 'after 2']);
  });

  it('syncs on the event loop when the thread cannot start', async () => {
    const group = new GroupCommit(db, undefined, { fdatasyncModule: join(dir, 'no-such-module.cjs'), notice });
    groups.push(group);
    await Promise.all([group.run(insert('a')), group.run(insert('b'))]);
    await group.run(insert('c'));
    expect(group.syncLost).toBeDefined();
    expect(notices).toMatchObject([{ level: 'warn', error: group.syncLost }]);
    expect(db.prepare('SELECT v FROM t').pluck().all()).toEqual(['a', 'b', 'c']);
  });
});

/**
 * Makes the disk slow and has two clients' writes answered by one slow fsync (which starts the
 * pause after it); resolves with the group's stats at that point.
 */
async function answerTwoBySlowFsync(group: InstanceType<typeof GroupCommit>): Promise<InstanceType<typeof GroupCommit>['stats']> {
  await group.run(insert('warm'));
  slowDisk(5);
  await Promise.all([group.run(insert('a1')), group.run(insert('b1'))]);
  return { ...group.stats };
}

describe('GroupCommit on a slow disk', () => {
  it('lets the clients a slow fsync answered join the next fsync together', async () => {
    // A longer pause than the server's 1 ms, so that a loaded test machine cannot outrun it.
    const group = groupCommit({ gatherMs: 100 });
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
    const group = groupCommit({ gatherMs: 60_000 });
    const before = await answerTwoBySlowFsync(group);
    // Both clients answered are back (in two groups): the next fsync starts without the pause.
    const a2 = group.run(insert('a2'));
    await new Promise((resolve) => setImmediate(resolve));
    await Promise.all([a2, group.run(insert('b2'))]);
    expect(group.stats.commits - before.commits).toBe(2);
    expect(group.stats.syncs - before.syncs).toBe(1);
  });

  it('does not pause after a slow fsync that answered a lone write', async () => {
    // Were it to pause, waiting for one more write than the one already committed, the second
    // write would wait the full minute.
    const group = groupCommit({ gatherMs: 60_000 });
    slowDisk(5);
    await group.run(insert('lone'));
    const before = { ...group.stats };
    hold();
    const first = group.run(insert('c1'));
    await vi.waitFor(() => expect(held()).toBe(1));
    const second = group.run(insert('c2'));
    await turns();
    releaseAll();
    await Promise.all([first, second]);
    expect(group.stats.syncs - before.syncs).toBe(2);
  });
});

/**
 * Holds every fsync from now on and starts a write; resolves once the write is committed and
 * its fsync started (in the other thread) and held.
 */
async function writeWithHeldFsync(group: GroupCommit, value: string) {
  hold();
  const write = { settled: false, done: Promise.resolve() };
  write.done = group.run(insert(value)).then(() => {
    write.settled = true;
  });
  await vi.waitFor(() => expect(held()).toBe(1));
  return write;
}

describe('GroupCommit acknowledges only what an fsync made durable', () => {
  it('answers no write while the fsync that covers its commit has not completed', async () => {
    const write = await writeWithHeldFsync(groupCommit(), 'a');
    await turns();
    expect(db.prepare('SELECT v FROM t').pluck().all()).toEqual(['a']);
    expect(write.settled).toBe(false);
    releaseAll();
    await write.done;
    expect(write.settled).toBe(true);
  });

  it('does not answer a write by an fsync that started before its commit', async () => {
    const group = groupCommit();
    const first = await writeWithHeldFsync(group, 'first');
    // Committed while the first fsync runs: that fsync may not cover it.
    let secondSettled = false;
    const second = group.run(insert('second')).then(() => (secondSettled = true));
    await turns();
    expect(db.prepare('SELECT v FROM t').pluck().all()).toEqual(['first', 'second']);
    release();
    await first.done;
    // The first fsync is done and answered its write; the second waits for the next one.
    await vi.waitFor(() => expect(held()).toBe(1));
    await turns();
    expect(secondSettled).toBe(false);
    releaseAll();
    await second;
    expect(secondSettled).toBe(true);
  });

  it('answers a write whose fsync completed as soon as the next write arrives, ahead of its message', async () => {
    const group = groupCommit();
    const first = await writeWithHeldFsync(group, 'first');
    release();
    // The event loop is kept busy until that fsync is done: its message cannot be handled.
    const deadline = Date.now() + 10_000;
    while (Atomics.load(control, DONE) < 1 && Date.now() < deadline) {
      // busy, as a loaded server is
    }
    const reported = Date.now() + 20;
    while (Date.now() < reported) {
      // the thread records the fsync just after the double returns
    }
    const second = group.run(insert('second'));
    await Promise.resolve();
    await Promise.resolve();
    expect(first.settled).toBe(true);
    releaseAll();
    await Promise.all([first.done, second]);
  });
});
