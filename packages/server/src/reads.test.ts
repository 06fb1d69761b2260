/**
 * Reads: no answer is ever older than the last acknowledged write, whoever made it (this
 * server, another one on the same file, another process), and pages read as the service's do.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, TEST_BASE_URL, type CallResult, type Harness } from './testing/harness.js';

let dir: string;
let dbPath: string;
let h: Harness;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gatehouse-reads-'));
  dbPath = join(dir, 'server.db');
  h = await startHarness({ db: dbPath, delivery: false });
});
afterEach(async () => {
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

const ids = (res: { body: { ip_policies: { id: string }[] } }) => res.body.ip_policies.map((p) => p.id);

describe('reads: writes of this process', () => {
  it('answers the same bytes and content type every time', async () => {
    const id = (await h.call('POST', '/ip_policies', { description: 'd' })).body.id;
    const first = await h.app.inject({ method: 'GET', url: `/ip_policies/${id}`, headers: authHeaders() });
    const second = await h.app.inject({ method: 'GET', url: `/ip_policies/${id}`, headers: authHeaders() });
    expect(second.body).toBe(first.body);
    expect(second.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(first.headers['content-type']).toBe('application/json; charset=utf-8');
  });

  it('shows a PATCH, a create and a delete on the very next GET', async () => {
    const id = (await h.call('POST', '/ip_policies', { description: 'before' })).body.id;
    expect((await h.call('GET', `/ip_policies/${id}`)).body.description).toBe('before');
    expect(ids(await h.call('GET', '/ip_policies'))).toEqual([id]);

    await h.call('PATCH', `/ip_policies/${id}`, { description: 'after' });
    expect((await h.call('GET', `/ip_policies/${id}`)).body.description).toBe('after');
    expect((await h.call('GET', '/ip_policies')).body.ip_policies[0].description).toBe('after');

    const second = (await h.call('POST', '/ip_policies', {})).body.id;
    expect(ids(await h.call('GET', '/ip_policies'))).toEqual([second, id]);

    expect((await h.call('DELETE', `/ip_policies/${id}`)).status).toBe(204);
    expect((await h.call('GET', `/ip_policies/${id}`)).status).toBe(404);
    expect(ids(await h.call('GET', '/ip_policies'))).toEqual([second]);
  });

  it('finds a module set after a GET that answered 404', async () => {
    const edge = (await h.call('POST', '/edges/https', {})).body.id;
    const route = (await h.call('POST', `/edges/https/${edge}/routes`, { match_type: 'path_prefix', match: '/' })).body.id;
    const path = `/edges/https/${edge}/routes/${route}/compression`;
    expect((await h.call('GET', path)).status).toBe(404);
    expect((await h.call('PUT', path, { enabled: false })).status).toBe(200);
    expect((await h.call('GET', path)).body).toEqual({ enabled: false });
  });

  it("shows a child's write in its parent's rendering: routes and route modules inside their edge", async () => {
    const edge = (await h.call('POST', '/edges/https', {})).body.id;
    expect((await h.call('GET', `/edges/https/${edge}`)).body.routes).toEqual([]);
    expect((await h.call('GET', '/edges/https')).body.https_edges[0].routes).toEqual([]);

    const route = (await h.call('POST', `/edges/https/${edge}/routes`, { match_type: 'path_prefix', match: '/' })).body.id;
    const routesOf = async () => (await h.call('GET', `/edges/https/${edge}`)).body.routes;
    expect((await routesOf()).map((r: { id: string }) => r.id)).toEqual([route]);
    expect((await h.call('GET', '/edges/https')).body.https_edges[0].routes.map((r: { id: string }) => r.id)).toEqual([route]);

    // A route module, written by its own PUT, shows inside the route inside the edge.
    expect((await routesOf())[0].compression).toBeNull();
    await h.call('PUT', `/edges/https/${edge}/routes/${route}/compression`, { enabled: true });
    expect((await routesOf())[0].compression).toEqual({ enabled: true });
    expect((await h.call('GET', `/edges/https/${edge}/routes/${route}`)).body.compression).toEqual({ enabled: true });

    await h.call('DELETE', `/edges/https/${edge}/routes/${route}/compression`);
    expect((await routesOf())[0].compression).toBeNull();

    await h.call('PATCH', `/edges/https/${edge}/routes/${route}`, { match: '/api' });
    expect((await routesOf())[0].match).toBe('/api');

    await h.call('DELETE', `/edges/https/${edge}/routes/${route}`);
    expect(await routesOf()).toEqual([]);
  });

  it('answers 404 for the routes of a deleted edge, though they were read before', async () => {
    const edge = (await h.call('POST', '/edges/https', {})).body.id;
    const route = (await h.call('POST', `/edges/https/${edge}/routes`, { match_type: 'path_prefix', match: '/' })).body.id;
    expect((await h.call('GET', `/edges/https/${edge}/routes/${route}`)).status).toBe(200);
    expect((await h.call('GET', `/edges/https/${edge}`)).status).toBe(200);
    await h.call('DELETE', `/edges/https/${edge}`);
    expect((await h.call('GET', `/edges/https/${edge}/routes/${route}`)).status).toBe(404);
    expect((await h.call('GET', `/edges/https/${edge}`)).status).toBe(404);
  });
});

describe('reads: writes of another connection to the same database file', () => {
  it("shows another server's create, update and delete on the next GET", async () => {
    const other = await startHarness({ db: dbPath, delivery: false });
    try {
      const id = (await other.call('POST', '/ip_policies', { description: 'one' })).body.id;
      expect((await h.call('GET', `/ip_policies/${id}`)).body.description).toBe('one');
      expect(ids(await h.call('GET', '/ip_policies'))).toEqual([id]);

      await other.call('PATCH', `/ip_policies/${id}`, { description: 'two' });
      expect((await h.call('GET', `/ip_policies/${id}`)).body.description).toBe('two');
      expect((await h.call('GET', '/ip_policies')).body.ip_policies[0].description).toBe('two');

      const second = (await other.call('POST', '/ip_policies', {})).body.id;
      expect(ids(await h.call('GET', '/ip_policies'))).toEqual([second, id]);

      await other.call('DELETE', `/ip_policies/${id}`);
      expect((await h.call('GET', `/ip_policies/${id}`)).status).toBe(404);
      expect(ids(await h.call('GET', '/ip_policies'))).toEqual([second]);
    } finally {
      await other.close();
    }
  });

  it('shows a change committed by any connection, not only through a Store', async () => {
    const id = (await h.call('POST', '/ip_policies', { description: 'stored' })).body.id;
    expect((await h.call('GET', `/ip_policies/${id}`)).body.description).toBe('stored');
    const raw = new Database(dbPath);
    try {
      raw.prepare("UPDATE objects SET data = json_set(data, '$.description', 'edited') WHERE id = ?").run(id);
    } finally {
      raw.close();
    }
    expect((await h.call('GET', `/ip_policies/${id}`)).body.description).toBe('edited');
  });

  it('shows a change committed by another process', async () => {
    const id = (await h.call('POST', '/ip_policies', { description: 'stored' })).body.id;
    expect((await h.call('GET', '/ip_policies')).body.ip_policies[0].description).toBe('stored');
    const sqlite = createRequire(import.meta.url).resolve('better-sqlite3');
    const script = `
      const db = new (require(process.argv[1]))(process.argv[2]);
      db.prepare("UPDATE objects SET data = json_set(data, '$.description', 'from elsewhere') WHERE id = ?").run(process.argv[3]);
      db.close();`;
    execFileSync(process.execPath, ['-e', script, sqlite, dbPath, id]);
    expect((await h.call('GET', '/ip_policies')).body.ip_policies[0].description).toBe('from elsewhere');
  });
});

describe('reads: pagination', () => {
  it('pages newest first with before_id, limit and next_page_uri, the same every time', async () => {
    const created: string[] = [];
    for (let i = 0; i < 5; i++) created.push((await h.call('POST', '/ip_policies', { description: `p${i}` })).body.id);
    const newestFirst = [...created].reverse();

    const walk = async () => {
      const seen: string[] = [];
      const uris: (string | null)[] = [];
      let url: string | null = '/ip_policies?limit=2';
      while (url !== null) {
        const res: CallResult = await h.call('GET', url);
        expect(res.status).toBe(200);
        expect(res.body.uri).toBe(`${TEST_BASE_URL}/ip_policies`);
        seen.push(...ids(res));
        uris.push(res.body.next_page_uri);
        url = res.body.next_page_uri === null ? null : res.body.next_page_uri.slice(TEST_BASE_URL.length);
      }
      return { seen, uris };
    };
    const cold = await walk();
    expect(cold.seen).toEqual(newestFirst);
    expect(cold.uris).toEqual([
      `${TEST_BASE_URL}/ip_policies?before_id=${newestFirst[1]}&limit=2`,
      `${TEST_BASE_URL}/ip_policies?before_id=${newestFirst[3]}&limit=2`,
      null,
    ]);
    expect(await walk()).toEqual(cold);

    // A new object heads the first page; a deleted one's cursor still pages on.
    const newest = (await h.call('POST', '/ip_policies', {})).body.id;
    expect(ids(await h.call('GET', '/ip_policies?limit=2'))).toEqual([newest, newestFirst[0]]);
    await h.call('DELETE', `/ip_policies/${newestFirst[1]}`);
    expect(ids(await h.call('GET', `/ip_policies?before_id=${newestFirst[1]}&limit=2`))).toEqual(newestFirst.slice(2, 4));
    expect(ids(await h.call('GET', '/ip_policies?limit=100'))).toEqual([newest, newestFirst[0], ...newestFirst.slice(2)]);
  });

  it('still rejects a before_id that names no object of the kind, every time', async () => {
    for (let i = 0; i < 2; i++) {
      const res = await h.call('GET', '/ip_policies?before_id=ipp_00000000000000000000000000');
      expect(res.status).toBe(400);
      expect(res.body.details.field).toBe('before_id');
    }
  });
});

function authHeaders() {
  return { authorization: 'Bearer test-key-0123456789', 'service-version': '2' };
}
