/**
 * `gatehouse validate` (the built CLI) on the example repositories: the realistic one passes;
 * the broken copy reports every marked mistake (`# expect: <code>`) at its own line, all in
 * one run; a missing secret variable is named at the line that uses it.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { readManifests } from './plan-fixtures.js';
import { REPO_ROOT, runCli } from './helpers/cli.js';
import { EXAMPLE_SECRETS } from './plan-fixtures.js';

/** `{file, line, code}` for every `# expect: <code>` marker under `dir`. */
function expectedMistakes(dir: string): { file: string; line: number; code: string }[] {
  const out: { file: string; line: number; code: string }[] = [];
  for (const name of readdirSync(join(REPO_ROOT, dir))
    .filter((f) => f.endsWith('.yaml'))
    .sort()) {
    readFileSync(join(REPO_ROOT, dir, name), 'utf8')
      .split('\n')
      .forEach((text, i) => {
        const match = /# expect: ([a-z_]+)\s*$/.exec(text);
        if (match) out.push({ file: `${dir}/${name}`, line: i + 1, code: match[1]! });
      });
  }
  return out;
}

describe('gatehouse validate', () => {
  it('passes on examples/basic', async () => {
    const result = await runCli(['validate', 'examples/basic'], { env: EXAMPLE_SECRETS });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/valid/);
  });

  it('reports each mistake of examples/broken at its line, all in one run', async () => {
    // --strict-env: the unset variable of the example is a mistake too (a warning by default).
    const result = await runCli(['validate', 'examples/broken', '--strict-env']);
    expect(result.code).toBe(1);
    const lines = result.stderr.split('\n');
    const expected = expectedMistakes('examples/broken');
    expect(expected.length).toBe(12);
    const missing = expected.filter(({ file, line, code }) => !lines.some((l) => l.startsWith(`${file}:${line}:`) && l.endsWith(`[${code}]`)));
    expect(missing, result.stderr).toEqual([]);
    // Every printed problem has a place, and nothing is reported at a line with no mistake.
    const printed = lines.filter((l) => /\[[a-z_]+\]$/.test(l));
    for (const line of printed) {
      const place = /^(examples\/broken\/[\w.-]+):(\d+):(\d+): /.exec(line);
      expect(place, line).not.toBeNull();
      expect(
        expected.some((e) => e.file === place![1] && e.line === Number(place![2])),
        line,
      ).toBe(true);
    }
    expect(result.stderr).toMatch(new RegExp(`${printed.length} problems found`));
  });

  it('warns of a missing secret variable at the line that uses it (an error with --strict-env), and never prints a set one', async () => {
    const { OIDC_CLIENT_SECRET: _unset, ...others } = EXAMPLE_SECRETS;
    const [lenient, strict] = await Promise.all([
      runCli(['validate', 'examples/basic'], { env: others }),
      runCli(['validate', 'examples/basic', '--strict-env'], { env: others }),
    ]);
    const line =
      readFileSync(join(REPO_ROOT, 'examples/basic/https-edges.yaml'), 'utf8')
        .split('\n')
        .findIndex((l) => l.includes('env:OIDC_CLIENT_SECRET')) + 1;
    expect(lenient.code).toBe(0);
    expect(lenient.stderr).toMatch(
      new RegExp(
        `^warning: examples/basic/https-edges\\.yaml:${line}:\\d+: environment variable OIDC_CLIENT_SECRET is not set \\(plan and apply need it; --strict-env makes this an error\\) \\[env_missing\\]$`,
        'm',
      ),
    );
    expect(lenient.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(strict.code).toBe(1);
    expect(strict.stderr).toMatch(new RegExp(`^examples/basic/https-edges\\.yaml:${line}:\\d+: .*OIDC_CLIENT_SECRET.*\\[env_missing\\]$`, 'm'));
    for (const secret of Object.values(others)) expect(lenient.stderr + lenient.stdout + strict.stderr + strict.stdout).not.toContain(secret);
  });

  it('fails on a path that does not exist', async () => {
    const result = await runCli(['validate', 'examples/does-not-exist']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('examples/does-not-exist');
  });

  it('every example file points editors at a published manifest schema', () => {
    for (const dir of ['examples/basic', 'examples/broken']) {
      for (const name of readdirSync(join(REPO_ROOT, dir)).filter((f) => f.endsWith('.yaml'))) {
        const file = join(REPO_ROOT, dir, name);
        const modeline = /^# yaml-language-server: \$schema=(\S+)$/.exec(readFileSync(file, 'utf8').split('\n')[0]!);
        expect(modeline, file).not.toBeNull();
        const schema = resolve(dirname(file), modeline![1]!);
        expect(existsSync(schema), schema).toBe(true);
        expect(JSON.parse(readFileSync(schema, 'utf8')).oneOf?.length, schema).toBeGreaterThanOrEqual(6);
      }
    }
  });

  it('the published schema accepts every example document, as an editor would', () => {
    const schema = JSON.parse(readFileSync(join(REPO_ROOT, 'schemas/json/manifests/AnyManifest.schema.json'), 'utf8'));
    const check = new Ajv({ strict: false, discriminator: true, allErrors: true }).compile(schema);
    const documents = readManifests(join(REPO_ROOT, 'examples/basic'));
    expect(documents.length).toBeGreaterThanOrEqual(19);
    for (const doc of documents) expect(check(doc), `${doc.kind}/${doc.name}: ${JSON.stringify(check.errors)}`).toBe(true);
    const broken = readManifests(join(REPO_ROOT, 'examples/broken')).find((d) => d.kind === 'IPPolicy' && d.name === 'vpn')!;
    expect(check(broken)).toBe(false);
  });
});
