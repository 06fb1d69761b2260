/**
 * Opens the SQLite database and brings its schema up to date.
 *
 * WAL journal with `synchronous = FULL`: a transaction that returned has reached the disk, so
 * a write the server acknowledged survives the process being killed (and the machine losing
 * power). Each request's change runs in one transaction (see `Store.transaction`).
 */
import { statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { makeDirectory } from '@gatehouse/schemas/runtime';
import { MIGRATIONS } from './migrations.js';

export type Db = Database.Database;

export const MEMORY = ':memory:';

/**
 * Opens `path` (made with its directory when missing), or throws an error that names the file
 * and keeps the cause's `code`: `serve --db` then says which file is not a database, cannot be
 * made or is newer than this server, rather than SQLite's bare "file is not a database".
 */
export function openDatabase(path: string): Db {
  if (path === MEMORY) return prepare(new Database(path));
  // SQLite opens "" as a temporary database, deleted on close: acknowledged writes would vanish.
  if (path.trim() === '') throw new Error(`the database path is empty; name a file, or ${MEMORY} for a database that is not kept`);
  let db: Db | undefined;
  try {
    // SQLite says only "unable to open database file" of a directory (`--db ./data`, say).
    if (isDirectory(path)) {
      throw Object.assign(new Error(`it is a directory; name a file in it, such as ${join(path, 'server.db')}`), { code: 'EISDIR' });
    }
    makeDirectory(dirname(path));
    db = new Database(path);
    return prepare(db);
  } catch (error) {
    db?.close();
    const cause = error as NodeJS.ErrnoException;
    throw Object.assign(new Error(`cannot open the database ${path}: ${cause.message}`, { cause }), cause.code === undefined ? {} : { code: cause.code });
  }
}

/** True when `path` names a directory; false for anything else, what cannot be looked at included. */
function isDirectory(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}

function prepare(db: Db): Db {
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  migrate(db);
  return db;
}

/**
 * Runs the migrations the file lacks, each in one `BEGIN IMMEDIATE` transaction that reads
 * the version again (another process opening the same file may have run it meanwhile). Foreign
 * keys are off while they run, as SQLite's procedure for rebuilding a table asks (migration 3
 * drops and recreates a table that `event_outbox` references), and are checked before each
 * commit: a migration that would leave a dangling reference fails and changes nothing.
 */
function migrate(db: Db): void {
  const version = (): number => db.pragma('user_version', { simple: true }) as number;
  const current = version();
  if (current > MIGRATIONS.length) {
    throw new Error(`database schema version ${current} is newer than this server knows (${MIGRATIONS.length}); upgrade gatehouse`);
  }
  if (current === MIGRATIONS.length) return;
  db.pragma('foreign_keys = OFF');
  try {
    const step = db.transaction((): boolean => {
      const at = version();
      if (at >= MIGRATIONS.length) return false;
      db.exec(MIGRATIONS[at]!);
      const dangling = db.pragma('foreign_key_check') as unknown[];
      if (dangling.length > 0) {
        throw new Error(`database migration ${at + 1} would leave ${dangling.length} dangling references; nothing was changed`);
      }
      db.pragma(`user_version = ${at + 1}`);
      return true;
    });
    while (step.immediate()) {
      // one migration per transaction
    }
  } finally {
    db.pragma('foreign_keys = ON');
  }
}
