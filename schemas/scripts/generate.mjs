/**
 * Writes every exported schema of @gatehouse/schemas as a JSON Schema file under
 * `schemas/json/` (see json-files.mjs for the layout), from the BUILT package, and removes
 * `*.schema.json` files no export produces any more.
 *
 *   npm run build && npm run generate -w schemas
 *
 * The files are committed so that editors and other tools can use them without Node;
 * `src/generated.test.ts` fails while they are stale.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync, readFileSync, existsSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isSchemaModule, schemaFiles, SUFFIX } from './json-files.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const srcDir = join(root, 'src');
const distDir = join(root, 'dist');
const jsonDir = join(root, 'json');

/** Every path under `dir`, relative to it, with `/` between segments. */
const filesUnder = (dir) => readdirSync(dir, { recursive: true }).map((path) => path.split(sep).join('/'));

const indexExports = await import(pathToFileURL(join(distDir, 'index.js')).href);
const modules = [];
for (const path of filesUnder(srcDir)) {
  if (!isSchemaModule(path)) continue;
  const built = join(distDir, path.replace(/\.ts$/, '.js'));
  if (!existsSync(built)) throw new Error(`${built} is missing: run \`npm run build\` first`);
  modules.push({ path, exports: await import(pathToFileURL(built).href) });
}

const files = schemaFiles(indexExports, modules);
let written = 0;
let removed = 0;
for (const [path, content] of files) {
  const target = join(jsonDir, path);
  if (existsSync(target) && readFileSync(target, 'utf8') === content) continue;
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, content);
  written++;
}
if (existsSync(jsonDir)) {
  for (const path of filesUnder(jsonDir)) {
    if (path.endsWith(SUFFIX) && !files.has(path)) {
      rmSync(join(jsonDir, path));
      removed++;
    }
  }
}
console.log(`schemas/json: ${files.size} schemas, ${written} written, ${removed} removed`);
