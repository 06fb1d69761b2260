/**
 * The WAL's fsync thread's life: it must not keep a process alive once nothing waits for an
 * fsync (a CLI's embedded server that is never closed would hang), and closing the group
 * commit ends it and its descriptor of the WAL. What it makes durable, and when, is tested in
 * group-commit-fsync.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readlinkSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from './database.js';
import { GroupCommit } from './group-commit.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gatehouse-wal-syncer-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** This process's open descriptors of `path`. */
const descriptorsOf = (path: string) =>
  readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === path;
    } catch {
      return false; // closed meanwhile (readdir's own descriptor)
    }
  }).length;

describe('the WAL fsync thread', () => {
  it('lets the process exit once its writes are durable, though nothing closed it', () => {
    // The built server (npm test builds first): a child process of its own must exit.
    const dist = (file: string) => JSON.stringify(pathToFileURL(join(import.meta.dirname, '../../dist/db', file)).href);
    const script = `
      import { openDatabase } from ${dist('database.js')};
      import { GroupCommit } from ${dist('group-commit.js')};
      const db = openDatabase(process.argv[1]);
      const group = new GroupCommit(db);
      await group.run(() => db.exec('CREATE TABLE t (v TEXT)'));
      await group.run(() => db.prepare('INSERT INTO t (v) VALUES (?)').run('durable'));
      console.log('written', group.stats.syncs);`;
    const output = execFileSync(process.execPath, ['--input-type=module', '-e', script, join(dir, 'server.db')], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(output.trim()).toBe('written 2');
  });

  it.skipIf(process.platform !== 'linux')('closes its descriptor of the WAL when the group commit closes', async () => {
    const db = openDatabase(join(dir, 'server.db'));
    try {
      const wal = join(dir, 'server.db-wal');
      db.exec('CREATE TABLE t (v TEXT)');
      const sqlites = descriptorsOf(wal);
      const group = new GroupCommit(db);
      await group.run(() => db.prepare('INSERT INTO t (v) VALUES (?)').run('a'));
      expect(descriptorsOf(wal)).toBe(sqlites + 1);
      await group.close();
      expect(descriptorsOf(wal)).toBe(sqlites);
    } finally {
      db.close();
    }
  });

  it('syncs the WAL SQLite writes when the database file is a symbolic link', async () => {
    // SQLite resolves the link and keeps its WAL beside the file the link points to.
    mkdirSync(join(dir, 'real'));
    openDatabase(join(dir, 'real', 'server.db')).close();
    symlinkSync(join(dir, 'real', 'server.db'), join(dir, 'link.db'));
    const db = openDatabase(join(dir, 'link.db'));
    try {
      const group = new GroupCommit(db);
      await group.run(() => db.exec('CREATE TABLE t (v TEXT)'));
      await group.run(() => db.prepare('INSERT INTO t (v) VALUES (?)').run('through the link'));
      expect(group.syncLost).toBeUndefined();
      expect(group.stats.syncs).toBe(2);
      await group.close();
    } finally {
      db.close();
    }
  });
});
