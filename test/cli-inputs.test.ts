/**
 * Inputs and outputs as a user's shell and repository give them: `-` for standard input
 * (validate, plan) and standard output (`export --out -`), exported files that editors can
 * check (`$schema` line) with the umask's mode, and a directory search that reads manifests
 * only (never .github, .gitlab-ci.yml, node_modules or dot-directories; other tools' YAML is a
 * problem until gatehouse.yaml's exclude: names it, then a note under --verbose). Every command
 * runs in one temporary repository, against the embedded server there.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { runCli, tempDir, type CliResult } from './helpers/cli.js';

const repo = tempDir('gatehouse-inputs-');
const POLICY = 'kind: IPPolicy\nname: office\nspec:\n  rules:\n    - action: allow\n      cidr: 10.0.0.0/8\n';

/** `gatehouse <args>` in the repository with `input` on standard input. */
const runWithInput = (args: string[], input: string): Promise<CliResult> => runCli(args, { cwd: repo.path, input });

const write = (path: string, text: string) => {
  mkdirSync(join(repo.path, path, '..'), { recursive: true });
  writeFileSync(join(repo.path, path), text);
};

beforeAll(() => {
  write('manifests/policy.yaml', POLICY);
  write('.github/workflows/ci.yml', 'name: ci\non: push\njobs:\n  plan:\n    runs-on: ubuntu-latest\n');
  write('.gitlab-ci.yml', 'stages: [plan]\n');
  write('node_modules/some-package/policy.yaml', 'kind: IPPolicy\nname: not-ours\nspec: {}\n');
  write('.config/tool.yaml', 'kind: Tool\nname: x\n');
  write('deploy/configmap.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n');
});

afterAll(() => repo.cleanup());

describe('directory search', () => {
  it("reads the manifests; another tool's document is a problem until exclude: names it; --verbose says what it skipped", async () => {
    const refused = await runCli(['validate'], { cwd: repo.path });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^deploy\/configmap\.yaml:2:7: .*a Kubernetes document \(apiVersion "v1", kind "ConfigMap"\), not a gatehouse manifest; .*exclude: in gatehouse\.yaml \[unknown_kind\]$/m,
    );
    write('gatehouse.yaml', 'manifests: [.]\nexclude: [deploy/**]\n');
    try {
      const quiet = await runCli(['validate'], { cwd: repo.path });
      expect(quiet.stderr).toBe('');
      expect(quiet.code).toBe(0);
      const verbose = await runCli(['validate', '--verbose'], { cwd: repo.path });
      expect(verbose.code).toBe(0);
      expect(verbose.stderr.trimEnd().split('\n').sort()).toEqual([
        'note: excluded deploy/configmap.yaml: exclude: deploy/** in gatehouse.yaml',
        'note: skipped .config/: dot-files, dot-directories and node_modules are not searched (name it to read it)',
        'note: skipped .github/: dot-files, dot-directories and node_modules are not searched (name it to read it)',
        'note: skipped .gitlab-ci.yml: dot-files, dot-directories and node_modules are not searched (name it to read it)',
        'note: skipped gatehouse.yaml: not manifests (the project file, or policy rules)',
        'note: skipped node_modules/: dot-files, dot-directories and node_modules are not searched (name it to read it)',
      ]);
    } finally {
      rmSync(join(repo.path, 'gatehouse.yaml'));
    }
  });

  it('still reports a manifest with a mistyped kind, and reads a file it is given by name', async () => {
    write('typo/policy.yaml', 'kind: IPPolcy\nname: typo\nspec: {}\n');
    const typo = await runCli(['validate', 'typo'], { cwd: repo.path });
    expect(typo.code).toBe(1);
    expect(typo.stderr).toMatch(/^typo\/policy\.yaml:1:7: .*not "IPPolcy"; did you mean IPPolicy\? \[unknown_kind\]$/m);
    const named = await runCli(['validate', 'deploy/configmap.yaml'], { cwd: repo.path });
    expect(named.code).toBe(1);
    expect(named.stderr).toContain('[unknown_kind]');
  });
});

describe('standard input and output', () => {
  it('validate - reads one stream of documents, reported as <stdin>', async () => {
    const valid = await runWithInput(['validate', '-'], `${POLICY}---\nkind: BotUser\nname: deploy\nspec:\n  active: true\n`);
    expect(valid.stderr).toBe('');
    expect(valid.code).toBe(0);
    const invalid = await runWithInput(['validate', '-', 'manifests'], 'kind: IPPolicy\nname: office\nspec:\n  colour: red\n');
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/^<stdin>:4:3: .*\[unknown_field\]$/m);
    expect(existsSync(join(repo.path, '-'))).toBe(false);
  });

  it('plan - plans the stream; export --out - writes one multi-document YAML to stdout that validates', async () => {
    const planned = await runWithInput(['plan', '-', '--embedded'], POLICY);
    expect(planned.code).toBe(0);
    expect(planned.stdout).toContain('+   IPPolicy office');
    const applied = await runCli(['apply', 'manifests', '--embedded', '-y'], { cwd: repo.path });
    expect(applied.code).toBe(0);

    const exported = await runCli(['export', '--embedded', '--out', '-'], { cwd: repo.path });
    expect(exported.code).toBe(0);
    expect(existsSync(join(repo.path, '-'))).toBe(false);
    expect(exported.stdout.split('\n')[0]).toBe(
      '# yaml-language-server: $schema=https://cdn.jsdelivr.net/npm/@gatehouse/schemas@0.1/json/manifests/AnyManifest.schema.json',
    );
    const documents = parseAllDocuments(exported.stdout).map((d) => d.toJS() as { kind: string; name: string });
    expect(documents).toContainEqual(expect.objectContaining({ kind: 'IPPolicy', name: 'office' }));
    expect(exported.stderr).toContain('to standard output:');
    const again = await runWithInput(['validate', '-'], exported.stdout);
    expect(again.code).toBe(0);
  }, 120_000);

  it("exported files start with their kind's $schema line and take the umask's mode", async () => {
    const result = await runCli(['export', '--embedded', '--out', 'exported'], { cwd: repo.path });
    expect(result.code).toBe(0);
    // The file the policy was applied from (manifests/policy.yaml, planned as `manifests`).
    const file = join(repo.path, 'exported/policy.yaml');
    expect(readFileSync(file, 'utf8').split('\n')[0]).toBe(
      '# yaml-language-server: $schema=https://cdn.jsdelivr.net/npm/@gatehouse/schemas@0.1/json/manifests/IpPolicyManifest.schema.json',
    );
    const umask = process.umask();
    expect(statSync(file).mode & 0o777).toBe(0o666 & ~umask);
    // A second export recognises its own files (the export header is now the second line).
    const second = await runCli(['export', '--embedded', '--out', 'exported'], { cwd: repo.path });
    expect(second.code).toBe(0);
  }, 60_000);
});

describe('${env:} in validate and plan', () => {
  it('an unset secret is a warning in validate, an error with --strict-env and in plan', async () => {
    write(
      'secrets/edge.yaml',
      'kind: EventDestination\nname: audit\nspec:\n  format: json\n  target:\n    kinesis:\n      auth:\n        creds:\n          aws_access_key_id: AKIAEXAMPLE\n          aws_secret_access_key: ${env:AUDIT_SECRET}\n      stream_arn: arn:aws:kinesis:us-east-1:123456789012:stream/audit\n',
    );
    const [lenient, strict, planned] = await Promise.all([
      runCli(['validate', 'secrets'], { cwd: repo.path }),
      runCli(['validate', 'secrets', '--strict-env'], { cwd: repo.path }),
      runCli(['plan', 'secrets', '--embedded'], { cwd: repo.path }),
    ]);
    expect(lenient.code, lenient.stderr).toBe(0);
    expect(lenient.stderr).toBe(
      'warning: secrets/edge.yaml:10:34: environment variable AUDIT_SECRET is not set (plan and apply need it; --strict-env makes this an error) [env_missing]\n',
    );
    expect(strict.code).toBe(1);
    expect(strict.stderr).toContain(
      'secrets/edge.yaml:10:34: environment variable AUDIT_SECRET is not set; set it or remove ${env:AUDIT_SECRET} [env_missing]',
    );
    expect(planned.code).toBe(1);
    expect(planned.stderr).toContain('[env_missing]');
  }, 60_000);
});
