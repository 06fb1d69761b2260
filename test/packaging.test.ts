/**
 * The packages as users get them from the registry: what each published package declares and
 * ships, versions that move together, a dependency tree of the CLI that installs on Node 20.19
 * without engine warnings, and the real thing: every workspace packed with `npm pack`, the
 * tarballs installed into an empty directory with `npm install --omit=optional` (so no
 * @gatehouse/server and no better-sqlite3: nothing is compiled), and the installed
 * `gatehouse` validating, planning and applying against a `gatehouse serve` of the workspace.
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import semver from 'semver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, startServe, tempDir, type ServeProcess } from './helpers/cli.js';
import { EXAMPLE_SECRETS } from './plan-fixtures.js';
// @ts-expect-error -- plain ESM scripts without type declarations
import { PUBLISHED_PACKAGES } from '../scripts/packages.mjs';
// @ts-expect-error -- plain ESM scripts without type declarations
import { PINNED_FILES, pinVersion, setVersion, versionProblems } from '../scripts/set-version.mjs';

interface PackageJson {
  name: string;
  version: string;
  private?: boolean;
  license?: string;
  repository?: { url: string; directory: string };
  files?: string[];
  exports?: Record<string, unknown>;
  engines?: { node?: string };
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

const packages = (PUBLISHED_PACKAGES as { name: string; dir: string }[]).map((p) => ({
  ...p,
  json: JSON.parse(readFileSync(join(REPO_ROOT, p.dir, 'package.json'), 'utf8')) as PackageJson,
}));
const execFileAsync = promisify(execFile);
/** stderr as one line: oclif may wrap an error message and prefix its lines with `›`. */
const flat = (text: string) => text.replace(/\s*›\s*/g, ' ').replace(/\s+/g, ' ').trim();

describe('published packages', () => {
  it.each(packages)('$name declares what the registry needs', ({ dir, json }) => {
    expect(json.private).toBeUndefined();
    expect(json.license).toBe('MIT');
    expect(existsSync(join(REPO_ROOT, dir, 'LICENSE'))).toBe(true);
    expect(existsSync(join(REPO_ROOT, dir, 'README.md'))).toBe(true);
    expect(json.repository).toMatchObject({ url: expect.stringMatching(/^git\+https:\/\/github\.com\//), directory: dir });
    expect(json.files).toContain('dist');
    // The CLI is a command, not a library: no '.' export (there is no dist/index.js).
    if (json.name === '@gatehouse/cli') expect(json.exports).toMatchObject({ './package.json': './package.json' });
    if (json.name === '@gatehouse/cli') expect(json.exports?.['.']).toBeUndefined();
    else expect(json.exports?.['.']).toEqual({ types: './dist/index.d.ts', default: './dist/index.js' });
    expect(json.engines?.node).toBe('>=20.19');
  });

  it('the CLI needs the server only as an optional dependency', () => {
    const cli = packages.find((p) => p.name === '@gatehouse/cli')!.json;
    expect(cli.dependencies?.['@gatehouse/server']).toBeUndefined();
    expect(cli.optionalDependencies?.['@gatehouse/server']).toBe(cli.version);
  });

  it('versions move together, and the version script moves every internal dependency', () => {
    const manifests = packages.map((p) => p.json);
    expect(versionProblems(manifests)).toEqual([]);
    const moved = setVersion(manifests, '1.2.3-rc.1') as PackageJson[];
    expect(versionProblems(moved)).toEqual([]);
    expect(moved.find((m) => m.name === '@gatehouse/cli')).toMatchObject({
      version: '1.2.3-rc.1',
      dependencies: { '@gatehouse/engine': '1.2.3-rc.1', '@oclif/core': manifests.find((m) => m.name === '@gatehouse/cli')!.dependencies!['@oclif/core'] },
      optionalDependencies: { '@gatehouse/server': '1.2.3-rc.1' },
    });
    const skewed = manifests.map((m) => (m.name === '@gatehouse/engine' ? { ...m, version: '0.0.9' } : m));
    expect(versionProblems(skewed)).toContain(`@gatehouse/engine is at 0.0.9, not ${manifests[0]!.version}`);
    expect(() => setVersion(manifests, 'v1')).toThrow(/not a version/);
  });

  it('the recipes, the Action tag and the schema URLs in the documents name the current release', () => {
    const version = packages[0]!.json.version;
    const stale = (PINNED_FILES as string[]).filter((file) => {
      const text = readFileSync(join(REPO_ROOT, file), 'utf8');
      return pinVersion(text, version) !== text;
    });
    expect(stale, `run \`npm run version:set -- ${version}\``).toEqual([]);
    const moved = pinVersion('uses: gatehouse/gatehouse@v0.1.0\nGATEHOUSE_VERSION: "0.1.0"\n${GATEHOUSE_VERSION:-0.1.0}\n@gatehouse/schemas@0.1/json/x', '1.2.0') as string;
    expect(moved).toBe('uses: gatehouse/gatehouse@v1.2.0\nGATEHOUSE_VERSION: "1.2.0"\n${GATEHOUSE_VERSION:-1.2.0}\n@gatehouse/schemas@1/json/x');
  });

  it('nothing in the CLI’s dependency tree (the optional server included) demands more than Node 20.19', () => {
    // npm warns EBADENGINE for such a package, and silently drops an OPTIONAL dependency whose
    // tree has one: cookie@2 (node >=22, through light-my-request 6.8) made `npm install
    // @gatehouse/cli` on Node 20 install no server at all.
    const lock = JSON.parse(readFileSync(join(REPO_ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, PackageJson & { link?: boolean; resolved?: string }> };
    const entries = lock.packages;
    const resolve = (from: string, name: string): string | undefined => {
      for (let base = from; ; ) {
        const candidate = `${base ? `${base}/` : ''}node_modules/${name}`;
        const entry = entries[candidate];
        if (entry) return entry.link && entry.resolved ? entry.resolved : candidate;
        if (base === '') return undefined;
        const i = base.lastIndexOf('/node_modules/');
        base = i >= 0 ? base.slice(0, i) : '';
      }
    };
    const seen = new Set<string>();
    const unmet: string[] = [];
    const visit = (location: string) => {
      if (seen.has(location)) return;
      seen.add(location);
      const entry = entries[location]!;
      const range = entry.engines?.node;
      const name = entry.name ?? location.slice(location.lastIndexOf('node_modules/') + 13);
      for (const node of ['20.19.0', '22.0.0']) {
        if (range && !semver.satisfies(node, range)) unmet.push(`${name}@${entry.version} needs node ${range} (not ${node})`);
      }
      const required = { ...entry.dependencies, ...entry.optionalDependencies };
      for (const peer of Object.keys(entry.peerDependencies ?? {})) {
        if (!entry.peerDependenciesMeta?.[peer]?.optional) required[peer] = entry.peerDependencies![peer]!;
      }
      for (const dependency of Object.keys(required)) {
        const target = resolve(location, dependency);
        if (target) visit(target);
        else if (!entry.optionalDependencies?.[dependency]) unmet.push(`${name}: ${dependency} is not in package-lock.json`);
      }
    };
    visit('packages/cli');
    expect(seen.has('packages/server')).toBe(true);
    expect(seen.size).toBeGreaterThan(50);
    expect(unmet).toEqual([]);
  });
});

describe('npm pack, then npm install --omit=optional into an empty directory', () => {
  const work = tempDir('gatehouse-pack-');
  const app = join(work.path, 'app');
  const KEY = 'gh_pack_test_key_0123456789';
  let tarballs: { name: string; filename: string; files: { path: string }[] }[];
  let install: { stdout: string; stderr: string };
  let server: ServeProcess;

  /** The installed `gatehouse`, run in the app directory with a clean environment. */
  const gatehouse = async (args: string[], env: Record<string, string> = {}) => {
    const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('GATEHOUSE_')));
    try {
      const { stdout, stderr } = await execFileAsync(join(app, 'node_modules/.bin/gatehouse'), args, {
        cwd: app,
        env: { ...clean, NO_COLOR: '1', CI: 'true', ...EXAMPLE_SECRETS, ...env },
      });
      return { code: 0, stdout, stderr, message: flat(stderr) };
    } catch (error) {
      const failure = error as { code: number; stdout: string; stderr: string };
      return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr, message: flat(failure.stderr) };
    }
  };

  beforeAll(async () => {
    // dist/ and the CLI's oclif manifest are built: `npm test` runs `npm run build` first.
    const packed = await execFileAsync('npm', ['pack', '--workspaces', '--ignore-scripts', '--json', '--pack-destination', work.path], {
      cwd: REPO_ROOT,
      maxBuffer: 64 * 1024 * 1024,
    });
    tarballs = JSON.parse(packed.stdout) as typeof tarballs;
    const file = (name: string) => `file:${join(work.path, tarballs.find((t) => t.name === name)!.filename)}`;
    // The app depends on every tarball; the server's is optional as it is for the CLI, so that
    // npm resolves the CLI's optional dependency to it (and leaves it out) without the registry.
    cpSync(join(REPO_ROOT, 'examples/basic'), join(app, 'manifests'), { recursive: true });
    writeFileSync(
      join(app, 'package.json'),
      JSON.stringify({
        name: 'gatehouse-pack-test',
        private: true,
        dependencies: Object.fromEntries(packages.filter((p) => p.name !== '@gatehouse/server').map((p) => [p.name, file(p.name)])),
        optionalDependencies: { '@gatehouse/server': file('@gatehouse/server') },
      }),
    );
    install = await execFileAsync('npm', ['install', '--omit=optional', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=warn'], {
      cwd: app,
      env: { ...process.env, npm_config_engine_strict: 'false' },
    });
    server = await startServe(['--port', '0', '--db', ':memory:', '--api-key', KEY], { cwd: work.path });
  }, 300_000);

  afterAll(async () => {
    await server?.stop();
    work.cleanup();
  });

  it('packs every package with its build, licence and readme, and no sources or tests', () => {
    expect(tarballs.map((t) => t.name).sort()).toEqual(packages.map((p) => p.name).sort());
    for (const tarball of tarballs) {
      const files = tarball.files.map((f) => f.path);
      const entry = tarball.name === '@gatehouse/cli' ? ['bin/run.js', 'dist/commands/plan.js', 'oclif.manifest.json'] : ['dist/index.js', 'dist/index.d.ts'];
      expect(files, tarball.name).toEqual(expect.arrayContaining(['package.json', 'LICENSE', 'README.md', ...entry]));
      expect(files.filter((f) => /^src\/|\.test\.|tsbuildinfo|^node_modules\/|\.v8cache$/.test(f)), tarball.name).toEqual([]);
    }
    const files = (name: string) => tarballs.find((t) => t.name === name)!.files.map((f) => f.path);
    expect(files('@gatehouse/schemas')).toContain('json/manifests/AnyManifest.schema.json');
  });

  it('installs without the server, better-sqlite3 or any engine warning', () => {
    expect(install.stderr).not.toMatch(/EBADENGINE|gyp|prebuild/);
    expect(existsSync(join(app, 'node_modules/@gatehouse/cli/dist/commands/plan.js'))).toBe(true);
    const manifest = JSON.parse(readFileSync(join(app, 'node_modules/@gatehouse/cli/oclif.manifest.json'), 'utf8')) as {
      commands: Record<string, { relativePath: string[] }>;
    };
    expect(manifest.commands.plan!.relativePath).toEqual(['dist', 'commands', 'plan.js']);
    expect(existsSync(join(app, 'node_modules/@gatehouse/server'))).toBe(false);
    expect(existsSync(join(app, 'node_modules/better-sqlite3'))).toBe(false);
    expect(existsSync(join(app, 'node_modules/fastify'))).toBe(false);
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

  it('the shell recipe plans a change, applies the plan it saved, and then finds no drift', async () => {
    const recipe = join(REPO_ROOT, 'examples/ci/shell/gatehouse-ci.sh');
    const policies = join(app, 'manifests/ip-policies.yaml');
    writeFileSync(policies, readFileSync(policies, 'utf8').replace('description: Office egress addresses', 'description: Office egress (shell recipe)'));
    const stage = (name: string) =>
      execFileAsync('sh', [recipe, name], {
        cwd: app,
        env: { ...process.env, NODE_ENV: '', NO_COLOR: '1', CI: 'true', GATEHOUSE_PREFIX: app, MANIFESTS: 'manifests', GATEHOUSE_API_URL: server.url, GATEHOUSE_API_KEY: KEY, ...EXAMPLE_SECRETS },
      });
    await stage('plan');
    expect(readFileSync(join(app, 'plan.md'), 'utf8')).toContain('Office egress (shell recipe)');
    expect(existsSync(join(app, 'gatehouse-plan.json'))).toBe(true);
    await stage('apply');
    await stage('drift'); // exit 2 (drift) would reject
    expect(JSON.parse(readFileSync(join(app, 'drift.json'), 'utf8'))).toBeTypeOf('object');
  }, 180_000);

  it('the GitHub Action’s run step plans (comment and outputs), applies the saved plan, and comments a failure', async () => {
    const policies = join(app, 'manifests/ip-policies.yaml');
    writeFileSync(policies, readFileSync(policies, 'utf8').replace('description: Office egress (shell recipe)', 'description: Office egress (action)'));
    writeFileSync(join(app, 'event.json'), JSON.stringify({ pull_request: { number: 5, head: { sha: 'abc123' } } }));
    const step = async (inputs: Record<string, string>) => {
      const output = join(app, `github-output-${Object.values(inputs).join('-').replace(/\W/g, '')}`);
      writeFileSync(output, '');
      const result = await execFileAsync(process.execPath, [join(REPO_ROOT, 'action/main.mjs'), 'run'], {
        cwd: app,
        env: {
          ...process.env, NODE_ENV: '', NO_COLOR: '1', CI: 'true', ...EXAMPLE_SECRETS,
          PATH: `${join(app, 'node_modules/.bin')}:${process.env.PATH}`,
          GATEHOUSE_API_URL: server.url, GATEHOUSE_API_KEY: KEY,
          GITHUB_OUTPUT: output, GITHUB_EVENT_PATH: join(app, 'event.json'), RUNNER_TEMP: app,
          ...Object.fromEntries(Object.entries(inputs).map(([name, value]) => [`INPUT_${name.toUpperCase().replace(/-/g, '_')}`, value])),
        },
      }).then(() => 0, (error: { code: number }) => error.code);
      const outputs = Object.fromEntries(readFileSync(output, 'utf8').trim().split('\n').filter(Boolean).map((line) => line.split(/=(.*)/s).slice(0, 2)));
      return { code: result, outputs };
    };

    const plan = await step({ command: 'plan', path: 'manifests', 'plan-file': 'action-plan.json' });
    expect(plan.code).toBe(0);
    expect(plan.outputs).toMatchObject({ exitcode: '2', 'has-changes': 'true', 'artifact-name': 'gatehouse-plan-abc123', 'plan-file': 'action-plan.json' });
    const comment = readFileSync(plan.outputs['comment-file']!, 'utf8');
    expect(comment.startsWith('<!-- gatehouse-plan:default -->')).toBe(true);
    expect(comment).toContain('Office egress (action)');

    const apply = await step({ command: 'apply', 'plan-file': 'action-plan.json' });
    expect(apply).toMatchObject({ code: 0, outputs: { exitcode: '0' } });
    expect((await gatehouse(['plan', 'manifests', '--detailed-exitcode'], { GATEHOUSE_API_URL: server.url, GATEHOUSE_API_KEY: KEY })).code).toBe(0);

    writeFileSync(join(app, 'broken.yaml'), 'kind: IPPolicy\nname: broken\nspec:\n  descripton: typo\n');
    const failed = await step({ command: 'plan', path: 'broken.yaml', 'plan-file': 'broken-plan.json' });
    expect(failed.code).toBe(1);
    const failure = readFileSync(failed.outputs['comment-file']!, 'utf8');
    expect(failure).toContain('**`gatehouse validate` failed** (exit 1)');
    expect(failure).toContain('broken.yaml:4');
    expect(existsSync(join(app, 'broken-plan.json'))).toBe(false);
  }, 180_000);

  it('says what to do when serve or the embedded default needs the missing server', async () => {
    const serve = await gatehouse(['serve', '--port', '0']);
    expect(serve.code).toBe(1);
    expect(serve.message).toMatch(/gatehouse serve needs the reference server \(@gatehouse\/server\), which is not installed/);
    expect(serve.message).toMatch(/npm install @gatehouse\/server@\d/);

    const embedded = await gatehouse(['plan', 'manifests', '--embedded']);
    expect(embedded.code).toBe(1);
    expect(embedded.message).toMatch(/embedded reference server \(@gatehouse\/server\), which is not installed/);
    expect(embedded.message).toMatch(/Set GATEHOUSE_API_URL and GATEHOUSE_API_KEY/);
    expect(existsSync(join(app, '.gatehouse'))).toBe(false);
  }, 120_000);
});
