import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AppOptions } from '../app.js';
import { startHarness, type Harness } from '../testing/harness.js';

let dir: string;
const open: Harness[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gatehouse-delivery-'));
});
afterEach(async () => {
  for (const h of open.splice(0)) await h.close();
  rmSync(dir, { recursive: true, force: true });
});

async function harness(options: AppOptions = {}): Promise<Harness> {
  const h = await startHarness(options);
  open.push(h);
  return h;
}

const ROLE = { role: { role_arn: 'arn:aws:iam::123456789012:role/events' } };
const target = (name: string) => ({
  kinesis: { stream_arn: `arn:aws:kinesis:us-east-1:123456789012:stream/${name}`, auth: ROLE },
});

async function destination(h: Harness, name: string): Promise<string> {
  return (await h.call('POST', '/event_destinations', { target: target(name) })).body.id;
}

async function subscription(h: Harness, types: string[], destinationIds: string[]): Promise<string> {
  const res = await h.call('POST', '/event_subscriptions', {
    sources: types.map((type) => ({ type })),
    destination_ids: destinationIds,
  });
  expect(res.status).toBe(201);
  return res.body.id;
}

const deliveries = async (h: Harness, query = '') => (await h.call('GET', `/_admin/deliveries${query}`)).body;

const sinkLines = (path: string) =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));

describe('event delivery', () => {
  it('delivers an event after the write response that recorded it, no poll needed', async () => {
    // No poll during the test: only the passes that write responses ask for.
    const h = await harness({ delivery: { pollMs: 3_600_000 } });
    await h.app.deliverer!.flush();
    // With a subscriber, the pass after the write delivers its event, no poll needed.
    const d = await destination(h, 'a');
    await subscription(h, ['ip_policy_created.v0'], [d]);
    const { body: policy } = await h.call('POST', '/ip_policies', {});
    await vi.waitFor(async () => expect((await deliveries(h)).deliveries).toHaveLength(1), { timeout: 30_000 });
    const created = h.app.audit.read().find((e) => e.event_type === 'ip_policy_created.v0' && (e.object as { id: string }).id === policy.id)!;
    expect((await deliveries(h)).deliveries[0]).toMatchObject({ event_id: created.event_id, outcome: 'delivered' });
    expect((await deliveries(h)).pending).toBe(0);
  });

  it('records a delivery per destination after an IP policy change, for a subscription to ip_policy_updated.v0', async () => {
    const h = await harness();
    const [a, b] = [await destination(h, 'a'), await destination(h, 'b')];
    const sub = await subscription(h, ['ip_policy_updated.v0'], [a, b]);
    const { body: policy } = await h.call('POST', '/ip_policies', {});
    await h.call('PATCH', `/ip_policies/${policy.id}`, { description: 'changed' });
    await h.app.deliverer!.flush();

    const updated = h.app.audit.read().find((e) => e.event_type === 'ip_policy_updated.v0')!;
    const body = await deliveries(h);
    expect(body.pending).toBe(0);
    expect(body.next_after).toBeNull();
    expect(body.deliveries).toEqual(
      [a, b].map((destinationId, i) => ({
        seq: i + 1,
        event_id: updated.event_id,
        event_type: 'ip_policy_updated.v0',
        subscription_id: sub,
        destination_id: destinationId,
        attempt: 1,
        outcome: 'delivered',
        detail: null,
        recorded_at: expect.any(String),
      })),
    );
    // ip_policy_created.v0 and the configuration's own events are not subscribed to.
    expect((await deliveries(h, `?destination_id=${b}`)).deliveries).toHaveLength(1);
    expect((await deliveries(h, '?limit=1')).next_after).toBe(1);
    expect((await deliveries(h, '?after=1')).deliveries.map((d: { seq: number }) => d.seq)).toEqual([2]);
  });

  it('appends each delivery to the JSON-lines sink with the event exactly as recorded, in order', async () => {
    const sinkPath = join(dir, 'events', 'sink.jsonl');
    const h = await harness({ delivery: { sinkPath } });
    const d = await destination(h, 'a');
    const sub = await subscription(h, ['ip_policy_created.v0', 'ip_policy_updated.v0', 'ip_policy_deleted.v0'], [d]);
    const { body: policy } = await h.call('POST', '/ip_policies', {});
    await h.call('PATCH', `/ip_policies/${policy.id}`, { metadata: 'm' });
    await h.call('DELETE', `/ip_policies/${policy.id}`);
    await h.app.deliverer!.flush();

    const recorded = h.app.audit.read().filter((e) => e.event_type.startsWith('ip_policy_'));
    const lines = sinkLines(sinkPath);
    expect(lines).toEqual(recorded.map((event) => ({ destination_id: d, subscription_id: sub, attempt: 1, event })));
  });

  it('refuses an empty sink path at start, rather than failing every delivery later', async () => {
    await expect(harness({ delivery: { sinkPath: '' } })).rejects.toThrow('the event sink path is empty');
  });

  it('delivers an event committed before the app closed once it is reopened on the same database', async () => {
    const db = join(dir, 'server.db');
    const sinkPath = join(dir, 'sink.jsonl');
    const first = await harness({ db, delivery: false });
    const d = await destination(first, 'a');
    const sub = await subscription(first, ['ip_policy_updated.v0'], [d]);
    const { body: policy } = await first.call('POST', '/ip_policies', {});
    await first.call('PATCH', `/ip_policies/${policy.id}`, { description: 'before the crash' });
    const recorded = first.app.audit.read().find((e) => e.event_type === 'ip_policy_updated.v0')!;
    expect(await deliveries(first)).toEqual({ deliveries: [], pending: 1, next_after: null });
    await first.close();
    open.splice(open.indexOf(first), 1);

    const second = await harness({ db, delivery: { sinkPath } });
    await second.app.deliverer!.flush();
    const body = await deliveries(second);
    expect(body.pending).toBe(0);
    expect(body.deliveries).toMatchObject([{ event_id: recorded.event_id, subscription_id: sub, destination_id: d, outcome: 'delivered' }]);
    const line = readFileSync(sinkPath, 'utf8');
    expect(JSON.parse(line).event).toEqual(recorded);
    const stored = second.app.db.prepare('SELECT body FROM audit_events WHERE event_id = ?').get(recorded.event_id) as { body: string };
    expect(line).toContain(`"event":${stored.body}}`);
  });

  it('queues for the subscriptions live at commit, and drops deliveries to a destination deleted since', async () => {
    const db = join(dir, 'drop.db');
    const first = await harness({ db, delivery: false });
    const k = await destination(first, 'kept');
    const g = await destination(first, 'gone');
    await subscription(first, ['ip_policy_created.v0'], [k, g]);
    await first.call('POST', '/ip_policies', {});
    await first.call('DELETE', `/event_destinations/${g}`);
    // A subscription created after the event does not receive it.
    await subscription(first, ['ip_policy_created.v0'], [k]);
    expect((await deliveries(first)).pending).toBe(2);
    await first.close();
    open.pop();
    const second = await harness({ db });
    await second.app.deliverer!.flush();
    const outcomes = (await deliveries(second)).deliveries.map((r: { destination_id: string; outcome: string; detail: string | null }) => [
      r.destination_id,
      r.outcome,
      r.detail,
    ]);
    expect(outcomes).toEqual([
      [k, 'delivered', null],
      [g, 'dropped', 'the event destination was deleted before delivery'],
    ]);
  });

  it('records a failed attempt, holds later events for that destination, and delivers them in order after restart', async () => {
    const db = join(dir, 'retry.db');
    const notADirectory = join(dir, 'file');
    writeFileSync(notADirectory, '');
    const first = await harness({ db, delivery: { sinkPath: join(notADirectory, 'sink.jsonl'), backoffMs: 0 } });
    const d = await destination(first, 'a');
    await subscription(first, ['ip_policy_created.v0'], [d]);
    await first.call('POST', '/ip_policies', { description: 'one' });
    await first.call('POST', '/ip_policies', { description: 'two' });
    await first.app.deliverer!.flush();
    const failed = await deliveries(first);
    expect(failed.pending).toBe(2);
    expect(failed.deliveries.length).toBeGreaterThan(0);
    for (const record of failed.deliveries) {
      expect(record).toMatchObject({ outcome: 'failed', detail: expect.stringContaining('sink write failed') });
    }
    // Only the oldest event was attempted: the second waits behind it.
    expect(new Set(failed.deliveries.map((r: { event_id: string }) => r.event_id)).size).toBe(1);
    await first.close();
    open.pop();

    const sinkPath = join(dir, 'sink.jsonl');
    const second = await harness({ db, delivery: { sinkPath } });
    await second.app.deliverer!.flush();
    const lines = sinkLines(sinkPath);
    expect(lines.map((l) => l.event.object.description)).toEqual(['one', 'two']);
    expect(lines[0].attempt).toBeGreaterThan(1);
    expect((await deliveries(second)).pending).toBe(0);
  });

  it('records its deliveries durably before the pass ends', async () => {
    const db = join(dir, 'durable.db');
    const h = await harness({ db });
    const d = await destination(h, 'a');
    await subscription(h, ['ip_policy_created.v0'], [d]);
    await h.app.deliverer!.flush();
    await Promise.all([h.call('POST', '/ip_policies', {}), h.call('POST', '/ip_policies', {})]);
    await h.app.deliverer!.flush();
    const other = new Database(db, { readonly: true });
    try {
      const rows = other.prepare('SELECT outcome FROM event_deliveries WHERE destination_id = ?').pluck().all(d);
      expect(rows).toEqual(['delivered', 'delivered']);
    } finally {
      other.close();
    }
  });

  it('keeps the admin route behind the API key and rejects unknown parameters', async () => {
    const h = await harness();
    const anonymous = await h.app.inject({ method: 'GET', url: '/_admin/deliveries', headers: { 'service-version': '2' } });
    expect(anonymous.statusCode).toBe(401);
    expect((await h.call('GET', '/_admin/deliveries?limit=0')).status).toBe(400);
    expect((await h.call('GET', '/_admin/deliveries?sort=desc')).body.error_code).toBe('unknown_query_parameter');
  });
});
