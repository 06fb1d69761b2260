/**
 * Generic storage of API objects: one row per object, its fields as JSON, newest first by an
 * increasing sequence number. Resource modules describe what an object's fields are; the
 * store only keeps them. Deleted rows are kept as tombstones so that a `before_id` cursor
 * stays valid when the object it names is deleted between two pages.
 */
import type { Db } from './database.js';

export interface StoredObject<T = Record<string, unknown>> {
  id: string;
  kind: string;
  parentId: string | null;
  createdAt: string;
  data: T;
}

export interface Page<T> {
  items: StoredObject<T>[];
  /** True when objects older than the last item exist. */
  hasMore: boolean;
}

/** A row of `objects` as read. */
interface Row {
  id: string;
  kind: string;
  parent_id: string | null;
  created_at: string;
  data: string;
}

const COLUMNS = 'id, kind, parent_id, created_at, data';

const toObject = <T>(row: Row): StoredObject<T> => ({
  id: row.id,
  kind: row.kind,
  parentId: row.parent_id,
  createdAt: row.created_at,
  data: JSON.parse(row.data) as T,
});

export class Store {
  private readonly stmts;

  constructor(readonly db: Db) {
    this.stmts = {
      insert: db.prepare('INSERT INTO objects (id, kind, parent_id, created_at, data) VALUES (?, ?, ?, ?, ?)'),
      get: db.prepare(`SELECT ${COLUMNS} FROM objects WHERE id = ? AND deleted_at IS NULL`),
      seqOf: db.prepare('SELECT seq FROM objects WHERE id = ? AND kind = ?'),
      page: db.prepare(`SELECT ${COLUMNS} FROM objects WHERE kind = ? AND deleted_at IS NULL AND seq < ? ORDER BY seq DESC LIMIT ?`),
      childPage: db.prepare(`SELECT ${COLUMNS} FROM objects WHERE kind = ? AND parent_id = ? AND deleted_at IS NULL AND seq < ? ORDER BY seq DESC LIMIT ?`),
      childrenAsc: db.prepare(`SELECT ${COLUMNS} FROM objects WHERE kind = ? AND parent_id = ? AND deleted_at IS NULL ORDER BY seq ASC`),
      allOfKind: db.prepare(`SELECT ${COLUMNS} FROM objects WHERE kind = ? AND deleted_at IS NULL ORDER BY seq DESC`),
      update: db.prepare('UPDATE objects SET data = ? WHERE id = ? AND deleted_at IS NULL'),
      remove: db.prepare('UPDATE objects SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL'),
      keyOwner: db.prepare('SELECT object_id FROM unique_keys WHERE key = ?'),
      claimKey: db.prepare('INSERT OR REPLACE INTO unique_keys (key, object_id) VALUES (?, ?)'),
      releaseKeys: db.prepare('DELETE FROM unique_keys WHERE object_id = ?'),
    };
  }

  /**
   * A request's change: runs `fn` in one `BEGIN IMMEDIATE` transaction (all of its writes land,
   * or none do, its audit event and outbox rows included) and returns its result once the
   * commit is on disk (`synchronous = FULL`, db/database.ts). Every write goes through here.
   * IMMEDIATE takes the write lock up front, so two processes sharing the file (`serve` and
   * the CLI's embedded server) wait for each other (busy_timeout) instead of failing midway.
   */
  transaction<R>(fn: () => R): R {
    return this.db.transaction(fn).immediate();
  }

  insert<T>(kind: string, id: string, data: T, parentId: string | null = null): StoredObject<T> {
    const createdAt = new Date().toISOString();
    this.stmts.insert.run(id, kind, parentId, createdAt, JSON.stringify(data));
    return { id, kind, parentId, createdAt, data };
  }

  /** The live object with this id if it is of one of `kinds`. */
  get<T>(id: string, ...kinds: string[]): StoredObject<T> | undefined {
    const row = this.stmts.get.get(id) as Row | undefined;
    if (!row || (kinds.length > 0 && !kinds.includes(row.kind))) return undefined;
    return toObject<T>(row);
  }

  /**
   * One page of a kind, newest first. `beforeId` must name an object of that kind (live or
   * deleted); `undefined` is returned when it does not, for the caller to report.
   */
  page<T>(kind: string, opts: { limit: number; beforeId?: string; parentId?: string }): Page<T> | undefined {
    let before = Number.MAX_SAFE_INTEGER;
    if (opts.beforeId !== undefined) {
      const found = this.stmts.seqOf.get(opts.beforeId, kind) as { seq: number } | undefined;
      if (!found) return undefined;
      before = found.seq;
    }
    const rows = (
      opts.parentId === undefined ? this.stmts.page.all(kind, before, opts.limit + 1) : this.stmts.childPage.all(kind, opts.parentId, before, opts.limit + 1)
    ) as Row[];
    const hasMore = rows.length > opts.limit;
    return { items: rows.slice(0, opts.limit).map((r) => toObject<T>(r)), hasMore };
  }

  /** Every live child of `parentId` of this kind, oldest first (creation order). */
  children<T>(kind: string, parentId: string): StoredObject<T>[] {
    return (this.stmts.childrenAsc.all(kind, parentId) as Row[]).map((r) => toObject<T>(r));
  }

  /** Every live object of a kind, newest first; for uniqueness checks and small kinds. */
  all<T>(kind: string): StoredObject<T>[] {
    return (this.stmts.allOfKind.all(kind) as Row[]).map((r) => toObject<T>(r));
  }

  update<T>(object: StoredObject<T>, data: T): StoredObject<T> {
    this.stmts.update.run(JSON.stringify(data), object.id);
    return { ...object, data };
  }

  remove(id: string): void {
    this.stmts.remove.run(new Date().toISOString(), id);
    this.stmts.releaseKeys.run(id);
  }

  /** The id of the live object holding a unique key, if any. */
  keyOwner(key: string): string | undefined {
    return (this.stmts.keyOwner.get(key) as { object_id: string } | undefined)?.object_id;
  }

  /**
   * Makes `keys` exactly the unique keys `objectId` holds (releasing any it held before).
   * Callers check `keyOwner` first and report a conflict as a 400 that names the field.
   */
  setKeys(objectId: string, keys: readonly string[]): void {
    this.stmts.releaseKeys.run(objectId);
    for (const key of keys) this.stmts.claimKey.run(key, objectId);
  }
}
