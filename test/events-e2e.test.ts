/**
 * Issue 5, end to end with the BUILT CLI against a real `gatehouse serve` process: a manifest
 * repository with a certificate authority (generated here with openssl), an HTTPS edge whose
 * mutual TLS names it, an event destination with a write-only secret key and a subscription to
 * audit and traffic events applies, plans as no changes, exports and round-trips, and a change
 * of an IP policy applied by gatehouse produces a delivery record for the subscription.
 */
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiHeaders, runCli, startServe, tempDir, type CliResult, type ServeProcess, besideUsage } from './helpers/cli.js';
import { generateTestCa } from '../packages/server/src/testing/test-ca.js';

const KEY = 'events-e2e-key-0123456789abcdef';
const SECRET = 'e2e-secret-access-key-NEVER-PRINTED';
const CA = generateTestCa({ commonName: 'Corp Client CA', keyUsage: ['keyCertSign', 'cRLSign'], extendedKeyUsage: ['clientAuth'] });

let server: ServeProcess;
let dir: ReturnType<typeof tempDir>;
let repo: string;

const indent = (text: string, spaces: number) => text.trimEnd().replace(/^/gm, ' '.repeat(spaces));

function writeRepository(policyDescription: string): void {
  writeFileSync(
    join(repo, 'access.yaml'),
    `kind: IPPolicy
name: office
spec:
  description: ${policyDescription}
  rules:
    - {cidr: 203.0.113.0/24, action: allow, description: HQ}
`,
  );
  writeFileSync(
    join(repo, 'edges.yaml'),
    `kind: CertificateAuthority
name: corp-ca
spec:
  description: Corporate client certificates
  ca_pem: |
${indent(CA.pem, 4)}
---
kind: HTTPSEdge
name: partners
spec:
  description: Partner API (mutual TLS)
  hostports: [partners-e2e.example.com:443]
  mutual_tls:
    certificate_authorities: [corp-ca]
`,
  );
  writeFileSync(
    join(repo, 'events.yaml'),
    `kind: EventDestination
name: audit-stream
spec:
  description: Audit stream
  target:
    kinesis:
      stream_arn: arn:aws:kinesis:us-east-1:123456789012:stream/audit
      auth:
        creds:
          aws_access_key_id: AKIAEXAMPLE
          aws_secret_access_key: \${env:AUDIT_STREAM_SECRET_KEY}
---
kind: EventSubscription
name: audit
spec:
  description: Policy changes and partner traffic
  destinations: [audit-stream]
  sources:
    - type: ip_policy_created.v0
    - type: ip_policy_updated.v0
    - type: ip_policy_rule_created.v0
    - type: http_request_complete.v0
      fields: [conn.client_ip, http.response.status_code, tls.client_cert.subject.cn]
      filter: conn.server_name == "partners-e2e.example.com"
`,
  );
}

const connection = (extra: Record<string, string> = {}) => ({
  GATEHOUSE_API_URL: server.url,
  GATEHOUSE_API_KEY: KEY,
  AUDIT_STREAM_SECRET_KEY: SECRET,
  ...extra,
});

async function cli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const result = await runCli(args, { env: connection(env) });
  // The write-only secret never reaches any output.
  expect(result.stdout + result.stderr).not.toContain(SECRET);
  return result;
}

async function api<T>(path: string): Promise<T> {
  const response = await fetch(new URL(path, server.url), { headers: apiHeaders(KEY) });
  expect(response.status, path).toBe(200);
  return (await response.json()) as T;
}

interface Listed {
  id: string;
  [field: string]: unknown;
}

beforeAll(async () => {
  dir = tempDir('gatehouse-events-e2e-');
  repo = join(dir.path, 'repo');
  mkdirSync(repo);
  writeRepository('Office egress');
  server = await startServe(['--port', '0', '--db', join(dir.path, 'server.db'), '--api-key', KEY, '--no-reservation-check']);
});
afterAll(async () => {
  await server?.stop();
  dir?.cleanup();
});

describe('certificate authorities, mutual TLS, destinations and subscriptions end to end', () => {
  it('validates', async () => {
    const result = await cli(['validate', repo]);
    expect(besideUsage(result.stderr)).toBe('');
    expect(result.code).toBe(0);
  });

  it('applies from empty: the CA, the edge naming it, the destination and the subscription exist', async () => {
    const result = await cli(['apply', repo, '--yes']);
    expect(result.code, result.stdout + result.stderr).toBe(0);

    const { certificate_authorities: cas } = await api<{ certificate_authorities: Listed[] }>('/certificate_authorities');
    expect(cas).toHaveLength(1);
    expect(cas[0]).toMatchObject({ subject_common_name: 'Corp Client CA', description: 'Corporate client certificates' });

    const { https_edges: edges } = await api<{ https_edges: Listed[] }>('/edges/https');
    expect(edges).toHaveLength(1);
    expect(edges[0]!.mutual_tls).toMatchObject({ enabled: true, certificate_authorities: [{ id: cas[0]!.id }] });

    const { event_destinations: destinations } = await api<{ event_destinations: Listed[] }>('/event_destinations');
    expect(destinations).toHaveLength(1);
    expect(destinations[0]!.target).toEqual({
      kinesis: {
        stream_arn: 'arn:aws:kinesis:us-east-1:123456789012:stream/audit',
        auth: { creds: { aws_access_key_id: 'AKIAEXAMPLE', aws_secret_access_key: null } },
      },
    });

    const { event_subscriptions: subscriptions } = await api<{ event_subscriptions: Listed[] }>('/event_subscriptions');
    expect(subscriptions).toHaveLength(1);
    expect(subscriptions[0]!.destinations).toEqual([expect.objectContaining({ id: destinations[0]!.id })]);
    expect((subscriptions[0]!.sources as { type: string }[]).map((s) => s.type).sort()).toEqual([
      'http_request_complete.v0',
      'ip_policy_created.v0',
      'ip_policy_rule_created.v0',
      'ip_policy_updated.v0',
    ]);
  });

  it('plans no changes afterwards (the write-only key is not a difference)', async () => {
    const result = await cli(['plan', repo, '--detailed-exitcode']);
    expect(result.code, result.stdout + result.stderr).toBe(0);
  });

  it('drift: in sync, then names a destination changed outside gatehouse; apply restores it', { timeout: 120_000 }, async () => {
    expect((await cli(['drift', repo])).code).toBe(0);
    const {
      event_destinations: [destination],
    } = await api<{ event_destinations: Listed[] }>('/event_destinations');
    const patched = await fetch(new URL(`/event_destinations/${destination!.id}`, server.url), {
      method: 'PATCH',
      headers: apiHeaders(KEY, true),
      body: JSON.stringify({ description: 'changed by hand' }),
    });
    expect(patched.status).toBe(200);

    const drift = await cli(['drift', repo, '--format', 'json']);
    expect(drift.code, drift.stderr).toBe(2);
    const report = JSON.parse(drift.stdout) as { objects: { address: string; drift: string; fields: { path: string }[] }[] };
    expect(report.objects, drift.stdout).toEqual([
      expect.objectContaining({
        address: 'EventDestination/audit-stream',
        drift: 'changed_outside',
        fields: [expect.objectContaining({ path: 'description' })],
      }),
    ]);

    // Applying writes the whole target again, the write-only key with it.
    expect((await cli(['apply', repo, '--yes'])).code).toBe(0);
    expect((await cli(['drift', repo])).code).toBe(0);
  });

  it('exports, and the exported manifests plan as no changes', async () => {
    const out = join(dir.path, 'export');
    const exported = await cli(['export', '--out', out]);
    expect(exported.code, exported.stdout + exported.stderr).toBe(0);
    const text = readdirSync(out, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && /\.ya?ml$/.test(e.name))
      .map((e) => readFileSync(join(e.parentPath, e.name), 'utf8'))
      .join('\n---\n');
    expect(text).not.toContain(SECRET);
    for (const kind of ['CertificateAuthority', 'HTTPSEdge', 'EventDestination', 'EventSubscription']) expect(text).toContain(`kind: ${kind}`);
    // References by name, and the CA's PEM as it was given.
    expect(text).toMatch(/certificate_authorities:\s*(\[\s*corp-ca\s*\]|\n\s*- corp-ca)/);
    expect(text).toMatch(/destinations:\s*(\[\s*audit-stream\s*\]|\n\s*- audit-stream)/);
    expect(text).toContain(CA.pem.split('\n')[1]);
    // The write-only key comes back as an ${env:...} placeholder; give every placeholder a value.
    const variables = [...text.matchAll(/\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((m) => m[1]!);
    expect(variables.length).toBeGreaterThan(0);
    const env = Object.fromEntries(variables.map((name) => [name, SECRET]));
    // The exported files are new files: each marker would only record the file it is applied
    // from now (the prune scope); nothing else differs. (Not applied: later tests apply `repo`.)
    const planned = await cli(['plan', out, '--format', 'json'], env);
    expect(planned.code, planned.stdout + planned.stderr).toBe(0);
    for (const change of (JSON.parse(planned.stdout) as { changes: { cause?: string; reason?: string; fields: unknown[] }[] }).changes) {
      expect(change).toMatchObject({
        cause: 'marker',
        fields: [],
        reason: expect.stringMatching(/^ownership marker refresh: records the manifest path \S+\.yaml$/),
      });
    }
  });

  it('a changed IP policy, applied, is delivered to the subscription', async () => {
    writeRepository('Office and VPN egress');
    const result = await cli(['apply', repo, '--yes']);
    expect(result.code, result.stdout + result.stderr).toBe(0);

    const {
      event_subscriptions: [subscription],
    } = await api<{ event_subscriptions: Listed[] }>('/event_subscriptions');
    const {
      event_destinations: [destination],
    } = await api<{ event_destinations: Listed[] }>('/event_destinations');
    // Delivery runs after the commit; wait for the outbox to drain, then read the record.
    let page: { deliveries: { event_type: string; subscription_id: string; destination_id: string; outcome: string }[]; pending: number };
    for (let attempt = 0; ; attempt++) {
      page = await api(`/_admin/deliveries?subscription_id=${subscription!.id}&limit=1000`);
      if (page.pending === 0 && page.deliveries.some((d) => d.event_type === 'ip_policy_updated.v0')) break;
      if (attempt > 200) throw new Error(`no ip_policy_updated.v0 delivery: ${JSON.stringify(page)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const updated = page.deliveries.filter((d) => d.event_type === 'ip_policy_updated.v0');
    expect(updated).toEqual([expect.objectContaining({ subscription_id: subscription!.id, destination_id: destination!.id, outcome: 'delivered' })]);
    // Only types the subscription names are delivered to it (whether the first apply's creations
    // are depends on whether the subscription existed yet when they happened).
    const named = ['ip_policy_created.v0', 'ip_policy_rule_created.v0', 'ip_policy_updated.v0'];
    for (const d of page.deliveries) expect(named).toContain(d.event_type);

    const again = await cli(['plan', repo, '--detailed-exitcode']);
    expect(again.code, again.stdout + again.stderr).toBe(0);
  });
});
