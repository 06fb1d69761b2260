/**
 * `{id: ...}` references (issue 8, point 6) against a real `gatehouse serve`, with the built
 * CLI: a reference to an id that no live object has, or to a live object of another kind,
 * validates offline (validate cannot know live ids), and fails plan and apply with exit 1 at
 * its file:line:col before any write: apply no longer creates the edge and then fails on its
 * route, leaving half a change.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GatehouseClient } from '@gatehouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type ServeProcess, type tempDir } from './helpers/cli.js';
import { serveWithClient } from './helpers/served.js';

const KEY = 'id-references-e2e-key-0123456789';
let server: ServeProcess;
let dir: ReturnType<typeof tempDir>;
let client: GatehouseClient;
let close: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ dir, server, client, close } = await serveWithClient(KEY));
});
afterAll(async () => {
  await close?.();
});

const env = () => ({ GATEHOUSE_API_URL: server.url, GATEHOUSE_API_KEY: KEY });

/** Ids of every live object the manifests could create, per collection. */
async function liveIds(): Promise<string[]> {
  const ids: string[] = [];
  const collections = [
    ['/ip_policies', 'ip_policies'],
    ['/backends/failover', 'backends'],
    ['/reserved_domains', 'reserved_domains'],
    ['/edges/https', 'https_edges'],
  ] as const;
  for (const [path, key] of collections) {
    for await (const o of client.list<{ id: string; routes?: { id: string }[] }>(path, key)) ids.push(o.id, ...(o.routes ?? []).map((r) => r.id));
  }
  return ids.sort();
}

describe('{id: ...} references are checked against live objects before any write', { timeout: 120_000 }, () => {
  it('a missing and a wrong-kind id: validate passes offline; plan and apply exit 1 at file:line:col; apply writes nothing', async () => {
    const policy = await client.ipPolicies.create({ description: 'not managed' });
    const repo = join(dir.path, 'manifests');
    mkdirSync(repo);
    writeFileSync(
      join(repo, 'edge.yaml'),
      [
        'kind: ReservedDomain',
        'name: app',
        'spec: {domain: app.example.com}',
        '---',
        'kind: HTTPSEdge',
        'name: app',
        'spec:',
        '  hostports: ["app.example.com:443"]',
        '  routes:',
        '    - match_type: path_prefix',
        '      match: /',
        '      backend: {backend: {id: bkdtg_doesnotexist}}',
        '---',
        'kind: Backend',
        'name: fo',
        `spec: {type: failover, backends: [{id: ${policy.id}}]}`,
        '',
      ].join('\n'),
    );
    const file = join(repo, 'edge.yaml');

    const validate = await runCli(['validate', repo]);
    expect(validate.code, validate.stdout + validate.stderr).toBe(0);

    const before = await liveIds();
    const plan = await runCli(['plan', repo], { env: env() });
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain(
      `${file}:12:26: no live Backend has the id bkdtg_doesnotexist; fix the id, or name a Backend manifest instead of {id: ...} [reference_id_missing]`,
    );
    expect(plan.stderr).toMatch(
      new RegExp(
        `${file.replace(/[.]/g, '\\.')}:16:35: ${policy.id} is an? IP policy, but a Backend is expected here; fix the id \\[reference_id_wrong_kind\\]`,
      ),
    );

    const apply = await runCli(['apply', repo, '--yes'], { env: env() });
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain(`${file}:12:26:`);
    expect(apply.stderr).toContain('[reference_id_missing]');
    expect(apply.stdout).not.toMatch(/Apply complete|done/);
    expect(await liveIds()).toEqual(before);
  });
});
