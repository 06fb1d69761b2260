import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from './database.js';
import { MIGRATIONS } from './migrations.js';

let dir: string;
let path: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gatehouse-migrations-'));
  path = join(dir, 'server.db');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A file at schema version 2 (before migration 3), with objects, events and outbox rows. */
function versionTwoFile(): void {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  for (const [version, sql] of MIGRATIONS.slice(0, 2).entries()) {
    db.exec(sql);
    db.pragma(`user_version = ${version + 1}`);
  }
  const object = db.prepare('INSERT INTO objects (id, kind, parent_id, created_at, data) VALUES (?, ?, ?, ?, ?)');
  object.run('ipp_1', 'ip_policy', null, '2026-01-01T00:00:00.000Z', '{"description":"one"}');
  object.run('ipr_1', 'ip_policy_rule', 'ipp_1', '2026-01-01T00:00:01.000Z', '{"cidr":"10.0.0.0/8"}');
  object.run(
    'esb_1',
    'event_subscription',
    null,
    '2026-01-01T00:00:02.000Z',
    JSON.stringify({
      destination_ids: ['ede_1'],
      sources: [{ type: 'ip_policy_created.v0' }],
    }),
  );
  object.run('ipp_2', 'ip_policy', null, '2026-01-01T00:00:03.000Z', '{"description":"two"}');
  db.prepare("UPDATE objects SET deleted_at = '2026-01-02T00:00:00.000Z' WHERE id = 'ipp_2'").run();
  const event = db.prepare('INSERT INTO audit_events (event_id, event_type, event_timestamp, body) VALUES (?, ?, ?, ?)');
  event.run('ev_1', 'ip_policy_created.v0', '2026-01-01T00:00:04.000Z', '{"n":1}');
  event.run('ev_2', 'ip_policy_updated.v0', '2026-01-01T00:00:05.000Z', '{"n":2}');
  db.close();
}

const rows = (db: Db, sql: string) => db.prepare(sql).all();

describe('migration 3 (fewer pages per create)', () => {
  it('keeps every row, seq and outbox reference of a version-2 file, and seqs go on from the largest', () => {
    versionTwoFile();
    const before = new Database(path, { readonly: true });
    const objects = rows(before, 'SELECT * FROM objects ORDER BY seq');
    const events = rows(before, 'SELECT * FROM audit_events ORDER BY seq');
    const outbox = rows(before, 'SELECT * FROM event_outbox ORDER BY seq');
    before.close();
    expect(outbox).toHaveLength(1); // the trigger fanned ev_1 out to the subscription

    const db = openDatabase(path);
    try {
      expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
      expect(rows(db, 'SELECT * FROM objects ORDER BY seq')).toEqual(objects);
      expect(rows(db, 'SELECT * FROM audit_events ORDER BY seq')).toEqual(events);
      expect(rows(db, 'SELECT * FROM event_outbox ORDER BY seq')).toEqual(outbox);
      expect(db.pragma('foreign_key_check')).toEqual([]);
      expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
      // No AUTOINCREMENT bookkeeping left for either table.
      expect(rows(db, "SELECT name FROM sqlite_sequence WHERE name IN ('objects', 'audit_events')")).toEqual([]);

      const inserted = db.prepare("INSERT INTO objects (id, kind, parent_id, created_at, data) VALUES ('ipp_3', 'ip_policy', NULL, 'x', '{}')").run();
      expect(Number(inserted.lastInsertRowid)).toBe(objects.length + 1);
      // The trigger is back: a matching event still fans out to the subscription.
      const event = db
        .prepare("INSERT INTO audit_events (event_id, event_type, event_timestamp, body) VALUES ('ev_3', 'ip_policy_created.v0', 'x', '{}')")
        .run();
      expect(Number(event.lastInsertRowid)).toBe(events.length + 1);
      expect(rows(db, 'SELECT event_seq, subscription_id, destination_id FROM event_outbox ORDER BY seq')).toEqual([
        { event_seq: 1, subscription_id: 'esb_1', destination_id: 'ede_1' },
        { event_seq: 3, subscription_id: 'esb_1', destination_id: 'ede_1' },
      ]);
      // The outbox still references audit_events.
      expect(() => db.prepare("INSERT INTO event_outbox (event_seq, subscription_id, destination_id) VALUES (99, 'a', 'b')").run()).toThrow(/FOREIGN KEY/);
    } finally {
      db.close();
    }
  });

  it('indexes by parent only the objects that have one, and the lookups by parent still use it', () => {
    const db = openDatabase(path);
    try {
      const insert = db.prepare('INSERT INTO objects (id, kind, parent_id, created_at, data) VALUES (?, ?, ?, ?, ?)');
      insert.run('ipp_1', 'ip_policy', null, 'x', '{}');
      insert.run('ipr_1', 'ip_policy_rule', 'ipp_1', 'x', '{}');
      const indexed = db.prepare('SELECT count(*) FROM objects INDEXED BY objects_parent WHERE parent_id IS NOT NULL AND deleted_at IS NULL').pluck();
      expect(indexed.get()).toBe(1);
      const plan = (sql: string) => (rows(db, `EXPLAIN QUERY PLAN ${sql}`) as { detail: string }[]).map((r) => r.detail).join('; ');
      expect(
        plan("SELECT id FROM objects WHERE kind = 'ip_policy_rule' AND parent_id = 'ipp_1' AND deleted_at IS NULL AND seq < 10 ORDER BY seq DESC LIMIT 5"),
      ).toMatch(/USING INDEX objects_parent/);
      expect(plan("SELECT id FROM objects WHERE kind = 'ip_policy_rule' AND parent_id = 'ipp_1' AND deleted_at IS NULL ORDER BY seq ASC")).toMatch(
        /USING INDEX objects_parent/,
      );
    } finally {
      db.close();
    }
  });

  it('leaves a migrated file as it is when it is opened again', () => {
    versionTwoFile();
    const first = openDatabase(path);
    const second = openDatabase(path);
    try {
      expect(second.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
      expect(rows(second, 'SELECT id FROM objects ORDER BY seq')).toHaveLength(4);
    } finally {
      first.close();
      second.close();
    }
  });
});

describe('opening a database', () => {
  it('makes the missing directories of a new file', () => {
    const nested = join(dir, 'a', 'b', 'server.db');
    openDatabase(nested).close();
    expect(new Database(nested, { readonly: true }).pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
  });

  it('refuses an empty path, which SQLite would open as a temporary database', () => {
    expect(() => openDatabase('')).toThrow('the database path is empty; name a file, or :memory: for a database that is not kept');
    expect(() => openDatabase('  ')).toThrow(/database path is empty/);
  });

  it('refuses a directory, naming a file in it to give instead', () => {
    const directory = join(dir, 'data');
    mkdirSync(directory);
    expect(() => openDatabase(directory)).toThrow(
      `cannot open the database ${directory}: it is a directory; name a file in it, such as ${join(directory, 'server.db')}`,
    );
  });

  it('names the file it cannot open, keeping the cause and its code', () => {
    writeFileSync(path, 'not sqlite, but long enough to be read as a database header. '.repeat(4));
    expect(() => openDatabase(path)).toThrow(`cannot open the database ${path}: file is not a database`);
    const underFile = join(path, 'server.db');
    let error: NodeJS.ErrnoException | undefined;
    try {
      openDatabase(underFile);
    } catch (caught) {
      error = caught as NodeJS.ErrnoException;
    }
    expect(error?.message).toMatch(`cannot open the database ${underFile}: EEXIST`);
    expect(error?.code).toBe('EEXIST');
    expect((error?.cause as NodeJS.ErrnoException | undefined)?.code).toBe('EEXIST');
  });
});
