import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../db/database.js';
import { RenderCache } from './render-cache.js';

let dir: string;
let db: Db;
let base: string;
let cache: RenderCache;
let produced: number;
/** A producer that counts its calls, so a test sees whether the cache answered. */
const produce = (body: string) => () => {
  produced++;
  return body;
};

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gatehouse-render-cache-'));
  db = openDatabase(join(dir, 'server.db'));
  base = 'http://one.test';
  cache = new RenderCache(db, () => base);
  produced = 0;
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('RenderCache', () => {
  it('answers a key from memory after the first time', () => {
    expect(cache.body('/a', produce('A1')).toString()).toBe('A1');
    expect(cache.body('/a', produce('A2')).toString()).toBe('A1');
    expect(cache.body('/b', produce('B1')).toString()).toBe('B1');
    expect(produced).toBe(2);
  });

  it('drops every body on invalidate()', () => {
    cache.body('/a', produce('A1'));
    cache.body('/b', produce('B1'));
    cache.invalidate();
    expect(cache.stats().entries).toBe(0);
    expect(cache.body('/a', produce('A2')).toString()).toBe('A2');
  });

  it('drops every body when another connection to the same file commits, from the next event-loop turn', async () => {
    cache.body('/a', produce('A1'));
    const other = new Database(join(dir, 'server.db'));
    try {
      other.prepare('INSERT INTO api_keys (id, token_hash, created_at) VALUES (?, ?, ?)').run('ak_x', 'h', 'now');
    } finally {
      other.close();
    }
    // data_version is read once per turn: the rest of this turn answers as of its start.
    expect(cache.body('/a', produce('A-same-turn')).toString()).toBe('A1');
    await new Promise((resolve) => setImmediate(resolve));
    expect(cache.body('/a', produce('A2')).toString()).toBe('A2');
    // And keeps the new body until the next change.
    expect(cache.body('/a', produce('A3')).toString()).toBe('A2');
  });

  it("is not dropped by this connection's own commits (Store writes invalidate explicitly)", () => {
    cache.body('/a', produce('A1'));
    db.prepare('INSERT INTO api_keys (id, token_hash, created_at) VALUES (?, ?, ?)').run('ak_y', 'h', 'now');
    expect(cache.body('/a', produce('A2')).toString()).toBe('A1');
  });

  it("reads data_version again after this connection's own commit (invalidate), within the same turn", () => {
    cache.body('/a', produce('A1'));
    const other = new Database(join(dir, 'server.db'));
    try {
      other.prepare('INSERT INTO api_keys (id, token_hash, created_at) VALUES (?, ?, ?)').run('ak_z', 'h', 'now');
    } finally {
      other.close();
    }
    cache.invalidate();
    expect(cache.body('/a', produce('A2')).toString()).toBe('A2');
    expect(cache.body('/a', produce('A3')).toString()).toBe('A2');
  });

  it('drops every body when the base URL changes', () => {
    cache.body('/a', produce('http://one.test/a'));
    base = 'http://two.test';
    expect(cache.body('/a', produce('http://two.test/a')).toString()).toBe('http://two.test/a');
  });

  it('keeps nothing produced inside a transaction', () => {
    db.transaction(() => cache.body('/a', produce('uncommitted')))();
    expect(cache.body('/a', produce('committed')).toString()).toBe('committed');
  });

  it('keeps no body whose producer threw', () => {
    expect(() =>
      cache.body('/a', () => {
        throw new Error('not found');
      }),
    ).toThrow('not found');
    expect(cache.stats().entries).toBe(0);
  });

  it('stays within its byte bound, evicting the least recently used body', () => {
    const small = new RenderCache(db, () => base, { maxBytes: 10_000 });
    const body = 'x'.repeat(2_000); // 2,000 bytes and a few for the key
    for (let i = 0; i < 20; i++) small.body(`/k${i}`, () => body);
    const { entries, bytes } = small.stats();
    expect(bytes).toBeLessThanOrEqual(10_000);
    expect(entries).toBe(4);
    // The newest are kept, the oldest evicted.
    let again = 0;
    small.body('/k19', () => (again++, body));
    small.body('/k0', () => (again++, body));
    expect(again).toBe(1);
  });

  it('does not keep a body larger than its bound', () => {
    const small = new RenderCache(db, () => base, { maxBytes: 1_000 });
    expect(small.body('/big', () => 'y'.repeat(1_000)).toString()).toHaveLength(1_000);
    expect(small.stats()).toEqual({ entries: 0, bytes: 0 });
  });

  it('stays within its count bound', () => {
    const few = new RenderCache(db, () => base, { maxEntries: 3 });
    for (let i = 0; i < 10; i++) few.body(`/k${i}`, () => 'b');
    expect(few.stats().entries).toBe(3);
  });
});
