/**
 * Writes `src/load/validators/`, the manifest validators as ajv standalone code, one module
 * per kind, from the BUILT @gatehouse/schemas. The build runs it (`npm run generate`, before
 * `tsc -b`); the files are build outputs, never committed.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MANIFEST_SCHEMAS } from '@gatehouse/schemas';
import { validatorFiles } from './validators-source.mjs';

const dir = fileURLToPath(new URL('../src/load/validators/', import.meta.url));
mkdirSync(dir, { recursive: true });
const files = validatorFiles(MANIFEST_SCHEMAS);
let written = 0;
for (const [name, source] of Object.entries(files)) {
  const before = existsSync(`${dir}${name}`) ? readFileSync(`${dir}${name}`, 'utf8') : '';
  if (before !== source) {
    writeFileSync(`${dir}${name}`, source);
    written++;
  }
}
for (const name of readdirSync(dir)) {
  if (!(name in files)) {
    rmSync(`${dir}${name}`);
    written++;
  }
}
console.log(`src/load/validators: ${written === 0 ? 'up to date' : `${written} files written or removed`} (${Object.keys(MANIFEST_SCHEMAS).length} kinds)`);
