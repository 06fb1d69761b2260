import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXPORT_HEADER, type ExportFile } from '@gatehouse/engine';
import { afterEach, describe, expect, it } from 'vitest';
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
const file = (name: string, kind: string, body: string): ExportFile => ({ file: name, kind, documents: 1, text: `${EXPORT_HEADER} ${kind}\n${body}` });

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
    await expect(writeExport(dir, files, false)).rejects.toMatchObject({ code: 'export_would_overwrite', message: expect.stringContaining(join(dir, 'backends.yaml')) });
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
});
