import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXPORT_HEADER, type ExportFile } from '@gatehouse/engine';
import { afterEach, describe, expect, it } from 'vitest';
import { manifestCount } from './summary.js';
import { writeExport } from './write.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const tmp = () => {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-write-'));
  dirs.push(dir);
  return dir;
};
const file = (name: string, kind: string, body: string): ExportFile => ({
  file: name,
  kinds: [{ kind, documents: 1 }],
  documents: 1,
  text: `${EXPORT_HEADER} ${kind}\n${body}`,
});

describe('writeExport', () => {
  it('writes every file into a new directory, leaving no temporary file', async () => {
    const dir = join(tmp(), 'out');
    const { written, removed } = await writeExport(dir, [file('ip-policies.yaml', 'IPPolicy', 'a'), file('backends.yaml', 'Backend', 'b')], false);
    expect(written).toEqual([join(dir, 'ip-policies.yaml'), join(dir, 'backends.yaml')]);
    expect(removed).toEqual([]);
    expect(readdirSync(dir).sort()).toEqual(['backends.yaml', 'ip-policies.yaml']);
  });

  it('refuses, writing nothing, when a file it did not write is in the way; --overwrite replaces it', async () => {
    const dir = tmp();
    writeFileSync(join(dir, 'backends.yaml'), 'kind: Backend\nname: mine\n');
    const files = [file('ip-policies.yaml', 'IPPolicy', 'a'), file('backends.yaml', 'Backend', 'b')];
    await expect(writeExport(dir, files, false)).rejects.toMatchObject({
      code: 'export_would_overwrite',
      message: expect.stringContaining(join(dir, 'backends.yaml')),
    });
    expect(existsSync(join(dir, 'ip-policies.yaml'))).toBe(false);
    expect(readFileSync(join(dir, 'backends.yaml'), 'utf8')).toContain('name: mine');
    await writeExport(dir, files, true);
    expect(readFileSync(join(dir, 'backends.yaml'), 'utf8')).toBe(files[1]!.text);
  });

  it('replaces its own files and removes those of kinds that have no objects any more', async () => {
    const dir = tmp();
    await writeExport(dir, [file('ip-policies.yaml', 'IPPolicy', 'a'), file('tcp-edges.yaml', 'TCPEdge', 't')], false);
    writeFileSync(join(dir, 'notes.yaml'), 'kind: IPPolicy\n');
    const { removed } = await writeExport(dir, [file('ip-policies.yaml', 'IPPolicy', 'a2')], false);
    expect(removed).toEqual([join(dir, 'tcp-edges.yaml')]);
    expect(readdirSync(dir).sort()).toEqual(['ip-policies.yaml', 'notes.yaml']);
    expect(readFileSync(join(dir, 'ip-policies.yaml'), 'utf8')).toContain('a2');
  });

  it('writes files in the subdirectories their recorded paths name, and removes its stale files wherever they are', async () => {
    const dir = tmp();
    await writeExport(dir, [file('manifests/prod/access.yaml', 'IPPolicy', 'a'), file('ip-policies.yaml', 'IPPolicy', 'b')], false);
    expect(readFileSync(join(dir, 'manifests', 'prod', 'access.yaml'), 'utf8')).toContain('a');
    // Objects moved on: the old files, its own, go; a hidden directory is never searched.
    mkdirSync(join(dir, '.git'));
    writeFileSync(join(dir, '.git', 'x.yaml'), `${EXPORT_HEADER} kept\n`);
    const { written, removed } = await writeExport(dir, [file('teams/a.yml', 'IPPolicy', 'c')], false);
    expect(written).toEqual([join(dir, 'teams', 'a.yml')]);
    expect(removed).toEqual([join(dir, 'ip-policies.yaml'), join(dir, 'manifests', 'prod', 'access.yaml')]);
    expect(existsSync(join(dir, '.git', 'x.yaml'))).toBe(true);
  });
});

describe('the summary', () => {
  it('counts manifests by kind, once for standard output', () => {
    expect(manifestCount([{ kind: 'IPPolicy', documents: 2 }])).toBe('2 IPPolicy manifests');
    expect(manifestCount([{ kind: 'IPPolicy', documents: 1 }])).toBe('1 IPPolicy manifest');
    expect(
      manifestCount([
        { kind: 'IPPolicy', documents: 1 },
        { kind: 'Backend', documents: 3 },
        { kind: 'IPPolicy', documents: 1 },
      ]),
    ).toBe('2 IPPolicy, 3 Backend manifests');
  });
});
