/**
 * What `--out` may replace, through the built CLI. `render --out DIR` writes each
 * environment's files under DIR and replaces only files it wrote itself: `--out .` from the
 * repository's root (the manifests' own paths) is refused before anything is written, so the
 * source manifests are never replaced by one environment's values. `plan --out FILE` replaces
 * a saved plan and nothing else (a manifest named by mistake), refused before any request.
 */
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli, tempDir } from './helpers/cli.js';

let repo: ReturnType<typeof tempDir>;
const read = (path: string) => readFileSync(join(repo.path, path), 'utf8');

beforeAll(() => {
  repo = tempDir('gatehouse-render-');
  cpSync(join(REPO_ROOT, 'examples/environments'), repo.path, { recursive: true });
});
afterAll(() => repo?.cleanup());

describe('render --out', () => {
  it('writes the files under DIR, and renders again over its own files', async () => {
    const first = await runCli(['render', '--env', 'staging', '--out', 'rendered'], { cwd: repo.path });
    expect(first.code, first.stderr).toBe(0);
    expect(read('rendered/manifests/edges.yaml')).toMatch(/^# gatehouse render --env staging \(from manifests\/edges\.yaml\)\n/);
    const again = await runCli(['render', '--env', 'production', '--out', 'rendered'], { cwd: repo.path });
    expect(again.code, again.stderr).toBe(0);
    expect(read('rendered/manifests/edges.yaml')).toMatch(/^# gatehouse render --env production /);
  });

  it('refuses --out . (the manifests themselves), naming them, and writes nothing', async () => {
    const before = { access: read('manifests/access.yaml'), edges: read('manifests/edges.yaml') };
    const result = await runCli(['render', '--env', 'staging', '--out', '.'], { cwd: repo.path });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('refusing to replace files that gatehouse render did not write: manifests/access.yaml, manifests/edges.yaml');
    expect({ access: read('manifests/access.yaml'), edges: read('manifests/edges.yaml') }).toEqual(before);
  });

  it('a file of its own in DIR blocks the whole render: no file is written', async () => {
    writeFileSync(join(repo.path, 'mine-access.yaml'), '# hand-written\n');
    const dir = join(repo.path, 'out2');
    cpSync(join(repo.path, 'mine-access.yaml'), join(dir, 'manifests', 'access.yaml'), { recursive: true });
    const result = await runCli(['render', '--env', 'staging', '--out', 'out2'], { cwd: repo.path });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('out2/manifests/access.yaml');
    expect(read('out2/manifests/access.yaml')).toBe('# hand-written\n');
    expect(existsSync(join(dir, 'manifests', 'edges.yaml'))).toBe(false);
  });
});

describe('plan --out', () => {
  const env = { GATEHOUSE_API_URL: 'embedded', STAGING_API_URL: 'embedded', STAGING_API_KEY: 'k' };

  it('replaces a saved plan, and refuses any other file, which stays as it was', async () => {
    const first = await runCli(['plan', '--env', 'staging', '--out', 'plan.json'], { cwd: repo.path, env });
    expect(first.code, first.stderr).toBe(0);
    const again = await runCli(['plan', '--env', 'staging', '--out', 'plan.json'], { cwd: repo.path, env });
    expect(again.code, again.stderr).toBe(0);
    const manifest = read('manifests/edges.yaml');
    const refused = await runCli(['plan', '--env', 'staging', '--out', 'manifests/edges.yaml'], { cwd: repo.path, env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('--out manifests/edges.yaml is a file that is not a saved plan; refusing to replace it');
    expect(refused.stdout).toBe('');
    expect(read('manifests/edges.yaml')).toBe(manifest);
  });
});
