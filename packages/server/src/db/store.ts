/**
 * Generic storage of API objects: one row per object, its fields as JSON, newest first by an
 * increasing sequence number. Resource modules describe what an object's fields are; the
 * store only keeps them. Deleted rows are kept as tombstones so that a `before_id` cursor
 * stays valid when the object it names is deleted between two pages.
 */
import type { Db } from './database.js';
import { GroupCommit, type StorageNotice } from './group-commit.js';
import { isoNow } from '../clock.js';

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

/** A row as read: `[id, kind, parent_id, created_at, data]` (see `COLUMNS`). */
type Row = [id: string, kind: string, parentId: string | null, createdAt: string, data: string];

/**
 * Rows are read as arrays of named columns rather than `SELECT *` objects: building fewer
 * values per row makes a page of 100 about half again as fast to read (bench/server-bench.mjs).
 */
const COLUMNS = 'id, kind, parent_id, created_at, data';

const toObject = <T>(row: Row): StoredObject<T> => ({
  id: row[0],
  kind: row[1],
  parentId: row[2],
  createdAt: row[3],
  data: JSON.parse(row[4]) as T,
});

export class Store {
  private readonly stmts;
  private readonly writeListeners: (() => void)[] = [];
  private readonly committingListeners: (() => void)[] = [];
  private readonly group: GroupCommit;
  /** A write happened in the group being committed. */
  private groupWrote = false;

  /** `notice` hears what the group commit must tell an operator (db/group-commit.ts). */
  constructor(
    readonly db: Db,
    options: { notice?: (notice: StorageNotice) => void } = {},
  ) {
    const afterCommit = () => {
      if (!this.groupWrote) return;
      this.groupWrote = false;
      this.notifyWrite();
    };
    const beforeCommit = () => {
      for (const listener of this.committingListeners) listener();
    };
    this.group = new GroupCommit(db, afterCommit, { beforeCommit, notice: options.notice });
    this.stmts = {
      insert: db.prepare(
        'INSERT INTO objects (id, kind, parent_id, created_at, data) VALUES (?, ?, ?, ?, ?)',
      ),
      get: db.prepare(`SELECT ${COLUMNS} FROM objects WHERE id = ? AND deleted_at IS NULL`).raw(true),
      seqOf: db.prepare('SELECT seq FROM objects WHERE id = ? AND kind = ?'),
      page: db.prepare(
        `SELECT ${COLUMNS} FROM objects WHERE kind = ? AND deleted_at IS NULL AND seq < ? ORDER BY seq DESC LIMIT ?`,
      ).raw(true),
      childPage: db.prepare(
        `SELECT ${COLUMNS} FROM objects WHERE kind = ? AND parent_id = ? AND deleted_at IS NULL AND seq < ? ORDER BY seq DESC LIMIT ?`,
      ).raw(true),
      childrenAsc: db.prepare(
        `SELECT ${COLUMNS} FROM objects WHERE kind = ? AND parent_id = ? AND deleted_at IS NULL ORDER BY seq ASC`,
      ).raw(true),
      allOfKind: db.prepare(`SELECT ${COLUMNS} FROM objects WHERE kind = ? AND deleted_at IS NULL ORDER BY seq DESC`).raw(true),
      update: db.prepare('UPDATE objects SET data = ? WHERE id = ? AND deleted_at IS NULL'),
      remove: db.prepare('UPDATE objects SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL'),
      keyOwner: db.prepare('SELECT object_id FROM unique_keys WHERE key = ?'),
      claimKey: db.prepare('INSERT OR REPLACE INTO unique_keys (key, object_id) VALUES (?, ?)'),
      releaseKeys: db.prepare('DELETE FROM unique_keys WHERE object_id = ?'),
    };
  }

  /**
   * Calls `listener` after writes (insert, update, remove, setKeys): once per group commit
   * that wrote anything (`write`), or at each write made outside one (`transaction`). The
   * render cache drops what it holds (cache/render-cache.ts).
   */
  onWrite(listener: () => void): void {
    this.writeListeners.push(listener);
  }

  /**
   * Calls `listener` inside each group commit's transaction, after its writes and before its
   * COMMIT, where a read sees them and takes no lock (the deliverer notes whether an outbox row
   * waits: domain/delivery-log.ts).
   */
  onCommitting(listener: () => void): void {
    this.committingListeners.push(listener);
  }

  private notifyWrite(): void {
    for (const listener of this.writeListeners) listener();
  }

  private wrote(): void {
    if (this.group.flushing) this.groupWrote = true;
    else this.notifyWrite();
  }

  /**
   * A request's change: runs `fn` in the next group commit (db/group-commit.ts), in its own
   * savepoint (all of its writes land, or none do), and resolves once the commit holding it is
   * durable. Every write a request makes goes through here.
   */
  write<R>(fn: () => R): Promise<R> {
    return this.group.run(fn);
  }

  /**
   * `undefined` when everything committed so far is durable, else a promise that resolves
   * when it is: what a reader must wait for before showing what it read (app.ts).
   */
  durable(): Promise<void> | undefined {
    return this.group.durable();
  }

  /** Commits the writes queued now, waits for their fsync and refuses later ones. */
  closeWrites(): Promise<void> {
    return this.group.close();
  }

  /** Groups committed, WAL fsyncs and writes run through `write` so far. */
  writeStats(): { commits: number; syncs: number; writes: number } {
    return { ...this.group.stats };
  }

  /** Runs `fn` in one transaction now, synchronously (seeding, maintenance): all or nothing. */
  transaction<R>(fn: () => R): R {
    return this.db.transaction(fn)();
  }

  insert<T>(kind: string, id: string, data: T, parentId: string | null = null): StoredObject<T> {
    const createdAt = isoNow();
    this.stmts.insert.run(id, kind, parentId, createdAt, JSON.stringify(data));
    this.wrote();
    return { id, kind, parentId, createdAt, data };
  }

  /** The live object with this id if it is of one of `kinds`. */
  get<T>(id: string, ...kinds: string[]): StoredObject<T> | undefined {
    const row = this.stmts.get.get(id) as Row | undefined;
    if (!row || (kinds.length > 0 && !kinds.includes(row[1]))) return undefined;
    return toObject<T>(row);
  }

  /**
   * One page of a kind, newest first. `beforeId` must name an object of that kind (live or
   * deleted); `undefined` is returned when it does not, for the caller to report.
   */
  page<T>(
    kind: string,
    opts: { limit: number; beforeId?: string; parentId?: string },
  ): Page<T> | undefined {
    let before = Number.MAX_SAFE_INTEGER;
    if (opts.beforeId !== undefined) {
      const found = this.stmts.seqOf.get(opts.beforeId, kind) as { seq: number } | undefined;
      if (!found) return undefined;
      before = found.seq;
    }
    const rows = (
      opts.parentId === undefined
        ? this.stmts.page.all(kind, before, opts.limit + 1)
        : this.stmts.childPage.all(kind, opts.parentId, before, opts.limit + 1)
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
    this.wrote();
    return { ...object, data };
  }

  remove(id: string): void {
    this.stmts.remove.run(isoNow(), id);
    this.stmts.releaseKeys.run(id);
    this.wrote();
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
    this.wrote();
  }
}
