/**
 * Opens the SQLite database and brings its schema up to date.
 *
 * WAL journal with `synchronous = FULL`: a transaction that returned has reached the disk, so
 * a write the server acknowledged survives the process being killed (and the machine losing
 * power). Each request's change runs in one transaction (see `Store.transaction`).
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { MIGRATIONS } from './migrations.js';

export type Db = Database.Database;

export const MEMORY = ':memory:';

export function openDatabase(path: string): Db {
  if (path !== MEMORY) mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  migrate(db);
  return db;
}

function migrate(db: Db): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > MIGRATIONS.length) {
    throw new Error(
      `database schema version ${current} is newer than this server knows (${MIGRATIONS.length}); upgrade gatehouse`,
    );
  }
  for (let version = current; version < MIGRATIONS.length; version++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[version]!);
      db.pragma(`user_version = ${version + 1}`);
    })();
  }
}
