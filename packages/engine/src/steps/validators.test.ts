/**
 * `validators.generated.ts` holds the manifest validators as ajv standalone code, compiled at
 * build time. This test fails while it is stale (the schemas or ajv changed), naming the
 * command that regenerates it, and checks that the generated code judges like ajv compiling
 * the schemas at run time, the custom `maxBytes` keyword included.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import AjvModule from 'ajv';
import { customKeywords, MANIFEST_SCHEMAS } from '@gatehouse/schemas';
import { describe, expect, it } from 'vitest';
import * as compiled from './validators.generated.js';
// @ts-expect-error -- a plain ESM script without type declarations
import * as generator from '../../scripts/validators-source.mjs';

const { validatorsSource, REGENERATE_COMMAND } = generator as {
  validatorsSource(schemas: object): string;
  REGENERATE_COMMAND: string;
};
const generatedPath = fileURLToPath(new URL('./validators.generated.ts', import.meta.url));

describe('validators.generated.ts', () => {
  it(`is up to date (regenerate with \`${REGENERATE_COMMAND}\`)`, () => {
    const fresh = validatorsSource(MANIFEST_SCHEMAS);
    const onDisk = readFileSync(generatedPath, 'utf8');
    expect(onDisk === fresh, `validators.generated.ts is stale; run \`${REGENERATE_COMMAND}\``).toBe(true);
  });

  it('has a validator for every manifest kind', () => {
    expect(Object.keys(compiled).sort()).toEqual(Object.keys(MANIFEST_SCHEMAS).sort());
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
      const generated = (compiled as Record<string, (d: unknown) => boolean>)[document.kind]!;
      const runtime = ajv.compile(MANIFEST_SCHEMAS[document.kind as keyof typeof MANIFEST_SCHEMAS]);
      expect(generated(document), JSON.stringify(document)).toBe(runtime(document));
      const strip = (errors: unknown) => JSON.parse(JSON.stringify(errors ?? null));
      expect(strip((generated as { errors?: unknown }).errors)).toEqual(strip(runtime.errors));
    }
    expect((compiled as Record<string, (d: unknown) => boolean>).IPPolicy!(documents[1])).toBe(false);
  });
});
