/**
 * The configurations taken from the service's own documentation (examples/gslb: its global load
 * balancing guide; examples/tls-edge: its TLS edge example) through the whole loop, with the
 * built CLI against the embedded reference server, as a new user runs them: validate, plan,
 * apply, an empty re-plan, drift, then export and an empty plan of the export.
 */
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli, tempDir } from './helpers/cli.js';

const made: ReturnType<typeof tempDir>[] = [];
afterAll(() => {
  for (const dir of made) dir.cleanup();
});

describe.each(['gslb', 'tls-edge'])("examples/%s, from the service's documentation", { timeout: 120_000 }, (example) => {
  it('validates, plans, applies, re-plans empty, drifts nowhere, and its export plans empty', async () => {
    const dir = tempDir(`gatehouse-${example}-`);
    made.push(dir);
    cpSync(join(REPO_ROOT, 'examples', example), join(dir.path, 'manifests'), { recursive: true });
    const run = (args: string[]) => runCli(args, { cwd: dir.path });

    const validated = await run(['validate', 'manifests']);
    expect([validated.code, validated.stdout]).toEqual([0, expect.stringContaining('Manifests are valid')]);
    const planned = await run(['plan', 'manifests', '--detailed-exitcode']);
    expect(planned.code, planned.stderr).toBe(2);
    expect(planned.stdout).not.toContain('Warning');
    const applied = await run(['apply', 'manifests', '--yes']);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    const again = await run(['plan', 'manifests', '--detailed-exitcode']);
    expect([again.code, again.stdout]).toEqual([0, expect.stringContaining('No changes.')]);
    const drift = await run(['drift', 'manifests']);
    expect([drift.code, drift.stdout]).toEqual([0, expect.stringContaining('No drift.')]);

    const exported = await run(['export', '--out', 'exported']);
    expect(exported.code, exported.stderr).toBe(0);
    const replanned = await run(['plan', 'exported', '--detailed-exitcode', '--format', 'json']);
    expect(replanned.code, replanned.stderr).toBe(0);
    expect(JSON.parse(replanned.stdout).changes).toEqual([]);
    expect((await run(['drift', 'exported'])).code).toBe(0);
  });
});

describe('what the examples carry over from the service', () => {
  it("keeps the service's own ${...} as written, through apply and export, in the file it was applied from", async () => {
    const dir = made.find((d) => d.path.includes('gatehouse-gslb-'));
    expect(dir).toBeDefined();
    const exported = readFileSync(join(dir!.path, 'exported', 'edge.yaml'), 'utf8');
    expect(exported).toContain('x-client-country: ${.ngrok.geo.country_code}');
    expect(exported).toContain('"path": "${req.url.path}"');
  });

  it("refers to the TCP address the service assigned by the reservation's name", async () => {
    const dir = made.find((d) => d.path.includes('gatehouse-tls-edge-'));
    const exported = readFileSync(join(dir!.path, 'exported', 'edges.yaml'), 'utf8');
    expect(exported).toContain('hostports:\n    - reserved_tcp_address: postgres');
  });
});
