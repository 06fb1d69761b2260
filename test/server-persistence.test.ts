/**
 * Durability of the built `gatehouse serve`: every write that got its 2xx survives SIGKILL
 * and a restart on the same file; SIGTERM lets an in-flight request finish, exits 0 and
 * closes the database cleanly (its WAL checkpointed and removed).
 */
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { apiHeaders, startServe, tempDir, type ServeProcess } from './helpers/cli.js';

const KEY = 'persistence-test-key-0123';

// Each test starts real processes (a few seconds each on a busy machine): a generous ceiling.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 60_000 });
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function serve(db: string): Promise<ServeProcess> {
  const server = await startServe(['--port', '0', '--db', db, '--api-key', KEY]);
  cleanups.push(() => server.stop('SIGKILL'));
  return server;
}

function tmpDb(): string {
  const dir = tempDir();
  cleanups.push(dir.cleanup);
  return join(dir.path, 'server.db');
}

async function api(server: ServeProcess, method: string, path: string, body?: unknown) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: apiHeaders(KEY, body !== undefined),
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text) };
}

describe('acknowledged writes survive SIGKILL', () => {
  it('finds every created, updated and deleted object as last acknowledged', async () => {
    const db = tmpDb();
    const first = await serve(db);

    // Concurrent creates, then rules under them, then updates and deletes.
    const policies = await Promise.all(Array.from({ length: 25 }, (_, i) => api(first, 'POST', '/ip_policies', { description: `policy ${i}` })));
    for (const p of policies) expect(p.status).toBe(201);
    const rules = await Promise.all(
      policies.slice(0, 10).map((p, i) => api(first, 'POST', '/ip_policy_rules', { ip_policy_id: p.body.id, cidr: `10.${i}.0.0/16`, action: 'allow' })),
    );
    for (const r of rules) expect(r.status).toBe(201);

    const expected = new Map<string, { path: string; body: unknown }>();
    for (const p of policies) expected.set(p.body.id, { path: `/ip_policies/${p.body.id}`, body: p.body });
    for (const r of rules) expected.set(r.body.id, { path: `/ip_policy_rules/${r.body.id}`, body: r.body });

    for (const p of policies.slice(10, 15)) {
      const updated = await api(first, 'PATCH', `/ip_policies/${p.body.id}`, { description: 'updated', metadata: 'v2' });
      expect(updated.status).toBe(200);
      expected.set(p.body.id, { path: `/ip_policies/${p.body.id}`, body: updated.body });
    }
    const deleted: string[] = [];
    for (const p of policies.slice(20, 25)) {
      expect((await api(first, 'DELETE', `/ip_policies/${p.body.id}`)).status).toBe(204);
      expected.delete(p.body.id);
      deleted.push(p.body.id);
    }
    const listBefore = await api(first, 'GET', '/ip_policies');

    const killed = await first.stop('SIGKILL');
    expect(killed.signal).toBe('SIGKILL');

    const second = await serve(db);
    expect(second.generatedKey).toBeUndefined();
    for (const [id, { path, body }] of expected) {
      const res = await api(second, 'GET', path);
      expect(res.status, id).toBe(200);
      // uri fields carry the new port; everything else is as acknowledged.
      expect(rebased(res.body, second.url, first.url)).toEqual(body);
    }
    for (const id of deleted) expect((await api(second, 'GET', `/ip_policies/${id}`)).status).toBe(404);
    const listAfter = await api(second, 'GET', '/ip_policies');
    expect(listAfter.body.ip_policies.map((p: { id: string }) => p.id)).toEqual(listBefore.body.ip_policies.map((p: { id: string }) => p.id));
  });
});

describe('acknowledged writes survive SIGKILL in the middle of concurrent writes', () => {
  it('finds every write that was answered 2xx before the kill, whichever transaction held it', async () => {
    const db = tmpDb();
    const first = await serve(db);
    const acknowledged: string[] = [];
    let killed = false;
    // Eight clients create policies back to back; the server is killed once enough are
    // acknowledged, with writes in flight.
    const writer = async (n: number) => {
      for (let i = 0; !killed; i++) {
        try {
          const res = await api(first, 'POST', '/ip_policies', { description: `writer ${n} #${i}` });
          if (res.status === 201) acknowledged.push(res.body.id);
          else throw new Error(`unexpected ${res.status}`);
        } catch (error) {
          if (!killed) throw error;
        }
      }
    };
    const writers = Array.from({ length: 8 }, (_, n) => writer(n));
    while (acknowledged.length < 200) await new Promise((resolve) => setTimeout(resolve, 5));
    killed = true;
    const exit = await first.stop('SIGKILL');
    expect(exit.signal).toBe('SIGKILL');
    await Promise.all(writers);
    const total = acknowledged.length;
    expect(total).toBeGreaterThanOrEqual(200);

    const second = await serve(db);
    const stored = new Set<string>();
    for (let page = await api(second, 'GET', '/ip_policies?limit=100'); ;) {
      for (const p of page.body.ip_policies as { id: string }[]) stored.add(p.id);
      if (!page.body.next_page_uri) break;
      page = await api(second, 'GET', new URL(page.body.next_page_uri).pathname + new URL(page.body.next_page_uri).search);
    }
    expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
  });
});

/** The object with its absolute URLs moved from one server's address to another's. */
function rebased(value: unknown, from: string, to: string): unknown {
  return JSON.parse(JSON.stringify(value).split(from).join(to));
}

describe('SIGTERM shuts down gracefully', () => {
  it('finishes the request in flight, exits 0 and closes the database', async () => {
    const db = tmpDb();
    const server = await serve(db);
    const { hostname, port } = new URL(server.url);
    const body = JSON.stringify({ description: 'in flight during SIGTERM' });
    const half = Math.floor(body.length / 2);

    // Send the head of a request with `Expect: 100-continue`: the `100 Continue` proves the
    // server has the request in hand. Then SIGTERM, then the body.
    const socket = connect(Number(port), hostname);
    let received = '';
    const gotContinue = new Promise<void>((resolve) =>
      socket.on('data', (chunk) => {
        received += chunk.toString();
        if (received.includes('100 Continue')) resolve();
      }),
    );
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.write(
      [
        'POST /ip_policies HTTP/1.1',
        `Host: ${hostname}:${port}`,
        `Authorization: Bearer ${KEY}`,
        'Service-Version: 2',
        'Content-Type: application/json',
        `Content-Length: ${Buffer.byteLength(body)}`,
        'Expect: 100-continue',
        '',
        '',
      ].join('\r\n'),
    );
    await gotContinue;
    socket.write(body.slice(0, half));

    server.child.kill('SIGTERM');
    await server.waitForOutput(/SIGTERM: finishing in-flight requests/);
    expect(server.child.exitCode).toBeNull();
    socket.write(body.slice(half));

    const exit = await server.exited;
    await closed;
    const response = received.slice(received.indexOf('\r\n\r\n') + 4);
    expect(response).toMatch(/^HTTP\/1\.1 201 /);
    const created = JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4)) as { id: string };
    expect(exit).toEqual({ code: 0, signal: null });
    expect(existsSync(`${db}-wal`)).toBe(false);

    const again = await serve(db);
    const res = await api(again, 'GET', `/ip_policies/${created.id}`);
    expect(res.status).toBe(200);
    expect(res.body.description).toBe('in flight during SIGTERM');
  });

  it('SIGINT does the same for an idle server', async () => {
    const db = tmpDb();
    const server = await serve(db);
    expect((await api(server, 'POST', '/ip_policies', {})).status).toBe(201);
    expect(await server.stop('SIGINT')).toEqual({ code: 0, signal: null });
    expect(existsSync(`${db}-wal`)).toBe(false);
  });
});
