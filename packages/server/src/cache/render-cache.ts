/**
 * Rendered responses kept in memory: the serialized JSON body of a GET (an object by id, a
 * page of a list, a module), so that reading the same thing again costs neither the database
 * read, nor the rendering, nor the response serialization.
 *
 * Correctness comes before reuse. A body is served from here only while nothing it could have
 * been built from can have changed:
 * - every write of this process goes through `Store` (insert, update, remove, setKeys), which
 *   calls `invalidate()` and drops EVERY body. Whole-cache invalidation is deliberate: renders
 *   read more than their own row (an HTTPS edge renders its routes inline, a route renders its
 *   modules, the parent of a child must exist for the child's GET to answer), and writes are
 *   rare next to reads (each one waits for an fsync), so tracking dependencies would buy
 *   little and risk a stale answer;
 * - writes of OTHER connections (`gatehouse serve` and the CLI's embedded server sharing
 *   `.gatehouse/server.db`) are seen through SQLite's `PRAGMA data_version`, which changes when
 *   another connection commits; a change drops everything. It is read at the first lookup of
 *   each event-loop turn and again after each of this connection's commits (`invalidate`):
 *   the lookups of one turn are answered as of one moment, as if they had arrived together,
 *   and a request that arrives after another process acknowledged a write is handled in a
 *   later turn, so it sees that write;
 * - the base URL every `uri` is built under is compared on every lookup too (it is set once,
 *   before the first request, but a change must never serve a body built under the old one);
 * - nothing is stored while a transaction is open, so an uncommitted state is never kept.
 *
 * Memory is bounded by an LRU (lru-cache) over the bodies' sizes (their UTF-8
 * bytes, and two bytes a character of their keys) and their count.
 */
import type { Statement } from 'better-sqlite3';
import { LRUCache } from 'lru-cache';
import type { Db } from '../db/database.js';

export interface RenderCacheOptions {
  /** Bytes of bodies and keys kept at most (default 32 MiB); a larger body is not kept. */
  maxBytes?: number;
  /** Bodies kept at most (default 10,000). */
  maxEntries?: number;
}

export const DEFAULT_MAX_BYTES = 32 * 1024 * 1024;
export const DEFAULT_MAX_ENTRIES = 10_000;

export class RenderCache {
  private readonly bodies: LRUCache<string, Buffer>;
  private readonly dataVersion: Statement<[], number>;
  private seenVersion: number;
  private seenBase: string;
  /** `data_version` was read in this event-loop turn (reset by a `setImmediate`). */
  private checkedThisTurn = false;
  private readonly endTurn = () => {
    this.checkedThisTurn = false;
  };

  /**
   * @param db the connection this process reads and writes through.
   * @param baseUrl the base URL renders are built under now (`Urls.of('')`).
   */
  constructor(
    private readonly db: Db,
    private readonly baseUrl: () => string,
    options: RenderCacheOptions = {},
  ) {
    this.bodies = new LRUCache<string, Buffer>({
      max: options.maxEntries ?? DEFAULT_MAX_ENTRIES,
      maxSize: options.maxBytes ?? DEFAULT_MAX_BYTES,
      sizeCalculation: (body, key) => body.length + 2 * key.length,
    });
    this.dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
    this.seenVersion = this.dataVersion.get()!;
    this.seenBase = baseUrl();
  }

  /**
   * Drops every body: something they may have been built from changed. Cheap when the cache
   * is empty (as it often is between writes), and the next lookup checks `data_version` again.
   */
  invalidate(): void {
    if (this.bodies.size > 0) this.bodies.clear();
    this.checkedThisTurn = false;
  }

  /**
   * The body under `key` if it is still current, else `produce()`'s, kept for next time.
   * `produce` reads and renders synchronously, so no write of this process can land between
   * the freshness check and the body it returns. An error it throws (a 404) is not kept.
   * Bodies are kept as UTF-8 bytes, so that answering from the cache encodes nothing.
   */
  body(key: string, produce: () => string): Buffer {
    this.checkFresh();
    const cached = this.bodies.get(key);
    if (cached !== undefined) return cached;
    const body = Buffer.from(produce());
    if (!this.db.inTransaction) this.bodies.set(key, body);
    return body;
  }

  /** Bodies held now and their size in bytes (for tests and diagnostics). */
  stats(): { entries: number; bytes: number } {
    return { entries: this.bodies.size, bytes: this.bodies.calculatedSize };
  }

  /**
   * Drops everything if the base URL moved, or (checked once per event-loop turn) another
   * connection committed since last time.
   */
  private checkFresh(): void {
    const base = this.baseUrl();
    if (base !== this.seenBase) {
      this.seenBase = base;
      this.bodies.clear();
    }
    if (this.checkedThisTurn) return;
    this.checkedThisTurn = true;
    setImmediate(this.endTurn);
    const version = this.dataVersion.get()!;
    if (version !== this.seenVersion) {
      this.seenVersion = version;
      this.bodies.clear();
    }
  }
}
