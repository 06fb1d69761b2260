/**
 * The EventSubscription descriptor (sources and destinations as sets, references, calls) and
 * the validate-time source checks it shares with the server, each at its file:line:col.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { validateManifests } from '../engine.js';
import { canonicalJson } from '../identity/canonical-json.js';
import { descriptor } from './index.js';

const d = descriptor('EventSubscription');

describe('EventSubscription', () => {
  test('sources compare as a set by type, fields as a set; source uris are derived and dropped', () => {
    const desired = d.fromManifest(
      {
        description: 'audit',
        sources: [
          { type: 'tcp_connection_closed.v0', fields: ['conn.bytes_out', 'conn.bytes_in'], filter: 'conn.server_port == 22' },
          { type: 'ip_policy_updated.v0' },
        ],
        destinations: ['EventDestination/audit-stream'],
      },
      's',
    );
    const live = d.fromLive(
      {
        id: 'esb_1',
        uri: 'u',
        created_at: 't',
        description: 'audit',
        metadata: '',
        sources: [
          { type: 'ip_policy_updated.v0', uri: 'u/sources/ip_policy_updated.v0' },
          { type: 'tcp_connection_closed.v0', uri: 'u/x', fields: ['conn.bytes_in', 'conn.bytes_out'], filter: 'conn.server_port == 22' },
        ],
        destinations: [{ id: 'ed_1', uri: 'u/ed_1' }],
      },
      undefined,
    );
    expect(live.destinations).toEqual(['ed_1']);
    // Destinations are references: plan canonicalizes ed_1 to the desired address.
    expect(canonicalJson({ ...live, destinations: ['EventDestination/audit-stream'] })).toBe(canonicalJson(desired));
    expect(d.refs).toEqual([{ pattern: ['destinations', '*'], kind: 'EventDestination', set: true }]);
  });

  test('create resolves destinations to ids; update sends only what changed', () => {
    const ids: Record<string, string> = { 'EventDestination/audit-stream': 'ed_1', 'EventDestination/other': 'ed_2' };
    const ctx = { resolve: (t: string) => ids[t] ?? t, metadata: 'MARK' };
    const normal = d.fromManifest({ sources: [{ type: 'ip_policy_created.v0' }], destinations: ['EventDestination/audit-stream', 'ed_9'] }, 's');
    expect(d.calls.create(normal, ctx)).toEqual([
      {
        method: 'POST',
        path: '/event_subscriptions',
        body: { description: '', metadata: 'MARK', sources: [{ type: 'ip_policy_created.v0' }], destination_ids: ['ed_1', 'ed_9'] },
      },
    ]);
    const after = d.fromManifest({ sources: [{ type: 'ip_policy_created.v0' }], destinations: ['EventDestination/other'] }, 's');
    expect(d.calls.update(normal, after, ['destinations'], { ...ctx, id: 'esb_1' })).toEqual([
      { method: 'PATCH', path: '/event_subscriptions/esb_1', body: { metadata: 'MARK', destination_ids: ['ed_2'] } },
    ]);
    expect(d.calls.delete(after, { ...ctx, id: 'esb_1' })).toEqual([{ method: 'DELETE', path: '/event_subscriptions/esb_1' }]);
  });
});

describe('validate: event subscription sources, at their file:line:col', () => {
  const problemsOf = async (yaml: string) => {
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-events-'));
    writeFileSync(join(dir, 'm.yaml'), yaml);
    return (await validateManifests({ paths: [dir] })).map((p) => ({ code: p.code, at: `${p.at!.line}:${p.at!.col}`, message: p.message }));
  };
  const destination = `kind: EventDestination
name: audit-stream
spec:
  target:
    kinesis:
      stream_arn: arn:aws:kinesis:us-east-1:123456789012:stream/audit
      auth: {role: {role_arn: "arn:aws:iam::123456789012:role/events"}}
---
`;
  const subscription = (sources: string) => `${destination}kind: EventSubscription
name: audit
spec:
  destinations: [audit-stream]
  sources:
${sources}`;

  test('valid sources, audit and traffic, have no problems', async () => {
    expect(
      await problemsOf(
        subscription(`    - type: ip_policy_updated.v0
    - type: http_request_complete.v0
      fields: [conn.client_ip, http.response.status_code]
      filter: conn.server_port == 443 && conn.server_name.endsWith(".example.com")
`),
      ),
    ).toEqual([]);
  });

  test('an unknown event type, with the suffix hint', async () => {
    const [p, ...rest] = await problemsOf(subscription('    - type: ip_policy_updated\n'));
    expect(rest).toEqual([]);
    expect(p).toMatchObject({ code: 'event_source_invalid', at: '14:13' });
    expect(p!.message).toContain("sources[0].type: 'ip_policy_updated' is not a known event type (did you mean 'ip_policy_updated.v0'?)");
  });

  test('a field the traffic event type does not have', async () => {
    const found = await problemsOf(subscription('    - type: tcp_connection_closed.v0\n      fields: [conn.bytes_in, http.request.method]\n'));
    expect(found).toEqual([
      expect.objectContaining({
        code: 'event_source_invalid',
        at: '15:31',
        message: expect.stringContaining("'http.request.method' is not a field of tcp_connection_closed.v0"),
      }),
    ]);
  });

  test('a filter over a field that is not filterable', async () => {
    const [p] = await problemsOf(subscription('    - type: http_request_complete.v0\n      filter: http.response.status_code >= 500\n'));
    expect(p).toMatchObject({ code: 'event_source_invalid', at: '15:15' });
    expect(p!.message).toContain("field 'http.response.status_code' (column 1) is not filterable; filterable fields: ev.conn.client_ip");
  });

  test('a filter that is not CEL', async () => {
    const [p] = await problemsOf(subscription('    - type: http_request_complete.v0\n      filter: "conn.server_port == == 443"\n'));
    expect(p).toMatchObject({ code: 'event_source_invalid', at: '15:15' });
    expect(p!.message).toMatch(/sources\[0\]\.filter: not valid CEL at column \d+/);
  });

  test('fields on an audit event, a type twice, a destination that does not exist', async () => {
    const yaml = `kind: EventSubscription
name: audit
spec:
  destinations: [nowhere]
  sources:
    - {type: ip_policy_created.v0, fields: [conn.client_ip]}
    - {type: ip_policy_created.v0}
`;
    expect((await problemsOf(yaml)).map((p) => `${p.code}@${p.at}`)).toEqual([
      'reference_missing@4:18',
      'event_source_invalid@6:44',
      'event_source_invalid@7:14',
    ]);
  });

  test('the description limit is in characters, not bytes', async () => {
    const ok = `kind: EventSubscription\nname: s\nspec:\n  description: "${'é'.repeat(255)}"\n  destinations: []\n  sources: [{type: ip_policy_created.v0}]\n`;
    expect(await problemsOf(ok)).toEqual([]);
    const long = ok.replace('é'.repeat(255), 'é'.repeat(256));
    expect((await problemsOf(long)).map((p) => `${p.code}@${p.at}`)).toEqual(['invalid_value@4:16']);
  });
});
