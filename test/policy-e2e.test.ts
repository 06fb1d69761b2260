/**
 * Policies through the built CLI: `policies/` of the working directory is read without a flag,
 * `--policy` adds files; a violating change fails validate and plan (exit 1) naming the rule and
 * the object at its line, in every plan format, and `--out` saves nothing then; the examples
 * pass with one warning (the README demo's).
 */
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_SECRETS } from './plan-fixtures.js';
import { REPO_ROOT, runCli, tempDir } from './helpers/cli.js';

let dir: ReturnType<typeof tempDir>;
beforeAll(() => {
  dir = tempDir('gatehouse-policy-e2e-');
  cpSync(join(REPO_ROOT, 'examples/basic'), join(dir.path, 'manifests'), { recursive: true });
  cpSync(join(REPO_ROOT, 'examples/policies'), join(dir.path, 'policies'), { recursive: true });
  // The violation: the VPN policy now allows every address (line 25 of ip-policies.yaml).
  const file = join(dir.path, 'manifests/ip-policies.yaml');
  writeFileSync(file, readFileSync(file, 'utf8').replace('cidr: 192.0.2.0/25', 'cidr: 0.0.0.0/0'));
  expect(readFileSync(file, 'utf8').split('\n')[24]).toContain('cidr: 0.0.0.0/0');
});
afterAll(() => dir?.cleanup());

const inDir = (args: string[]) => runCli(args, { cwd: dir.path, env: EXAMPLE_SECRETS });
const WHERE = 'manifests/ip-policies.yaml:25:7';

describe('policies in the CLI', () => {
  it('validate reads policies/ by itself and fails on the rule, at the object', async () => {
    const result = await inDir(['validate', 'manifests']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `${WHERE}: error: IPPolicyRule vpn 0.0.0.0/0: rule 0.0.0.0/0 of IP policy vpn allows every address [policy no-allow-everyone]`,
    );
    expect(result.stderr).toContain('manifests/ip-restrictions.yaml:11:1: warning: IPRestriction api');
    expect(result.stderr).toMatch(/break 1 policy rule .*1 error, 1 warning/);
  });

  it('plan fails with exit 1 before its first request when the manifests alone break a rule: the results in the JSON error, no plan saved', async () => {
    const json = await inDir(['plan', 'manifests', '--embedded', '--format', 'json', '--out', 'plan.json', '--verbose']);
    expect(json.code).toBe(1);
    expect(json.stderr).toContain('Error: the manifests break 1 policy rule (no-allow-everyone); nothing was planned (no request was sent)');
    expect(json.stderr).not.toMatch(/^request /m);
    expect(existsSync(join(dir.path, 'plan.json'))).toBe(false);
    const error = JSON.parse(json.stdout).error;
    expect(error.code).toBe('policy_failed');
    expect(error.policy_results[0]).toEqual({
      rule: 'no-allow-everyone',
      severity: 'error',
      address: 'IPPolicyRule/vpn/0.0.0.0/0',
      kind: 'IPPolicyRule',
      name: 'vpn 0.0.0.0/0',
      message: 'rule 0.0.0.0/0 of IP policy vpn allows every address',
      source: { file: 'manifests/ip-policies.yaml', line: 25, col: 7 },
      rule_source: { file: 'policies/ip-policies.yaml', line: 3, col: 3 },
    });
    const md = await inDir(['plan', 'manifests', '--embedded', '--format', 'markdown']);
    expect(md.code).toBe(1);
    expect(md.stdout).toBe('');
    expect(md.stderr).toContain(`${WHERE}: error: IPPolicyRule vpn 0.0.0.0/0: rule 0.0.0.0/0 of IP policy vpn allows every address [policy no-allow-everyone]`);
  });

  it('the examples pass with the one warning, and --policy adds files', async () => {
    const result = await runCli(['validate', 'examples/basic', '--policy', 'examples/policies'], { env: EXAMPLE_SECRETS });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Manifests are valid (examples/basic; policy checks: 0 errors, 1 warning).');
    expect(result.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^examples\/basic\/ip-restrictions\.yaml:11:1: warning: IPRestriction api: IP restriction api is not enforced/),
    ]);
  });
});
