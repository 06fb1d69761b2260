/**
 * Write-only secrets can be rotated: the ownership marker keeps a salted scrypt digest of each
 * one sent, so a changed value is a change (shown as `(sensitive value changed)`, never as a
 * value) and apply sends it; `secret_version` sends them again when no digest can be kept, and
 * the plan says which secrets it cannot compare.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { applyPlan } from '../apply/apply.js';
import { MemoryLiveApi } from '../apply/memory-api.js';
import { computePlan } from '../engine.js';
import { parseMarker } from '../identity/marker.js';
import { digestMatches } from '../identity/secret-digest.js';
import { renderMarkdown } from '../render/markdown.js';
import { renderText } from '../render/text.js';
import { renderJson } from '../render/json.js';

const PATH = 'target.kinesis.auth.creds.aws_secret_access_key';
const destination = (extra = '') => `kind: EventDestination
name: audit-stream
spec:
  description: audit events
${extra}  target:
    kinesis:
      stream_arn: arn:aws:kinesis:us-east-1:123456789012:stream/audit
      auth:
        creds:
          aws_access_key_id: AKIAEXAMPLE
          aws_secret_access_key: \${env:AUDIT_STREAM_SECRET_KEY}
`;

function manifests(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-write-only-'));
  writeFileSync(join(dir, 'events.yaml'), text);
  return dir;
}

const keyOf = (secret: string) => ({ AUDIT_STREAM_SECRET_KEY: secret });
const markerOf = (api: MemoryLiveApi) => parseMarker(api.objects('/event_destinations')[0]!.metadata).marker!;
const sentSecrets = (api: MemoryLiveApi) =>
  api.log
    .filter((w) => w.path.startsWith('/event_destinations'))
    .map((w) => (w.body as { target: { kinesis: { auth: { creds: { aws_secret_access_key: string } } } } }).target.kinesis.auth.creds.aws_secret_access_key);

async function applied(text: string, secret: string) {
  const paths = [manifests(text)];
  const api = new MemoryLiveApi();
  await applyPlan({ api, stack: 'default', paths, env: keyOf(secret) });
  return { api, paths };
}

describe('a rotated write-only secret', () => {
  test('the marker keeps a salted digest of what was sent, never the value', async () => {
    const { api } = await applied(destination(), 'first-secret-value');
    const metadata = String(api.objects('/event_destinations')[0]!.metadata);
    expect(metadata).not.toContain('first-secret-value');
    const digest = markerOf(api).secrets![PATH]!;
    expect(digestMatches('first-secret-value', digest)).toBe(true);
    expect(digestMatches('second-secret-value', digest)).toBe(false);
    // Salted: the same secret elsewhere has another digest.
    const other = await applied(destination(), 'first-secret-value');
    expect(markerOf(other.api).secrets![PATH]).not.toBe(digest);
  });

  test('is a change of its field, shown as (sensitive value changed), and apply sends it; then no changes', async () => {
    const { api, paths } = await applied(destination(), 'first-secret-value');
    expect((await computePlan({ api, stack: 'default', paths, env: keyOf('first-secret-value') })).changes).toEqual([]);
    const plan = await computePlan({ api, stack: 'default', paths, env: keyOf('second-secret-value') });
    expect(plan.changes.map((c) => [c.address, c.action, c.fields])).toEqual([
      ['EventDestination/audit-stream', 'update', [{ path: PATH, before: '(sensitive)', after: '(sensitive value changed)', sensitive: true }]],
    ]);
    for (const text of [renderText(plan), renderMarkdown(plan), renderJson(plan)]) {
      expect(text).toContain('(sensitive value changed)');
      expect(text).not.toContain('second-secret-value');
      expect(text).not.toContain(markerOf(api).secrets![PATH]!.split('.')[1]!);
    }
    await applyPlan({ api, stack: 'default', paths, env: keyOf('second-secret-value') });
    expect(sentSecrets(api)).toEqual(['first-secret-value', 'second-secret-value']);
    expect((await computePlan({ api, stack: 'default', paths, env: keyOf('second-secret-value') })).changes).toEqual([]);
  });

  test('a marker written before digests were kept is refreshed, which sends the secret and records its digest', async () => {
    const { api, paths } = await applied(destination(), 'first-secret-value');
    const live = api.objects('/event_destinations')[0]!;
    live.metadata = String(live.metadata).replace(/,"secrets":\{[^}]*\}/, '');
    const plan = await computePlan({ api, stack: 'default', paths, env: keyOf('rotated-value') });
    expect(plan.changes.map((c) => [c.cause, c.reason])).toEqual([
      ['marker', 'ownership marker refresh: records the digests of the write-only secrets (sending them)'],
    ]);
    expect(plan.secrets_not_compared).toBeUndefined();
    await applyPlan({ api, stack: 'default', paths, env: keyOf('rotated-value') });
    expect(sentSecrets(api).at(-1)).toBe('rotated-value');
    expect(digestMatches('rotated-value', markerOf(api).secrets![PATH]!)).toBe(true);
  });
});

describe('when the metadata has no room for the digest', () => {
  // User metadata that leaves room for the marker, but not for the digests too.
  const full = (room: number) => `  metadata: "${'m'.repeat(room)}"\n`;

  test('the plan says which secrets it cannot compare; secret_version sends them again', async () => {
    const text = destination(full(3900));
    const { api, paths } = await applied(text, 'first-secret-value');
    expect(markerOf(api).secrets).toBeUndefined();
    const plan = await computePlan({ api, stack: 'default', paths, env: keyOf('rotated-value') });
    expect(plan.changes).toEqual([]);
    expect(plan.secrets_not_compared).toEqual([
      {
        address: 'EventDestination/audit-stream',
        fields: [PATH],
        why: 'the metadata has no room for their digests (4096 bytes); change spec.secret_version to send them again',
      },
    ]);
    expect(renderText(plan)).toContain(`EventDestination/audit-stream: ${PATH}: the metadata has no room`);
    expect(renderMarkdown(plan)).toContain('Write-only secrets that cannot be compared');

    const bumped = manifests(destination(`  secret_version: 2\n${full(3880)}`));
    const resend = await computePlan({ api, stack: 'default', paths: [bumped], env: keyOf('rotated-value') });
    expect(resend.changes.map((c) => [c.action, c.reason])).toEqual([['update', 'secret_version set: the write-only secrets are sent again']]);
    expect(resend.changes[0]!.fields).toContainEqual({ path: 'secret_version', before: null, after: 2, sensitive: false });
    await applyPlan({ api, stack: 'default', paths: [bumped], env: keyOf('rotated-value') });
    expect(sentSecrets(api).at(-1)).toBe('rotated-value');
    expect(markerOf(api).secretVersion).toBe(2);
    // The same version again: nothing to send.
    expect((await computePlan({ api, stack: 'default', paths: [bumped], env: keyOf('rotated-value') })).changes).toEqual([]);
  });
});
