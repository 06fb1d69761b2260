import { mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startHarness, type Harness } from '../testing/harness.js';
import { openDatabase, type Db } from './database.js';
import { GroupCommit, type StorageNotice } from './group-commit.js';

let dir: string;
let db: Db;
let group: GroupCommit;
let afterCommits: number;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gatehouse-group-commit-'));
  db = openDatabase(join(dir, 'server.db'));
  db.exec(`
    CREATE TABLE t (v TEXT NOT NULL UNIQUE);
    CREATE TABLE parent (id INTEGER PRIMARY KEY);
    CREATE TABLE child (parent_id INTEGER REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED);`);
  afterCommits = 0;
  group = new GroupCommit(db, () => afterCommits++);
});
afterEach(async () => {
  // Ends its fsync thread (a test that closed it already is no matter).
  await group.close();
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const insert = (v: string) => () => db.prepare('INSERT INTO t (v) VALUES (?)').run(v).lastInsertRowid;
const values = (conn: Db = db) => (conn.prepare('SELECT v FROM t ORDER BY rowid').pluck().all() as string[]);

describe('GroupCommit', () => {
  it('commits the writes queued in one event-loop turn together, in one transaction', async () => {
    const results = await Promise.all(['a', 'b', 'c', 'd'].map((v) => group.run(insert(v))));
    expect(results).toEqual([1n, 2n, 3n, 4n].map(Number));
    expect(group.stats).toEqual({ commits: 1, syncs: 1, writes: 4 });
    expect(afterCommits).toBe(1);
    expect(values()).toEqual(['a', 'b', 'c', 'd']);
  });

  it("commits every group, the first included, at synchronous = NORMAL (its fsync is the thread's) and leaves FULL outside", async () => {
    // PRAGMA synchronous as a prepared statement takes effect when it is prepared; a run
    // applies it again only from the statement's second run on.
    const level = () => db.pragma('synchronous', { simple: true });
    const inGroups: unknown[] = [];
    for (let i = 0; i < 3; i++) inGroups.push(await group.run(level));
    expect(inGroups).toEqual([1, 1, 1]);
    expect(level()).toBe(2);
  });

  it('runs writes queued while a group commits in the next group', async () => {
    let late: Promise<unknown> | undefined;
    const first = group.run(() => {
      // Queued while the first group runs: it must not join a transaction already committing.
      late = group.run(insert('late'));
      return insert('early')();
    });
    // `late` is assigned when the first group runs its write, which may be after this line
    // starts waiting: wait for the first, then for the write it queued.
    await first;
    expect(late).toBeInstanceOf(Promise);
    await late;
    expect(values()).toEqual(['early', 'late']);
    expect(group.stats.commits).toBe(2);
  });

  it('settles a write only after an fsync of the WAL that started after its commit', async () => {
    let durableAtCommit: Promise<void> | undefined;
    const watched: GroupCommit = new GroupCommit(db, () => (durableAtCommit = watched.durable()));
    let settled = false;
    const write = watched.run(insert('w')).then(() => (settled = true));
    await new Promise((resolve) => setImmediate(resolve));
    // Committed (readers must wait), not yet synced, not yet answered.
    expect(watched.committed).toBe(1);
    expect(durableAtCommit).toBeInstanceOf(Promise);
    expect(watched.stats.syncs).toBe(0);
    expect(settled).toBe(false);
    await write;
    expect(watched.stats.syncs).toBe(1);
    expect(watched.durable()).toBeUndefined();
    await durableAtCommit;
  });

  it('settles a write only once its commit is visible to another connection', async () => {
    const other = new Database(join(dir, 'server.db'), { readonly: true });
    try {
      const seen: string[][] = [];
      await Promise.all(
        ['x', 'y'].map((v) =>
          group.run(insert(v)).then(() => {
            expect(db.inTransaction).toBe(false);
            seen.push(values(other));
          }),
        ),
      );
      expect(seen).toEqual([['x', 'y'], ['x', 'y']]);
    } finally {
      other.close();
    }
  });

  it('rolls back only the write that failed (its own savepoint); the others of the group commit', async () => {
    const outcomes = await Promise.allSettled([
      group.run(insert('kept-1')),
      group.run(() => {
        insert('half-written')();
        throw new Error('refused after writing');
      }),
      group.run(insert('kept-1')), // UNIQUE violation
      group.run(insert('kept-2')),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason.message).toBe('refused after writing');
    expect((outcomes[2] as PromiseRejectedResult).reason.code).toBe('SQLITE_CONSTRAINT_UNIQUE');
    expect(values()).toEqual(['kept-1', 'kept-2']);
    expect(group.stats).toEqual({ commits: 1, syncs: 1, writes: 4 });
  });

  it('fails every write of the group, keeping none, when the commit itself fails', async () => {
    const outcomes = await Promise.allSettled([
      group.run(insert('innocent')),
      // A deferred foreign key is checked at COMMIT: the whole group's commit fails.
      group.run(() => db.prepare('INSERT INTO child (parent_id) VALUES (42)').run()),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
    expect((outcomes[0] as PromiseRejectedResult).reason.code).toBe('SQLITE_CONSTRAINT_FOREIGNKEY');
    expect(db.inTransaction).toBe(false);
    expect(values()).toEqual([]);
    // And the next group works.
    await group.run(insert('after'));
    expect(values()).toEqual(['after']);
  });

  it('commits what is queued at close() and refuses writes afterwards', async () => {
    const queued = group.run(insert('queued'));
    await group.close();
    await expect(queued).resolves.toBe(1);
    await expect(group.run(insert('late'))).rejects.toThrow(/closed/);
    expect(values()).toEqual(['queued']);
  });
});

describe('WAL checkpoints (db/checkpointer.ts)', () => {
  it('are not made inside a COMMIT but by a worker every few groups, and the WAL starts over', async () => {
    const checkpointed = new GroupCommit(db, undefined, { checkpointEvery: 5 });
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    // The WAL header's checkpoint sequence number grows each time the WAL starts over.
    const walRestarts = () => readFileSync(join(dir, 'server.db-wal')).readUInt32BE(12);
    for (let i = 0; i < 5; i++) await checkpointed.run(insert(`v${i}`));
    const restartsBefore = walRestarts();
    await vi.waitFor(() => expect(checkpointed.checkpointer!.stats.checkpoints).toBe(1));
    const last = checkpointed.checkpointer!.stats.last!;
    expect(last.busy).toBe(0);
    expect(last.checkpointed).toBe(last.log);
    // Everything is in the database file: the next commit writes the WAL from its start.
    await checkpointed.run(insert('v5'));
    expect(walRestarts()).toBe(restartsBefore + 1);
    await checkpointed.close();
    const reopened = new Database(join(dir, 'server.db'), { readonly: true });
    try {
      expect(values(reopened)).toEqual(['v0', 'v1', 'v2', 'v3', 'v4', 'v5']);
    } finally {
      reopened.close();
    }
  });

  it("say so when the worker fails, and SQLite's own checkpoints inside commits take over", async () => {
    const notices: StorageNotice[] = [];
    const checkpointed = new GroupCommit(db, undefined, { checkpointEvery: 2, notice: (n) => notices.push(n) });
    // The first write starts the fsync thread, which opens the WAL; then the database's
    // directory moves, so the checkpoint worker the second group asks for cannot open it.
    await checkpointed.run(insert('a'));
    renameSync(dir, `${dir}-moved`);
    dir = `${dir}-moved`;
    await checkpointed.run(insert('b'));
    await vi.waitFor(() => expect(notices).toHaveLength(1));
    expect(notices[0]).toMatchObject({ level: 'warn', message: expect.stringMatching(/checkpoint thread failed: SQLite checkpoints inside commits/) });
    expect(notices[0]!.error).toBe(checkpointed.checkpointer!.lastError);
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    await checkpointed.run(insert('c'));
    expect(values()).toEqual(['a', 'b', 'c']);
    await checkpointed.close();
    expect(notices).toHaveLength(1);
  });

  it('lets the WAL start over under steady concurrent writes (a short hold of the flush)', async () => {
    const checkpointed = new GroupCommit(db, undefined, { checkpointEvery: 5 });
    const walRestarts = () => readFileSync(join(dir, 'server.db-wal')).readUInt32BE(12);
    await checkpointed.run(insert('first'));
    const restartsBefore = walRestarts();
    let stop = false;
    let written = 0;
    const writer = async (n: number) => {
      for (let i = 0; !stop; i++) {
        await checkpointed.run(insert(`w${n}-${i}`));
        written++;
      }
    };
    const writers = Array.from({ length: 4 }, (_, n) => writer(n));
    await vi.waitFor(() => expect(checkpointed.checkpointer!.stats.checkpoints).toBeGreaterThanOrEqual(3), { timeout: 20_000 });
    stop = true;
    await Promise.all(writers);
    expect(walRestarts()).toBeGreaterThanOrEqual(restartsBefore + 2);
    expect(values()).toHaveLength(written + 1);
    await checkpointed.close();
  });

  it('falls back to the automatic checkpoint when the worker fails', async () => {
    const checkpointed = new GroupCommit(db, undefined, { checkpointEvery: 2 });
    await checkpointed.run(insert('before'));
    // The worker starts at the second group and cannot open the database: its directory is gone.
    rmSync(dir, { recursive: true, force: true });
    await checkpointed.run(insert('still committed'));
    await vi.waitFor(() => expect(checkpointed.checkpointer!.lastError).toBeDefined());
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    expect(values()).toEqual(['before', 'still committed']);
    await checkpointed.close();
  });
});

describe('group commit through the app', () => {
  let h: Harness;
  beforeEach(async () => {
    // No deliverer: the outbox rows stay pending for the test to count.
    h = await startHarness({ delivery: false });
  });
  afterEach(() => h.close());

  it('answers concurrent writes from one commit; a conflict fails alone, with no audit event or outbox row', async () => {
    const destination = await h.call('POST', '/event_destinations', {
      target: { firehose: { delivery_stream_arn: 'arn:aws:firehose:us-east-1:123456789012:deliverystream/audit', auth: { role: { role_arn: 'arn:aws:iam::123456789012:role/audit' } } } },
    });
    expect(destination.status).toBe(201);
    const subscription = await h.call('POST', '/event_subscriptions', {
      sources: [{ type: 'ip_policy_rule_created.v0' }],
      destination_ids: [destination.body.id],
    });
    expect(subscription.status).toBe(201);
    const policy = (await h.call('POST', '/ip_policies', {})).body.id;
    const before = h.app.services.store.writeStats();
    const eventsBefore = h.app.audit.read().length;
    const outboxBefore = h.app.deliveryLog.pendingCount();

    const cidrs = ['10.0.0.0/8', '10.1.0.0/16', '10.0.0.0/8', '10.2.0.0/16'];
    const results = await Promise.all(
      cidrs.map((cidr) => h.call('POST', '/ip_policy_rules', { ip_policy_id: policy, cidr, action: 'allow' })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 201, 201, 400]);
    const after = h.app.services.store.writeStats();
    expect(after.writes - before.writes).toBe(4);
    expect(after.commits - before.commits).toBe(1);
    const events = h.app.audit.read().slice(eventsBefore);
    expect(events.map((e) => e.event_type)).toEqual(Array(3).fill('ip_policy_rule_created.v0'));
    expect(h.app.deliveryLog.pendingCount() - outboxBefore).toBe(3);
    // Every acknowledged rule is readable at once.
    for (const r of results.filter((r) => r.status === 201)) {
      expect((await h.call('GET', `/ip_policy_rules/${r.body.id}`)).status).toBe(200);
    }
  });
});
