/**
 * The release as a user downloads it (`npm run release`: scripts/release.mjs), installed as a
 * user would: `npm install ./gatehouse-cli-<version>.tgz` alone, in an empty directory, with the
 * registry of the @gatehouse scope set to a closed port, so that any request for a gatehouse
 * package fails (and shows in npm's log). Third-party packages come from npm's cache or the
 * registry as usual. Then, on that install:
 * - the CLI validates, plans and applies against `gatehouse serve` of the workspace, reports the
 *   commit it was built from, and says what to do when the server is needed but missing;
 * - the shell recipe, the GitLab recipe and the GitHub Action install gatehouse from the same
 *   tarball (each into its own directory) and run their steps;
 * - read-only: the server's tarball is installed beside the CLI, the whole install handed to
 *   root and made read-only, and the unprivileged user `nobody` validates, plans and applies
 *   with the embedded server; every file of the install is the same afterwards.
 */
import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, startServe, tempDir, type ServeProcess } from './helpers/cli.js';
import { runAs, treeChanges, treeState, unprivilegedUser, type RunResult } from './helpers/install.js';
import { EXAMPLE_SECRETS } from './plan-fixtures.js';
// @ts-expect-error -- plain ESM script without type declarations
import { stagedManifest, workspaceDependencies } from '../scripts/release.mjs';

const execFileAsync = promisify(execFile);
const VERSION = (JSON.parse(readFileSync(join(REPO_ROOT, 'packages/cli/package.json'), 'utf8')) as { version: string }).version;
const CLI_TARBALL = `gatehouse-cli-${VERSION}.tgz`;
const SERVER_TARBALL = `gatehouse-server-${VERSION}.tgz`;
const HEAD = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
const KEY = 'gh_release_test_key_0123456789';
/** npm settings for every install here: gatehouse's scope on a closed port, the cache first, its requests logged. */
const NPM_ENV = {
  'npm_config_@gatehouse:registry': 'http://127.0.0.1:9/',
  npm_config_prefer_offline: 'true',
  npm_config_loglevel: 'http',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_engine_strict: 'false',
};
/** npm's log lines of requests for a gatehouse package (`@gatehouse%2fcli`). */
const gatehouseRequests = (log: string) => log.split('\n').filter((line) => /npm http fetch .*@gatehouse(%2f|\/)/i.test(line));
/** stderr as one line: oclif may wrap an error message and prefix its lines with `›`. */
const flat = (text: string) =>
  text
    .replace(/\s*›\s*/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
const cleanEnv = () => Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('GATEHOUSE_')));
const tarList = (file: string) =>
  execFileSync('tar', ['-tzf', file], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
    .trim()
    .split('\n');
const tarRead = (file: string, path: string) => execFileSync('tar', ['-xzOf', file, path], { encoding: 'utf8' });

const work = tempDir('gatehouse-release-');
/** The release's files. */
const out = join(work.path, 'release');
/** Where `npm install ./gatehouse-cli-<version>.tgz` runs: the install the read-only part freezes. */
const install = join(work.path, 'install');
/** The user's repository: manifests, saved plans, the embedded server's database. */
const app = join(work.path, 'app');
const bin = join(install, 'node_modules/.bin/gatehouse');
let installLog = '';
/** The install as npm left it. */
let installed: Map<string, string>;
let server: ServeProcess;

/** The installed `gatehouse`, run in the app directory with a clean environment (never rejects). */
async function gatehouse(args: string[], env: Record<string, string> = {}): Promise<RunResult & { message: string }> {
  try {
    const { stdout, stderr } = await execFileAsync(bin, args, { cwd: app, env: { ...cleanEnv(), NO_COLOR: '1', CI: 'true', ...EXAMPLE_SECRETS, ...env } });
    return { code: 0, stdout, stderr, message: flat(stderr) };
  } catch (error) {
    const failure = error as { code: number; stdout: string; stderr: string };
    return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr, message: flat(failure.stderr) };
  }
}

/** `npm install <specs>` in `dir` (created), with NPM_ENV; returns npm's log. */
async function npmInstall(dir: string, specs: string[], extra: string[] = []): Promise<string> {
  mkdirSync(dir, { recursive: true });
  const { stdout, stderr } = await execFileAsync('npm', ['install', ...extra, ...specs], {
    cwd: dir,
    env: { ...process.env, ...NPM_ENV },
    maxBuffer: 64 * 1024 * 1024,
  });
  return `${stdout}${stderr}`;
}

beforeAll(async () => {
  // dist/ and the CLI's oclif manifest are built: `npm test` runs `npm run build` first, and
  // `npm run release` is that build and this script.
  await execFileAsync(process.execPath, ['scripts/release.mjs', '--out', out], { cwd: REPO_ROOT });
  // The unprivileged user of the read-only part must reach the install and the app.
  chmodSync(work.path, 0o755);
  cpSync(join(REPO_ROOT, 'examples/basic'), join(app, 'manifests'), { recursive: true });
  installLog = await npmInstall(install, [join(out, CLI_TARBALL)]);
  installed = treeState(install);
  server = await startServe(['--port', '0', '--db', ':memory:', '--api-key', KEY], { cwd: work.path });
}, 300_000);

afterAll(async () => {
  await server?.stop();
  work.cleanup();
});

describe('npm run release', () => {
  it('stages each released package with its workspace packages bundled and their dependencies its own', () => {
    const manifests = ['schemas', 'packages/client', 'packages/engine', 'packages/server', 'packages/cli'].map(
      (dir) => JSON.parse(readFileSync(join(REPO_ROOT, dir, 'package.json'), 'utf8')) as { name: string; dependencies: Record<string, string> },
    );
    expect(workspaceDependencies('@gatehouse/cli', manifests)).toEqual(['@gatehouse/client', '@gatehouse/engine', '@gatehouse/schemas']);
    expect(workspaceDependencies('@gatehouse/server', manifests)).toEqual(['@gatehouse/schemas']);
    const cli = stagedManifest(
      manifests.find((m) => m.name === '@gatehouse/cli'),
      manifests,
    ) as Record<string, Record<string, string> | undefined>;
    expect(cli.bundleDependencies).toEqual(['@gatehouse/client', '@gatehouse/engine', '@gatehouse/schemas']);
    // npm would ask the registry for the server even as an optional peer: it is left to its own tarball.
    expect(cli.optionalDependencies?.['@gatehouse/server']).toBeUndefined();
    expect(cli.peerDependencies?.['@gatehouse/server']).toBeUndefined();
    expect(cli.scripts).toBeUndefined();
    const engine = manifests.find((m) => m.name === '@gatehouse/engine')!;
    for (const [name, range] of Object.entries(engine.dependencies)) if (!name.startsWith('@gatehouse/')) expect(cli.dependencies?.[name], name).toBe(range);

    const pkg = (name: string, dependencies: Record<string, string>) => ({ name, version: '1.0.0', dependencies });
    const narrower = stagedManifest(pkg('@x/cli', { '@x/lib': '1.0.0', p: '^1.0.0' }), [
      pkg('@x/cli', { '@x/lib': '1.0.0', p: '^1.0.0' }),
      pkg('@x/lib', { p: '^1.2.0' }),
    ]);
    expect(narrower.dependencies).toEqual({ '@x/lib': '1.0.0', p: '^1.2.0' });
    expect(() =>
      stagedManifest(pkg('@x/cli', { '@x/lib': '1.0.0', p: '^1.0.0' }), [pkg('@x/cli', { '@x/lib': '1.0.0', p: '^1.0.0' }), pkg('@x/lib', { p: '^2.0.0' })]),
    ).toThrow('@x/cli needs p@^1.0.0 and @x/lib needs p@^2.0.0: align the two ranges');
  });

  it('writes the CLI tarball and the server tarball, with their checksums', () => {
    expect(readdirSync(out).sort()).toEqual(['SHA256SUMS', CLI_TARBALL, SERVER_TARBALL]);
    const sums = [CLI_TARBALL, SERVER_TARBALL].map(
      (file) =>
        `${createHash('sha256')
          .update(readFileSync(join(out, file)))
          .digest('hex')}  ${file}`,
    );
    expect(readFileSync(join(out, 'SHA256SUMS'), 'utf8').trim().split('\n')).toEqual(sums);
  });

  it('the CLI tarball holds its build, oclif manifest and commit, and engine, client and schemas, without sources or tests', () => {
    const tarball = join(out, CLI_TARBALL);
    const files = tarList(tarball);
    const bundled = ['engine', 'client', 'schemas'].map((name) => `package/node_modules/@gatehouse/${name}`);
    expect(files).toEqual(
      expect.arrayContaining([
        'package/package.json',
        'package/LICENSE',
        'package/README.md',
        'package/bin/run.js',
        'package/dist/commands/plan.js',
        'package/oclif.manifest.json',
        'package/build-info.json',
        ...bundled.flatMap((dir) => [`${dir}/package.json`, `${dir}/LICENSE`, `${dir}/README.md`, `${dir}/dist/index.js`, `${dir}/dist/index.d.ts`]),
        'package/node_modules/@gatehouse/schemas/json/manifests/AnyManifest.schema.json',
      ]),
    );
    expect(files.filter((f) => /\/src\/|\.test\.|tsbuildinfo|\.v8cache$|dist-bundle/.test(f))).toEqual([]);
    // Nothing third-party inside: npm installs those as usual.
    expect(files.filter((f) => f.startsWith('package/node_modules/') && !f.startsWith('package/node_modules/@gatehouse/'))).toEqual([]);
    expect(JSON.parse(tarRead(tarball, 'package/build-info.json'))).toEqual({ commit: HEAD });
    const manifest = JSON.parse(tarRead(tarball, 'package/oclif.manifest.json')) as { version: string; commands: Record<string, { relativePath: string[] }> };
    expect(manifest.version).toBe(VERSION);
    expect(manifest.commands.plan!.relativePath).toEqual(['dist', 'commands', 'plan.js']);
  });

  it('the server tarball bundles the schemas it needs', () => {
    const files = tarList(join(out, SERVER_TARBALL));
    expect(files).toEqual(expect.arrayContaining(['package/dist/index.js', 'package/LICENSE', 'package/node_modules/@gatehouse/schemas/dist/index.js']));
    expect(files.filter((f) => /\/src\/|\.test\.|tsbuildinfo/.test(f))).toEqual([]);
  });
});

describe('npm install ./gatehouse-cli-<version>.tgz, alone, into an empty directory', () => {
  it('asks the registry for no gatehouse package, and installs no server, nothing compiled, no engine warning', () => {
    expect(gatehouseRequests(installLog)).toEqual([]);
    expect(installLog).not.toMatch(/EBADENGINE|gyp|prebuild/);
    expect(readdirSync(join(install, 'node_modules/@gatehouse'))).toEqual(['cli']);
    for (const name of ['engine', 'client', 'schemas'])
      expect(existsSync(join(install, 'node_modules/@gatehouse/cli/node_modules/@gatehouse', name, 'dist/index.js'))).toBe(true);
    expect(existsSync(join(install, 'node_modules/better-sqlite3'))).toBe(false);
    expect(existsSync(join(install, 'node_modules/fastify'))).toBe(false);
  });

  it('validates, plans to a file, applies exactly that plan, and then plans no changes', async () => {
    const api = { GATEHOUSE_API_URL: server.url, GATEHOUSE_API_KEY: KEY };
    const validate = await gatehouse(['validate', 'manifests']);
    expect(validate.stderr).toBe('');
    expect(validate.code).toBe(0);

    const plan = await gatehouse(['plan', 'manifests', '--out', 'plan.json', '--detailed-exitcode'], api);
    expect(plan.code, plan.stderr).toBe(2);
    expect(plan.stdout).toMatch(/to create/);
    expect(existsSync(join(app, 'plan.json'))).toBe(true);

    const apply = await gatehouse(['apply', '--plan', 'plan.json', '--yes'], api);
    expect(apply.code, apply.stderr).toBe(0);
    expect(`${apply.stdout}${apply.stderr}`).toMatch(/Apply complete/);

    const again = await gatehouse(['plan', 'manifests', '--detailed-exitcode'], api);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).toMatch(/No changes/);
  }, 180_000);

  it('reports the version and the commit it was built from', async () => {
    const version = await gatehouse(['version', '--format', 'json']);
    expect(JSON.parse(version.stdout)).toMatchObject({ name: '@gatehouse/cli', version: VERSION, commit: HEAD });
    expect((await gatehouse(['--version'])).stdout).toContain(`@gatehouse/cli/${VERSION}`);
  });

  it('says what to do when serve or the embedded default needs the missing server', async () => {
    const serve = await gatehouse(['serve', '--port', '0']);
    expect(serve.code).toBe(1);
    expect(serve.message).toMatch(/gatehouse serve needs the reference server \(@gatehouse\/server\), which is not installed/);
    expect(serve.message).toMatch(/npm install @gatehouse\/server@\d/);
    expect(serve.message).toContain(`npm install ./${SERVER_TARBALL}`);

    const embedded = await gatehouse(['plan', 'manifests', '--embedded']);
    expect(embedded.code).toBe(1);
    expect(embedded.message).toMatch(/embedded reference server \(@gatehouse\/server\), which is not installed/);
    expect(embedded.message).toMatch(/Set GATEHOUSE_API_URL and GATEHOUSE_API_KEY/);
    expect(existsSync(join(app, '.gatehouse'))).toBe(false);
  }, 120_000);

  it('wrote nothing into its installation, though it ran as root, who may write anywhere', () => {
    expect(treeChanges(installed, treeState(install))).toEqual([]);
  });
});

describe('the CI recipes and the Action install gatehouse from the release tarball', () => {
  const api = () => ({ GATEHOUSE_API_URL: server.url, GATEHOUSE_API_KEY: KEY });
  const recipeEnv = (extra: Record<string, string>) => ({
    ...cleanEnv(),
    ...NPM_ENV,
    NODE_ENV: '',
    NO_COLOR: '1',
    CI: 'true',
    ...EXAMPLE_SECRETS,
    ...api(),
    ...extra,
  });
  /** A change for the next plan: the office policy's description names who planned it. */
  const describePolicy = (by: string) => {
    const policies = join(app, 'manifests/ip-policies.yaml');
    writeFileSync(policies, readFileSync(policies, 'utf8').replace(/description: Office egress[^\n]*/, `description: Office egress (${by})`));
  };

  it('the shell recipe (GATEHOUSE_TARBALL) installs, plans a change, applies the plan it saved, and then finds no drift', async () => {
    const recipe = join(REPO_ROOT, 'examples/ci/shell/gatehouse-ci.sh');
    // Where the GitLab recipe installs, relative to its job's directory: the next test reuses it.
    const prefix = join(work.path, 'ci-job/.gatehouse-cli');
    describePolicy('shell recipe');
    const stage = (name: string) =>
      execFileAsync('sh', [recipe, name], {
        cwd: app,
        env: recipeEnv({ GATEHOUSE_TARBALL: join(out, CLI_TARBALL), GATEHOUSE_PREFIX: prefix, MANIFESTS: 'manifests' }),
      });
    const plan = await stage('plan');
    expect(plan.stdout).toMatch(/added \d+ packages/);
    expect(gatehouseRequests(`${plan.stdout}${plan.stderr}`)).toEqual([]);
    expect(readFileSync(join(prefix, '.installed-from'), 'utf8').trim()).toBe(join(out, CLI_TARBALL));
    expect(existsSync(join(prefix, 'node_modules/@gatehouse/cli/node_modules/@gatehouse/engine'))).toBe(true);
    expect(readFileSync(join(app, 'plan.md'), 'utf8')).toContain('Office egress (shell recipe)');
    const apply = await stage('apply');
    expect(apply.stdout).not.toMatch(/added \d+ packages/); // installed once
    await stage('drift'); // exit 2 (drift) would reject
    expect(JSON.parse(readFileSync(join(app, 'drift.json'), 'utf8'))).toBeTypeOf('object');
    // http:// is refused: the CLI runs with the API key.
    await expect(
      execFileAsync('sh', [recipe, 'plan'], { cwd: app, env: recipeEnv({ GATEHOUSE_TARBALL: 'http://example.com/x.tgz', GATEHOUSE_PREFIX: prefix }) }),
    ).rejects.toMatchObject({
      stderr: expect.stringContaining('GATEHOUSE_TARBALL must be a path or an https:// URL'),
    });
  }, 180_000);

  it('the GitLab recipe’s before_script keeps the install of the same GATEHOUSE_TARBALL (its cache), and runs it', async () => {
    // The shell recipe's install (the same npm command: test/ci-recipes.test.ts) in the job's
    // .gatehouse-cli, as GitLab restores it from the cache.
    const ci = parse(readFileSync(join(REPO_ROOT, 'examples/ci/gitlab/.gitlab-ci.yml'), 'utf8')) as { '.gatehouse': { before_script: string[] } };
    const script = [...ci['.gatehouse'].before_script, 'gatehouse --version'].join('\n');
    const run = await execFileAsync('sh', ['-euc', script], {
      cwd: join(work.path, 'ci-job'),
      env: recipeEnv({ GATEHOUSE_VERSION: VERSION, GATEHOUSE_TARBALL: join(out, CLI_TARBALL) }),
    });
    expect(run.stdout).not.toMatch(/added \d+ packages/);
    expect(run.stdout).toContain(`@gatehouse/cli/${VERSION}`);
  }, 60_000);

  it('the GitHub Action installs its tarball input, plans (comment and outputs), applies the saved plan, and comments a failure', async () => {
    const action = parse(readFileSync(join(REPO_ROOT, 'action.yml'), 'utf8')) as { runs: { steps: { name: string; run?: string }[] } };
    const runner = join(work.path, 'runner');
    mkdirSync(runner);
    writeFileSync(join(app, 'event.json'), JSON.stringify({ pull_request: { number: 5, head: { sha: 'abc123' } } }));
    let outputs = 0;
    const step = async (subcommand: string, inputs: Record<string, string>, env: Record<string, string> = {}) => {
      const output = join(runner, `github-output-${++outputs}`);
      writeFileSync(output, '');
      const code = await execFileAsync(process.execPath, [join(REPO_ROOT, 'action/main.mjs'), subcommand], {
        cwd: app,
        env: {
          ...recipeEnv({}),
          PATH: `${join(runner, 'gatehouse-cli/node_modules/.bin')}:${process.env.PATH}`,
          GITHUB_OUTPUT: output,
          GITHUB_EVENT_PATH: join(app, 'event.json'),
          GITHUB_WORKSPACE: app,
          RUNNER_TEMP: runner,
          ...env,
          ...Object.fromEntries(Object.entries(inputs).map(([name, value]) => [`INPUT_${name.toUpperCase().replace(/-/g, '_')}`, value])),
        },
      }).then(
        () => 0,
        (error: { code: number }) => error.code,
      );
      const values = Object.fromEntries(
        readFileSync(output, 'utf8')
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((line) => line.split(/=(.*)/s).slice(0, 2)),
      );
      return { code, outputs: values };
    };

    // The tarball input, relative to the workspace as a user writes it.
    copyFileSync(join(out, CLI_TARBALL), join(app, CLI_TARBALL));
    const which = await step('version', { tarball: CLI_TARBALL });
    expect(which.outputs).toMatchObject({ spec: join(app, CLI_TARBALL), key: expect.stringMatching(/^file-[0-9a-f]{16}$/) });
    const installStep = action.runs.steps.find((s) => s.name === 'Install gatehouse')!;
    const installed = await execFileAsync('bash', ['-eo', 'pipefail', '-c', installStep.run!], {
      cwd: app,
      env: { ...recipeEnv({}), RUNNER_TEMP: runner, SPEC: which.outputs.spec! },
    });
    expect(gatehouseRequests(`${installed.stdout}${installed.stderr}`)).toEqual([]);

    describePolicy('action');
    const plan = await step('run', { command: 'plan', path: 'manifests', 'plan-file': 'action-plan.json' });
    expect(plan.code).toBe(0);
    expect(plan.outputs).toMatchObject({ exitcode: '2', 'has-changes': 'true', 'artifact-name': 'gatehouse-plan-abc123', 'plan-file': 'action-plan.json' });
    const comment = readFileSync(plan.outputs['comment-file']!, 'utf8');
    expect(comment.startsWith('<!-- gatehouse-plan:default -->')).toBe(true);
    expect(comment).toContain('Office egress (action)');

    const apply = await step('run', { command: 'apply', 'plan-file': 'action-plan.json' });
    expect(apply).toMatchObject({ code: 0, outputs: { exitcode: '0' } });
    expect((await gatehouse(['plan', 'manifests', '--detailed-exitcode'], api())).code).toBe(0);

    writeFileSync(join(app, 'broken.yaml'), 'kind: IPPolicy\nname: broken\nspec:\n  descripton: typo\n');
    const failed = await step('run', { command: 'plan', path: 'broken.yaml', 'plan-file': 'broken-plan.json' });
    expect(failed.code).toBe(1);
    const failure = readFileSync(failed.outputs['comment-file']!, 'utf8');
    expect(failure).toContain('**`gatehouse validate` failed** (exit 1)');
    expect(failure).toContain('broken.yaml:4');
    expect(existsSync(join(app, 'broken-plan.json'))).toBe(false);
  }, 180_000);
});

describe('a read-only install owned by root, run by an unprivileged user', () => {
  const found = unprivilegedUser();
  const user = 'reason' in found ? { uid: -1, gid: -1 } : found;
  const skip = 'reason' in found ? `skipped: ${found.reason}` : undefined;
  if (skip && !process.env.CI) console.warn(`test/release.test.ts, read-only install: ${skip}`);
  let before: Map<string, string>;
  /** Where nobody works: a copy of the manifests in a directory of its own. */
  const home = join(work.path, 'nobody');

  /** The installed gatehouse as nobody, in its home, with the embedded server (no API URL). */
  const asNobody = (args: string[]) =>
    runAs(user, bin, args, { cwd: home, env: { PATH: process.env.PATH, HOME: home, NO_COLOR: '1', CI: 'true', ...EXAMPLE_SECRETS } });

  beforeAll(async () => {
    if (skip) return;
    // The optional server, from its own tarball, beside the CLI: what the embedded default needs.
    // Its native SQLite module is better-sqlite3's own build step (a compiler, a minute): the
    // workspace's build of the same version is used instead, or it is built when they differ.
    const log = await npmInstall(install, [join(out, SERVER_TARBALL)], ['--ignore-scripts']);
    expect(gatehouseRequests(log)).toEqual([]);
    const version = (dir: string) => (JSON.parse(readFileSync(join(dir, 'node_modules/better-sqlite3/package.json'), 'utf8')) as { version: string }).version;
    const binding = 'node_modules/better-sqlite3/build/Release/better_sqlite3.node';
    if (version(install) === version(REPO_ROOT) && existsSync(join(REPO_ROOT, binding))) {
      mkdirSync(join(install, 'node_modules/better-sqlite3/build/Release'), { recursive: true });
      copyFileSync(join(REPO_ROOT, binding), join(install, binding));
    } else {
      await execFileAsync('npm', ['rebuild', 'better-sqlite3'], { cwd: install, env: { ...process.env, ...NPM_ENV } });
    }
    cpSync(join(REPO_ROOT, 'examples/basic'), join(home, 'manifests'), { recursive: true });
    execFileSync('chown', ['-R', `${user.uid}:${user.gid}`, home]);
    // Root's, and read-only for everyone.
    execFileSync('chown', ['-R', '0:0', install]);
    execFileSync('chmod', ['-R', 'a-w', install]);
    before = treeState(install);
  }, 300_000);

  it('is read-only to that user (else this test would prove nothing)', async (ctx) => {
    if (skip) return process.env.CI ? expect.fail(`CI must run the read-only install test, but it is ${skip}`) : ctx.skip(skip);
    const probe = await runAs(
      user,
      process.execPath,
      ['-e', `require('node:fs').writeFileSync(${JSON.stringify(join(install, 'node_modules/@gatehouse/cli/probe'))}, 'x')`],
      { cwd: home, env: { PATH: process.env.PATH } },
    );
    expect(probe.code).not.toBe(0);
    expect(probe.stderr).toMatch(/EACCES/);
    expect(readdirSync(join(install, 'node_modules/@gatehouse')).sort()).toEqual(['cli', 'server']);
  });

  it('validates, plans, applies the saved plan, and plans no changes, with the embedded server', async (ctx) => {
    if (skip) return process.env.CI ? expect.fail(`CI must run the read-only install test, but it is ${skip}`) : ctx.skip(skip);
    const validate = await asNobody(['validate', 'manifests']);
    expect(validate.code, validate.stderr).toBe(0);
    const plan = await asNobody(['plan', 'manifests', '--embedded', '--out', 'plan.json', '--detailed-exitcode']);
    expect(plan.code, plan.stderr).toBe(2);
    expect(plan.stdout).toMatch(/to create/);
    const apply = await asNobody(['apply', '--plan', 'plan.json', '--embedded', '--yes']);
    expect(apply.code, apply.stderr).toBe(0);
    expect(`${apply.stdout}${apply.stderr}`).toMatch(/Apply complete/);
    const again = await asNobody(['plan', 'manifests', '--embedded', '--detailed-exitcode']);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).toMatch(/No changes/);
    // The embedded server's database is the user's, in the working directory.
    expect(existsSync(join(home, '.gatehouse'))).toBe(true);
    const version = await asNobody(['version', '--format', 'json']);
    expect(JSON.parse(version.stdout)).toMatchObject({ version: VERSION, commit: HEAD });
    expect((await asNobody(['--help'])).code).toBe(0);
  }, 180_000);

  it('leaves every file of the install as it was', (ctx) => {
    if (skip) return process.env.CI ? expect.fail(`CI must run the read-only install test, but it is ${skip}`) : ctx.skip(skip);
    expect(treeChanges(before, treeState(install))).toEqual([]);
  });
});
