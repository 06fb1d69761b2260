/**
 * `schemas/json/` holds every exported schema as a JSON Schema file (committed, for editors
 * and other tools). This test fails while those files are stale, naming the files and the
 * command that regenerates them, and checks that each file is a portable JSON Schema: a plain
 * `new Ajv()` compiles it, and its `$id` is its stable URL.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import AjvModule from 'ajv';
import { describe, expect, it } from 'vitest';
import * as indexExports from './index.js';
import { compatibleRange, MANIFEST_SCHEMA_URL, schemaUrl } from './urls.js';
// @ts-expect-error -- a plain ESM script without type declarations
import * as generator from '../scripts/json-files.mjs';

const { schemaFiles, isSchemaModule, portable, REGENERATE_COMMAND, SUFFIX } = generator as {
  schemaFiles(index: object, modules: { path: string; exports: object }[]): Map<string, string>;
  portable(schema: unknown): unknown;
  isSchemaModule(path: string): boolean;
  REGENERATE_COMMAND: string;
  SUFFIX: string;
};

const srcDir = fileURLToPath(new URL('.', import.meta.url));
const jsonDir = fileURLToPath(new URL('../json/', import.meta.url));

const walk = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
const rel = (from: string, path: string) => relative(from, path).split(sep).join('/');

async function expectedFiles(): Promise<Map<string, string>> {
  const modules = [];
  for (const file of walk(srcDir)) {
    const path = rel(srcDir, file);
    if (isSchemaModule(path)) modules.push({ path, exports: (await import(pathToFileURL(file).href)) as object });
  }
  return schemaFiles(indexExports, modules);
}

describe('schemas/json', () => {
  it(`is up to date (regenerate with \`npm run build && ${REGENERATE_COMMAND}\`)`, async () => {
    const expected = await expectedFiles();
    const onDisk = existsSync(jsonDir)
      ? walk(jsonDir)
          .map((f) => rel(jsonDir, f))
          .filter((f) => f.endsWith(SUFFIX))
      : [];
    const missing = [...expected.keys()].filter((f) => !onDisk.includes(f));
    const extra = onDisk.filter((f) => !expected.has(f));
    const changed = [...expected].filter(([f, content]) => onDisk.includes(f) && readFileSync(join(jsonDir, f), 'utf8') !== content);
    const problems = [
      ...missing.map((f) => `missing: schemas/json/${f}`),
      ...extra.map((f) => `no longer exported: schemas/json/${f}`),
      ...changed.map(([f]) => `stale: schemas/json/${f}`),
    ];
    expect(problems, `schemas/json is stale; run \`npm run build && ${REGENERATE_COMMAND}\``).toEqual([]);
  });

  it('covers the API bodies, with the layout of the sources', async () => {
    const expected = await expectedFiles();
    expect(expected.has('api/IpPolicyCreate.schema.json')).toBe(true);
    expect(expected.has('api/IpPolicyRule.schema.json')).toBe(true);
    expect(expected.has('common/Ref.schema.json')).toBe(true);
    const document = JSON.parse(expected.get('api/IpPolicyCreate.schema.json')!);
    expect(document).toMatchObject({ $schema: 'http://json-schema.org/draft-07/schema#', title: 'IpPolicyCreate' });
    expect(document.additionalProperties).toBe(false);
  });

  it('every file compiles with a plain `new Ajv()` (strict), all together under their stable $id URLs', async () => {
    const Ajv = AjvModule.default;
    const expected = await expectedFiles();
    const ajv = new Ajv({ schemas: [...expected.values()].map((content) => JSON.parse(content) as object) });
    for (const [file, content] of expected) {
      expect((JSON.parse(content) as { $id: string }).$id, file).toBe(schemaUrl(file));
      expect(() => ajv.getSchema(schemaUrl(file)), file).not.toThrow(); // compiles it, in strict mode
    }
    const create = ajv.getSchema(schemaUrl('api/IpPolicyCreate.schema.json'))!;
    expect(create({ description: 'office' })).toBe(true);
    expect(create({ description: 'x'.repeat(256) })).toBe(false); // maxLength
    expect(create({ unknown: 1 })).toBe(false);
    const manifest = ajv.getSchema(MANIFEST_SCHEMA_URL)!;
    expect(manifest({ kind: 'IPPolicy', name: 'office', spec: { description: 'office' } })).toBe(true);
    expect(manifest({ kind: 'NoSuchKind', name: 'office', spec: {} })).toBe(false);
  });

  it('leaves out the non-standard keywords: discriminator dropped, the byte limits kept as $comment', async () => {
    const expected = await expectedFiles();
    const all = [...expected.values()].join('\n');
    expect(all).not.toMatch(/"(discriminator|maxBytes)":/);
    const create = JSON.parse(expected.get('api/IpPolicyCreate.schema.json')!) as { properties: { description: { maxLength: number; $comment: string } } };
    expect(create.properties.description).toMatchObject({ maxLength: 255, $comment: expect.stringMatching(/^maxBytes 255: at most 255 bytes of UTF-8/) });
  });

  it('keeps property names that look like keywords, and merges an existing $comment', () => {
    const schema = { properties: { discriminator: { type: 'string', $comment: 'kept', maxBytes: 9 } }, discriminator: { propertyName: 'kind' } };
    expect(portable(schema)).toEqual({
      properties: {
        discriminator: { type: 'string', $comment: 'kept; maxBytes 9: at most 9 bytes of UTF-8 (the service counts bytes); @gatehouse/schemas checks it' },
      },
    });
  });

  it('URLs pin the compatible range of the version (caret rule)', () => {
    expect(compatibleRange('0.1.7')).toBe('0.1');
    expect(compatibleRange('2.3.4')).toBe('2');
    expect(schemaUrl('manifests/AnyManifest.schema.json', '1.0.0')).toBe(
      'https://cdn.jsdelivr.net/npm/@gatehouse/schemas@1/json/manifests/AnyManifest.schema.json',
    );
  });
});
