/**
 * Which JSON files `schemas/json/` must hold: one `<Name>.schema.json` per TypeBox schema that
 * `@gatehouse/schemas` exports, in a folder named after the source module that defines it
 * (`src/api/*.ts` -> `api/`, `src/manifests/*.ts` -> `manifests/`, `src/common.ts` -> `common/`).
 * Generic over the exports: a schema another module adds and exports is picked up with no
 * change here. Shared by `generate.mjs` (writes, from the built package) and
 * `src/generated.test.ts` (compares, from the sources).
 *
 * The files are for any JSON Schema tool, so each is portable: its `$id` is its stable URL
 * (`schemaUrl` of `src/urls.ts`), and it holds only standard draft-07 keywords, so that a
 * plain `new Ajv()` (strict mode) compiles it. Two keywords of the TypeBox sources are not
 * standard: `discriminator` (an ajv hint; the `anyOf`/`oneOf` it annotates says the same) is
 * left out, and `maxBytes: N` (a byte limit the service counts in UTF-8, next to a
 * `maxLength` of the same N) becomes a `$comment`; `@gatehouse/schemas` itself checks both.
 */
import { posix } from 'node:path';

export const JSON_SCHEMA_DRAFT = 'http://json-schema.org/draft-07/schema#';
export const REGENERATE_COMMAND = 'npm run generate -w schemas';
export const SUFFIX = '.schema.json';

const KIND = Symbol.for('TypeBox.Kind');

/** True for a TypeBox schema value (types and helper functions are not exported schemas). */
export function isSchema(value) {
  return typeof value === 'object' && value !== null && KIND in value;
}

/** The folder for a source module path relative to `src/`, e.g. `api/ip-policies.ts` -> `api`. */
export function folderOf(modulePath) {
  const dir = posix.dirname(modulePath);
  return dir === '.' ? posix.basename(modulePath).replace(/\.(ts|js)$/, '') : dir;
}

/**
 * @param indexExports the package's public exports (`import * from index`)
 * @param modules every source module (except index files and tests) with its exports,
 *   `{ path: 'api/ip-policies.ts', exports }`; a schema belongs to the first module, in path
 *   order, that exports the same object.
 * @returns file path under `schemas/json/` -> file content
 */
export function schemaFiles(indexExports, modules) {
  const home = new Map();
  for (const { path, exports } of [...modules].sort((a, b) => a.path.localeCompare(b.path))) {
    for (const value of Object.values(exports)) {
      if (isSchema(value) && !home.has(value)) home.set(value, folderOf(path));
    }
  }
  const files = new Map();
  for (const [name, value] of Object.entries(indexExports).sort(([a], [b]) => a.localeCompare(b))) {
    if (!isSchema(value)) continue;
    const folder = home.get(value) ?? 'common';
    const path = `${folder}/${name}${SUFFIX}`;
    const document = { $schema: JSON_SCHEMA_DRAFT, $id: indexExports.schemaUrl(path), title: name, ...portable(JSON.parse(JSON.stringify(value))) };
    files.set(path, `${JSON.stringify(document, null, 2)}\n`);
  }
  return files;
}

/** Keywords whose value maps names (property names, definition names) to schemas. */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', 'definitions', '$defs', 'dependencies']);
/** Keywords whose value is data, never a schema. */
const DATA = new Set(['enum', 'const', 'default', 'examples', 'required']);

/** `schema` with `discriminator` left out and `maxBytes` turned into a `$comment` (see above). */
export function portable(schema) {
  if (Array.isArray(schema)) return schema.map(portable);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (keyword === 'discriminator') continue;
    if (keyword === 'maxBytes') {
      const note = `maxBytes ${value}: at most ${value} bytes of UTF-8 (the service counts bytes); @gatehouse/schemas checks it`;
      out.$comment = schema.$comment ? `${schema.$comment}; ${note}` : note;
    } else if (SCHEMA_MAPS.has(keyword) && typeof value === 'object' && value !== null && !Array.isArray(value)) {
      out[keyword] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, portable(sub)]));
    } else if (keyword === '$comment' && out.$comment) {
      continue; // already merged with the maxBytes note
    } else {
      out[keyword] = DATA.has(keyword) ? value : portable(value);
    }
  }
  return out;
}

/** Source module paths under `src/` that define schemas: `.ts` files, no tests, no index files. */
export function isSchemaModule(relativePath) {
  return relativePath.endsWith('.ts') && !relativePath.endsWith('.test.ts') && !relativePath.endsWith('.d.ts') && posix.basename(relativePath) !== 'index.ts';
}
