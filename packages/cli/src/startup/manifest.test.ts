import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildFingerprint, ensureManifest, filesFingerprint, MANIFEST_FILE } from './manifest.js';

describe('buildFingerprint', () => {
  const roots: string[] = [];
  afterEach(() => roots.splice(0).forEach((root) => rmSync(root, { recursive: true, force: true })));

  function packageRoot(): string {
    const root = mkdtempSync(join(tmpdir(), 'gatehouse-manifest-'));
    roots.push(root);
    mkdirSync(join(root, 'dist', 'commands'), { recursive: true });
    writeFileSync(join(root, 'dist', 'commands', 'plan.js'), 'export default 1;\n');
    writeFileSync(join(root, 'dist', 'commands', 'plan.d.ts'), 'export {};\n');
    writeFileSync(join(root, 'package.json'), '{"name":"x","version":"1.0.0"}\n');
    return root;
  }

  it('ignores mtimes, as npm pack and install rewrite them', () => {
    const root = packageRoot();
    const before = buildFingerprint(root);
    const epoch = new Date('1985-10-26T08:15:00Z');
    utimesSync(join(root, 'dist', 'commands', 'plan.js'), epoch, epoch);
    utimesSync(join(root, 'package.json'), epoch, epoch);
    expect(buildFingerprint(root)).toBe(before);
  });

  it('changes with a built file, a new command or package.json, not with declaration files', () => {
    const root = packageRoot();
    const base = buildFingerprint(root);
    writeFileSync(join(root, 'dist', 'commands', 'plan.d.ts'), 'export declare const x: 1;\n');
    expect(buildFingerprint(root)).toBe(base);
    writeFileSync(join(root, 'dist', 'commands', 'plan.js'), 'export default 2;\n');
    const edited = buildFingerprint(root);
    expect(edited).not.toBe(base);
    writeFileSync(join(root, 'dist', 'commands', 'drift.js'), 'export default 3;\n');
    const added = buildFingerprint(root);
    expect(added).not.toBe(edited);
    writeFileSync(join(root, 'package.json'), '{"name":"x","version":"1.0.1"}\n');
    expect(buildFingerprint(root)).not.toBe(added);
  });

  it('records the files as stat sees them, and checks the content again only when they change', async () => {
    const root = packageRoot();
    const files = filesFingerprint(root);
    expect(filesFingerprint(root)).toBe(files);
    // The same content written again (a rebuild, an install): new identities, same build.
    const build = buildFingerprint(root);
    writeFileSync(join(root, 'dist', 'commands', 'plan.js'), 'export default 1;\n');
    utimesSync(join(root, 'dist', 'commands', 'plan.js'), new Date('1985-10-26T08:15:00Z'), new Date('1985-10-26T08:15:00Z'));
    expect(filesFingerprint(root)).not.toBe(files);
    expect(buildFingerprint(root)).toBe(build);
    // A manifest of this content made elsewhere: kept (oclif is not loaded), the identities recorded.
    const manifest = join(root, MANIFEST_FILE);
    writeFileSync(manifest, JSON.stringify({ version: '1.0.0', commands: { plan: { id: 'plan' } }, gatehouseBuild: build, gatehouseFiles: files }));
    expect(await ensureManifest(root)).toBe(false);
    const kept = JSON.parse(readFileSync(manifest, 'utf8'));
    // No bundle here (bundle.ts): the commands stay those of dist/, and the manifest says so.
    expect(kept).toEqual({ version: '1.0.0', commands: { plan: { id: 'plan' } }, gatehouseBuild: build, gatehouseFiles: filesFingerprint(root), gatehouseBundle: false });
    expect(await ensureManifest(root)).toBe(false);
  });
});
