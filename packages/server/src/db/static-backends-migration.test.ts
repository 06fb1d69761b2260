/**
 * Migration 4: a database written when static backends lived at `/backends/static_address`
 * (kind `backend_static_address`, ids `bkdsa_`) keeps working under the service's own path.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MIGRATIONS } from './migrations.js';
import { startHarness, TEST_BASE_URL, type Harness } from '../testing/harness.js';

let dir: string;
let path: string;
let h: Harness | undefined;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gatehouse-static-migration-'));
  path = join(dir, 'server.db');
});
afterEach(async () => {
  await h?.close();
  h = undefined;
  rmSync(dir, { recursive: true, force: true });
});

/** A file at schema version 3 holding a static address backend, a failover backend listing it and a TCP edge using it. */
function versionThreeFile(): void {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  for (const [version, sql] of MIGRATIONS.slice(0, 3).entries()) {
    db.exec(sql);
    db.pragma(`user_version = ${version + 1}`);
  }
  const insert = db.prepare('INSERT INTO objects (id, kind, parent_id, created_at, data) VALUES (?, ?, NULL, ?, ?)');
  insert.run(
    'bkdsa_old',
    'backend_static_address',
    '2026-01-01T00:00:00.000Z',
    JSON.stringify({ address: 'db.internal:5432', tls: { enabled: true }, metadata: 'gatehouse:v1 {"stack":"default","name":"db","hash":"0000000000000000"}' }),
  );
  insert.run('bkdfo_old', 'backend_failover', '2026-01-01T00:00:01.000Z', JSON.stringify({ backends: ['bkdsa_old'] }));
  insert.run('edgtcp_old', 'tcp_edge', '2026-01-01T00:00:02.000Z', JSON.stringify({ hostports: [], backend: { enabled: true, backend_id: 'bkdsa_old' } }));
  db.close();
}

describe('migration 4 (static backends at /backends/static)', () => {
  it("serves an older file's static address backends at /backends/static with their ids, references and markers", async () => {
    versionThreeFile();
    h = await startHarness({ db: path });
    const list = await h.call('GET', '/backends/static');
    expect(list.status).toBe(200);
    expect(list.body.backends).toEqual([
      expect.objectContaining({
        id: 'bkdsa_old',
        uri: `${TEST_BASE_URL}/backends/static/bkdsa_old`,
        address: 'db.internal:5432',
        tls: { enabled: true },
        metadata: expect.stringContaining('gatehouse:v1'),
      }),
    ]);
    expect((await h.call('GET', '/backends/static/bkdsa_old')).status).toBe(200);
    expect((await h.call('GET', '/backends/static_address')).status).toBe(404);
    // What referenced it still does, and a Ref to it points at the new path.
    const edge = await h.call('GET', '/edges/tcp/edgtcp_old');
    expect(edge.body.backend.backend).toEqual({ id: 'bkdsa_old', uri: `${TEST_BASE_URL}/backends/static/bkdsa_old` });
    expect((await h.call('DELETE', '/backends/static/bkdsa_old')).body.error_code).toBe('resource_in_use');
    const patched = await h.call('PATCH', '/backends/static/bkdsa_old', { tls: {} });
    expect(patched.body).toMatchObject({ id: 'bkdsa_old', tls: { enabled: false } });
    // New ones get the service's prefix.
    const created = await h.call('POST', '/backends/static', { address: 'cache.internal:6379', tls: {} });
    expect(created.body).toMatchObject({ id: expect.stringMatching(/^bkdsc_/), tls: { enabled: false } });
  });
});
