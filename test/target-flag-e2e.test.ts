/**
 * `--target ADDRESS` (issue 8, point 3) with the built CLI against a real `gatehouse serve`:
 * plan and apply of one target, a glob, a parent with its children, a child with the changes
 * it depends on; targets that match nothing (all: exit 1; some: a warning); `--target` with
 * `--prune` refused (malformed targets and the other conflicts: packages/cli/src/target-flags.test.ts); a target on an object the manifests no longer declare is never
 * deleted; drift of a target; a saved targeted plan applied exactly.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';
import { serveWithClient, type ServedApi } from './helpers/served.js';

const KEY = 'target-flag-e2e-key-0123456789abcdef';
let served: ServedApi;
let manifests: string;

const BEFORE = `kind: IPPolicy
name: office
spec:
  description: office
  rules:
    - {cidr: 10.0.0.0/8, action: allow}
---
kind: IPPolicy
name: old
spec: {description: to be removed}
---
kind: Backend
name: web
spec: {type: http_response, status_code: 200}
---
kind: Backend
name: static
spec: {type: http_response, status_code: 404}
---
kind: HTTPSEdge
name: api
spec:
  hostports: ["api.example.com:443"]
  routes:
    - {match_type: path_prefix, match: /, backend: {backend: web}}
`;

// The emergency: the web backend answers 503, a maintenance route is added, office gets a rule.
const AFTER = `kind: IPPolicy
name: office
spec:
  description: office (edited)
  rules:
    - {cidr: 10.0.0.0/8, action: allow}
    - {cidr: 192.168.0.0/16, action: allow}
---
kind: IPPolicy
name: vpn
spec: {description: vpn}
---
kind: Backend
name: web
spec: {type: http_response, status_code: 503}
---
kind: Backend
name: static
spec: {type: http_response, status_code: 404}
---
kind: Backend
name: maintenance
spec: {type: http_response, status_code: 503}
---
kind: HTTPSEdge
name: api
spec:
  description: api edge
  hostports: ["api.example.com:443"]
  routes:
    - {match_type: path_prefix, match: /, backend: {backend: web}}
    - {match_type: path_prefix, match: /v1, backend: {backend: maintenance}}
`;

const env = () => ({ GATEHOUSE_API_URL: served.server.url, GATEHOUSE_API_KEY: KEY, CI: 'true' });
const gatehouse = (args: string[]) => runCli(args, { env: env() });
const planJson = async (args: string[]) => {
  const result = await gatehouse(['plan', manifests, '--format', 'json', '--detailed-exitcode', ...args]);
  return {
    result,
    json: JSON.parse(result.stdout) as {
      changes: { address: string; action: string }[];
      summary: Record<string, number>;
      targets?: Record<string, string[]>;
      error?: { code: string; message: string };
    },
  };
};
const changed = (json: { changes: { address: string; action: string }[] }) => json.changes.map((c) => `${c.action} ${c.address}`).sort();

beforeAll(async () => {
  served = await serveWithClient(KEY, ['--no-reservation-check']);
  manifests = join(served.dir.path, 'manifests.yaml');
  writeFileSync(manifests, BEFORE);
  const applied = await gatehouse(['apply', manifests, '--yes']);
  if (applied.code !== 0) throw new Error(`apply failed:\n${applied.stdout}\n${applied.stderr}`);
  writeFileSync(manifests, AFTER);
}, 60_000);
afterAll(async () => {
  await served?.close();
});

describe('plan --target', () => {
  // Plans only read: run side by side.
  it('plans one object, a glob, a parent with its children, a child with what it depends on; counted alone (exit 2)', async () => {
    const [one, glob, parent, child, text] = await Promise.all([
      planJson(['--target', 'Backend/web']),
      planJson(['--target', 'Backend/*']),
      planJson(['--target', 'IPPolicy/office']),
      planJson(['--target', 'HTTPSEdgeRoute/api//v1']),
      gatehouse(['plan', manifests, '--target', 'IPPolicy/office']),
    ]);
    expect(one.result.code).toBe(2);
    expect(changed(one.json)).toEqual(['update Backend/web']);
    expect(one.json.summary).toMatchObject({ create: 0, update: 1, delete: 0, replace: 0 });
    expect(one.json.targets).toEqual({ requested: ['Backend/web'], unmatched: [], undeclared: [] });
    expect(changed(glob.json)).toEqual(['create Backend/maintenance', 'update Backend/web']);
    expect(changed(parent.json)).toEqual(['create IPPolicyRule/office/192.168.0.0/16', 'update IPPolicy/office']);
    expect(changed(child.json)).toEqual(['create Backend/maintenance', 'create HTTPSEdgeRoute/api//v1', 'update HTTPSEdge/api']);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(
      'Warning: Targeted plan (--target IPPolicy/office): only these objects, their children and the changes they depend on; nothing is deleted.',
    );
    expect(text.stdout).toContain('Plan: 1 to create, 1 to update');
    expect(text.stdout).not.toContain('would be deleted');
  });

  it('a target that matched nothing is a warning; every target matching nothing is an error; --prune is refused', async () => {
    const [some, none, json, prune] = await Promise.all([
      planJson(['--target', 'Backend/web', '--target', 'Backend/wbe']),
      gatehouse(['plan', manifests, '--target', 'Backend/wbe', '--target', 'IPPolicy/nope*']),
      planJson(['--target', 'Backend/wbe']),
      planJson(['--target', 'Backend/web', '--prune']),
    ]);
    expect(some.result.code).toBe(2);
    expect(some.json.targets).toMatchObject({ unmatched: ['Backend/wbe'] });
    expect(some.result.stderr).toContain('warning: --target Backend/wbe matched nothing');
    expect(none.code).toBe(1);
    expect(none.stdout).toBe('');
    expect(none.stderr).toContain('no object matches --target Backend/wbe, IPPolicy/nope*');
    expect(json.result.code).toBe(1);
    expect(json.json.error?.code).toBe('target_unmatched');
    expect(prune.result.code).toBe(1);
    expect(prune.json.error).toEqual({ code: 'target_conflict', message: expect.stringContaining('--target cannot be combined with --prune') });
  });
});

describe('apply --target and drift --target', () => {
  it('never deletes an undeclared target: says so and leaves it', async () => {
    const result = await gatehouse(['apply', manifests, '--target', 'IPPolicy/old', '--yes']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('matched only live objects the manifests no longer declare; a targeted plan never deletes');
    const full = await planJson([]);
    expect(changed(full.json)).toContain('delete IPPolicy/old');
  });

  it('a saved targeted plan records its targets and is applied exactly; the rest stays for a full plan', async () => {
    const file = join(served.dir.path, 'targeted.json');
    const saved = await gatehouse(['plan', manifests, '--target', 'HTTPSEdgeRoute/api//v1', '--out', file]);
    expect(saved.code, saved.stderr).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8')).targets.requested).toEqual(['HTTPSEdgeRoute/api//v1']);
    const applied = await gatehouse(['apply', '--plan', file, '--yes', '--format', 'json']);
    expect(applied.code, applied.stderr).toBe(0);
    const document = JSON.parse(applied.stdout) as { steps: { action: string; address: string; status: string }[]; targets: { requested: string[] } };
    expect(document.targets.requested).toEqual(['HTTPSEdgeRoute/api//v1']);
    const steps = document.steps;
    expect(steps.map((s) => `${s.action} ${s.address} ${s.status}`).sort()).toEqual([
      'create Backend/maintenance done',
      'create HTTPSEdgeRoute/api//v1 done',
      'update HTTPSEdge/api done',
    ]);
    expect((await planJson(['--target', 'HTTPSEdgeRoute/api//v1'])).result.code).toBe(0);
    const rest = await planJson(['--prune']);
    expect(changed(rest.json)).toEqual([
      'create IPPolicy/vpn',
      'create IPPolicyRule/office/192.168.0.0/16',
      'delete IPPolicy/old',
      'update Backend/web',
      'update IPPolicy/office',
    ]);
  });

  it('drift of a target reports it alone: exit 2 for it, 0 for an object in sync', async () => {
    const [drifted, inSync, none] = await Promise.all([
      gatehouse(['drift', manifests, '--target', 'Backend/web', '--format', 'json']),
      gatehouse(['drift', manifests, '--target', 'Backend/static', '--target', 'HTTPSEdge/api']),
      gatehouse(['drift', manifests, '--target', 'Backend/nope']),
    ]);
    expect(drifted.code).toBe(2);
    const report = JSON.parse(drifted.stdout) as { objects: { address: string }[]; targets: unknown };
    expect(report.objects.map((o) => o.address)).toEqual(['Backend/web']);
    expect(report.targets).toEqual({ requested: ['Backend/web'], unmatched: [] });
    expect(inSync.code, inSync.stdout).toBe(0);
    expect(inSync.stdout).toContain('Warning: Targeted drift report (--target Backend/static, HTTPSEdge/api)');
    expect(inSync.stdout).toContain('No drift.');
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('no object matches --target Backend/nope');
  });

  it('apply of a parent target applies it with its children; a plan of it is then empty', async () => {
    const result = await gatehouse(['apply', manifests, '--target', 'IPPolicy/office', '--yes']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('Targeted plan (--target IPPolicy/office)');
    expect(result.stdout).toContain('Targeted apply (--target IPPolicy/office): nothing else was applied');
    expect((await planJson(['--target', 'IPPolicy/office'])).result.code).toBe(0);
  });
});
