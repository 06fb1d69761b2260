/**
 * `schemas/json/` holds every exported schema as a JSON Schema file (committed, for editors
 * and other tools). This test fails while those files are stale, naming the files and the
 * command that regenerates them, and checks that each file is a schema a validator accepts.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import AjvModule from 'ajv';
import { describe, expect, it } from 'vitest';
import * as indexExports from './index.js';
import { customKeywords } from './keywords.js';
// @ts-expect-error -- a plain ESM script without type declarations
import * as generator from '../scripts/json-files.mjs';

const { schemaFiles, isSchemaModule, REGENERATE_COMMAND, SUFFIX } = generator as {
  schemaFiles(index: object, modules: { path: string; exports: object }[]): Map<string, string>;
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
    const onDisk = existsSync(jsonDir) ? walk(jsonDir).map((f) => rel(jsonDir, f)).filter((f) => f.endsWith(SUFFIX)) : [];
    const missing = [...expected.keys()].filter((f) => !onDisk.includes(f));
    const extra = onDisk.filter((f) => !expected.has(f));
    const changed = [...expected].filter(
      ([f, content]) => onDisk.includes(f) && readFileSync(join(jsonDir, f), 'utf8') !== content,
    );
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

  it('every file is a JSON Schema a validator compiles, and validates as its source does', async () => {
    const Ajv = AjvModule.default;
    const ajv = new Ajv({ strict: false, allErrors: true });
    for (const keyword of customKeywords) ajv.addKeyword(keyword as never);
    const expected = await expectedFiles();
    for (const [file, content] of expected) {
      expect(() => ajv.compile(JSON.parse(content)), file).not.toThrow();
    }
    const create = ajv.compile(JSON.parse(expected.get('api/IpPolicyCreate.schema.json')!));
    expect(create({ description: 'office' })).toBe(true);
    expect(create({ description: 'é'.repeat(200) })).toBe(false); // 400 bytes > 255
    expect(create({ unknown: 1 })).toBe(false);
  });
});
