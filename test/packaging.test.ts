/**
 * The packages as users get them from the registry: what each published package declares and
 * ships, versions that move together, and a dependency tree of the CLI that installs on Node
 * 20.19 without engine warnings. The packed packages themselves, installed and run, are
 * test/release.test.ts's (the release tarballs are these packs, bundled).
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, tempDir } from './helpers/cli.js';
// @ts-expect-error -- plain ESM scripts without type declarations
import { PUBLISHED_PACKAGES } from '../scripts/packages.mjs';
// @ts-expect-error -- plain ESM scripts without type declarations
import { buildInfo } from '../packages/cli/scripts/build-info.mjs';
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

  it('the CLI’s pack writes and ships its oclif manifest and the commit it was built from, and removes the latter after', async () => {
    const cli = packages.find((p) => p.name === '@gatehouse/cli')!.json as PackageJson & { scripts: Record<string, string> };
    expect(cli.files).toEqual(expect.arrayContaining(['oclif.manifest.json', 'build-info.json']));
    expect(cli.scripts.prepack).toMatch(/scripts\/manifest\.mjs.*scripts\/build-info\.mjs/);
    expect(cli.scripts.postpack).toBe('node scripts/build-info.mjs --remove');
    const head = (await execFileAsync('git', ['rev-parse', 'HEAD'], { cwd: REPO_ROOT })).stdout.trim();
    expect(buildInfo(REPO_ROOT)).toEqual({ commit: head });
    const outside = tempDir('gatehouse-no-git-');
    try {
      expect(buildInfo(outside.path)).toEqual({ commit: null, reason: 'packed outside a git checkout' });
    } finally {
      outside.cleanup();
    }
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
    const moved = pinVersion(
      'uses: gatehouse/gatehouse@v0.1.0\nGATEHOUSE_VERSION: "0.1.0"\n${GATEHOUSE_VERSION:-0.1.0}\n@gatehouse/schemas@0.1/json/x',
      '1.2.0',
    ) as string;
    expect(moved).toBe('uses: gatehouse/gatehouse@v1.2.0\nGATEHOUSE_VERSION: "1.2.0"\n${GATEHOUSE_VERSION:-1.2.0}\n@gatehouse/schemas@1/json/x');
    expect(pinVersion('npm install ./gatehouse-cli-0.1.0.tgz ./gatehouse-server-0.1.0.tgz', '1.2.0')).toBe(
      'npm install ./gatehouse-cli-1.2.0.tgz ./gatehouse-server-1.2.0.tgz',
    );
  });

  it('nothing in the CLI’s dependency tree (the optional server included) demands more than Node 20.19', () => {
    // npm warns EBADENGINE for such a package, and silently drops an OPTIONAL dependency whose
    // tree has one: cookie@2 (node >=22, through light-my-request 6.8) made `npm install
    // @gatehouse/cli` on Node 20 install no server at all.
    const lock = JSON.parse(readFileSync(join(REPO_ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, PackageJson & { link?: boolean; resolved?: string }>;
    };
    const entries = lock.packages;
    const resolve = (from: string, name: string): string | undefined => {
      for (let base = from; ;) {
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
