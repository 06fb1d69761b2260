import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ManifestProblems } from '@gatehouse/engine';
import { CliError } from '../errors.js';
import { tempDirForFile } from '../testing/temp-dir.js';
import { selectEnvironments, type SelectOptions } from './select.js';

const dir = tempDirForFile('gatehouse-select-');

const PROJECT = `manifests: [manifests]
environments:
  staging:
    stack: web-staging
    api_url: \${env:STAGING_URL}
    api_key: \${env:STAGING_KEY}
    overlays: [envs/staging]
  production:
    api_url: https://api.example.com
    api_key: \${env:PROD_KEY}
`;

async function project(text = PROJECT): Promise<string> {
  const root = join(dir.path, `p${Math.random().toString(36).slice(2)}`);
  await mkdir(join(root, 'deep/er'), { recursive: true });
  await writeFile(join(root, 'gatehouse.yaml'), text);
  return root;
}

const select = (cwd: string, options: Omit<Partial<SelectOptions>, 'flags'> & { flags?: Partial<SelectOptions['flags']> } = {}) =>
  selectEnvironments({
    argv: [],
    explicit: new Set(),
    withoutEnv: 'required',
    allowAll: true,
    command: 'plan',
    env: { STAGING_URL: 'https://staging.example.com', STAGING_KEY: 'k-staging', PROD_KEY: 'k-prod' },
    cwd,
    ...options,
    flags: { stack: 'default', ...options.flags },
  });

const codeOf = async (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (error: unknown) => (error instanceof CliError ? error.code : String(error)),
  );

describe('selectEnvironments', () => {
  it('without a project file changes nothing, and refuses --env', async () => {
    const cwd = join(dir.path, 'none');
    await mkdir(cwd, { recursive: true });
    const selection = await select(cwd, { argv: ['a.yaml'], flags: { 'api-url': 'http://x', stack: 's' } });
    expect(selection.runs).toHaveLength(1);
    expect(selection.runs[0]!.paths).toEqual(['a.yaml']);
    expect(selection.runs[0]!.connection()).toMatchObject({ 'api-url': 'http://x', stack: 's' });
    expect(await codeOf(select(cwd, { flags: { env: 'staging' } }))).toBe('project_file');
  });

  it('finds gatehouse.yaml walking up; the environment feeds paths, API, key and stack', async () => {
    const root = await project();
    const selection = await select(join(root, 'deep/er'), { flags: { env: 'staging' } });
    const run = selection.runs[0]!;
    expect(run.environment?.name).toBe('staging');
    expect(run.paths).toEqual([join(root, 'manifests')]);
    expect(run.environment?.overlays).toEqual([join(root, 'envs/staging')]);
    expect(run.connection()).toMatchObject({ 'api-url': 'https://staging.example.com', 'api-key': 'k-staging', stack: 'web-staging' });
  });

  it('flags and GATEHOUSE_* variables override the file', async () => {
    const root = await project();
    const run = (await select(root, { flags: { env: 'staging', 'api-url': 'http://override', stack: 'mine' }, explicit: new Set(['api-url', 'stack']) }))
      .runs[0]!;
    expect(run.connection()).toMatchObject({ 'api-url': 'http://override', 'api-key': 'k-staging', stack: 'mine' });
    // The default stack is not an override: the environment's stack (or the default) stays.
    const production = (await select(root, { flags: { env: 'production' } })).runs[0]!;
    expect(production.connection()).toMatchObject({ 'api-url': 'https://api.example.com', 'api-key': 'k-prod', stack: 'default' });
  });

  it('an unset ${env:} of the environment is an error naming the variable and the line, only when connecting', async () => {
    const root = await project();
    const run = (await select(root, { flags: { env: 'staging' }, env: {} })).runs[0]!;
    expect(() => run.connection()).toThrow(/STAGING_URL is not set/);
    expect(() => run.connection()).toThrow(/gatehouse\.yaml:5:14/);
  });

  it('needs --env when environments exist (validate checks every one); --env all needs no override', async () => {
    const root = await project();
    expect(await codeOf(select(root))).toBe('environment_required');
    expect((await select(root, { withoutEnv: 'every' })).runs.map((r) => r.environment?.name)).toEqual(['staging', 'production']);
    expect((await select(root, { flags: { env: 'all' } })).all).toBe(true);
    expect(await codeOf(select(root, { flags: { env: 'all' }, allowAll: false, command: 'apply' }))).toBe('environment_all_refused');
    expect(await codeOf(select(root, { flags: { env: 'all', 'api-url': 'http://one' }, explicit: new Set(['api-url']) }))).toBe('environment_all_refused');
    expect(await codeOf(select(root, { flags: { env: 'nope' } }))).toBe('environment_unknown');
    expect(await codeOf(select(root, { flags: { env: ' ' } }))).toBe('environment_unknown');
  });

  it('a project file against its schema: problems at its lines; a literal api_key is refused', async () => {
    const root = await project('manifests: [m]\nenviroments: {}\nenvironments:\n  prod:\n    api_key: hunter2\n');
    const error = await select(root, { flags: { env: 'prod' } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ManifestProblems);
    const problems = (error as ManifestProblems).problems.map((p) => [p.code, p.at?.line]);
    expect(problems).toEqual(
      expect.arrayContaining([
        ['unknown_field', 2],
        ['invalid_value', 5],
      ]),
    );
    expect((error as ManifestProblems).message).not.toContain('hunter2');
    expect((error as ManifestProblems).problems.find((p) => p.at?.line === 5)!.message).toContain('must be ${env:NAME}');
    const names = await select(await project('manifests: [m]\nenvironments:\n  all: {}\n  Prod: {}\n'), { flags: { env: 'prod' } }).catch((e: unknown) => e);
    expect((names as ManifestProblems).problems.map((p) => [p.at?.line, p.message])).toEqual([
      [3, expect.stringContaining('environment name "all" must be')],
      [4, expect.stringContaining('environment name "Prod" must be')],
    ]);
  });
});
