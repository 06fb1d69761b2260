/**
 * `validators/` holds the manifest validators as ajv standalone code, compiled at build time,
 * one module per kind. This test fails while a file is stale or missing (the schemas or ajv
 * changed), naming the command that regenerates them, and checks that the generated code
 * judges like ajv compiling the schemas at run time, the custom `maxBytes` keyword included.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import AjvModule from 'ajv';
import { customKeywords, MANIFEST_SCHEMAS } from '@gatehouse/schemas';
import { describe, expect, it } from 'vitest';
import { VALIDATOR_LOADERS } from './validators/index.generated.js';
// @ts-expect-error -- a plain ESM script without type declarations
import * as generator from '../../scripts/validators-source.mjs';

const { validatorFiles, REGENERATE_COMMAND } = generator as {
  validatorFiles(schemas: object): Record<string, string>;
  REGENERATE_COMMAND: string;
};
const generatedDir = fileURLToPath(new URL('./validators/', import.meta.url));
const compiled: Record<string, (d: unknown) => boolean> = {};
for (const [kind, load] of Object.entries(VALIDATOR_LOADERS)) compiled[kind] = (await load()) as unknown as (d: unknown) => boolean;

describe('validators/', () => {
  it(`is up to date (regenerate with \`${REGENERATE_COMMAND}\`)`, () => {
    const fresh = validatorFiles(MANIFEST_SCHEMAS);
    expect(readdirSync(generatedDir).sort(), `validators/ holds other files; run \`${REGENERATE_COMMAND}\``).toEqual(Object.keys(fresh).sort());
    for (const [name, source] of Object.entries(fresh)) {
      const onDisk = readFileSync(`${generatedDir}${name}`, 'utf8');
      expect(onDisk === source, `validators/${name} is stale; run \`${REGENERATE_COMMAND}\``).toBe(true);
    }
  });

  it('has a validator for every manifest kind, each loaded by itself', () => {
    expect(Object.keys(compiled).sort()).toEqual(Object.keys(MANIFEST_SCHEMAS).sort());
    for (const [kind, check] of Object.entries(compiled)) expect(typeof check, kind).toBe('function');
  });

  it('judges documents as ajv compiling the schemas at run time does, errors included', () => {
    const ajv = new AjvModule.default({ allErrors: true, strict: false, discriminator: true, verbose: true });
    for (const keyword of customKeywords) ajv.addKeyword(keyword as never);
    const documents = [
      { kind: 'IPPolicy', name: 'office', spec: { description: 'office', rules: [{ cidr: '10.0.0.0/8', action: 'allow' }] } },
      { kind: 'IPPolicy', name: 'office', spec: { description: 'é'.repeat(200) } }, // 400 bytes > 255
      { kind: 'IPPolicy', name: 'office', spec: { descripton: 'typo' } },
      { kind: 'IPPolicy', name: '', spec: { rules: [{ cidr: 7 }] } },
      { kind: 'BotUser', name: 'ci', spec: { active: 'yes' } },
    ];
    for (const document of documents) {
      const generated = compiled[document.kind]!;
      const runtime = ajv.compile(MANIFEST_SCHEMAS[document.kind as keyof typeof MANIFEST_SCHEMAS]);
      expect(generated(document), JSON.stringify(document)).toBe(runtime(document));
      const strip = (errors: unknown) => JSON.parse(JSON.stringify(errors ?? null));
      expect(strip((generated as { errors?: unknown }).errors)).toEqual(strip(runtime.errors));
    }
    expect(compiled.IPPolicy!(documents[1])).toBe(false);
  });
});
