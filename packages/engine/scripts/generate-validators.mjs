/**
 * Writes `src/steps/validators.generated.ts`, the manifest validators as ajv standalone code,
 * from the BUILT @gatehouse/schemas:
 *
 *   npm run build && npm run generate:validators -w packages/engine
 *
 * `src/steps/validators.test.ts` fails while the file is stale.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MANIFEST_SCHEMAS } from '@gatehouse/schemas';
import { validatorsSource } from './validators-source.mjs';

const target = fileURLToPath(new URL('../src/steps/validators.generated.ts', import.meta.url));
const source = validatorsSource(MANIFEST_SCHEMAS);
let before = '';
try {
  before = readFileSync(target, 'utf8');
} catch {}
if (before === source) console.log('validators.generated.ts: up to date');
else {
  writeFileSync(target, source);
  console.log(`validators.generated.ts: written (${Object.keys(MANIFEST_SCHEMAS).length} kinds)`);
}
