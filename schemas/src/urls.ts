/**
 * Stable URLs of the published JSON Schemas. Every file under `json/` (shipped in this package,
 * generated from the TypeBox schemas) has as `$id` its address on the jsDelivr npm CDN, pinned
 * to the compatible range of this package's version: `@0.1` while the version is 0.1.x, `@1`
 * from 1.0.0 on (npm's caret rule). The URL so resolves to the newest compatible release and
 * changes only with a breaking one. A repository that is not a gatehouse checkout points
 * yaml-language-server at the URL, or at the installed copy:
 * `node_modules/@gatehouse/schemas/json/<folder>/<Name>.schema.json`.
 */
import { createRequire } from 'node:module';

export const SCHEMAS_PACKAGE = '@gatehouse/schemas';
const CDN = 'https://cdn.jsdelivr.net/npm';

/** `0.1.4` -> `0.1`, `1.2.3` -> `1`: the range of releases compatible with `version`. */
export function compatibleRange(version: string): string {
  const [major, minor] = version.split('.');
  return major === '0' ? `0.${minor}` : `${major}`;
}

// By the package's own name, not `../package.json`: the CLI bundles this module (the `runtime`
// entry) into files of its own, from where a relative path would name another file.
const ownVersion = (createRequire(import.meta.url)(`${SCHEMAS_PACKAGE}/package.json`) as { version: string }).version;

/** The URL (and `$id`) of a published schema, `path` relative to `json/`, e.g. `manifests/AnyManifest.schema.json`. */
export function schemaUrl(path: string, version: string = ownVersion): string {
  return `${CDN}/${SCHEMAS_PACKAGE}@${compatibleRange(version)}/json/${path}`;
}

/** The schema of any manifest document: what a `# yaml-language-server: $schema=` line names. */
export const MANIFEST_SCHEMA_URL = schemaUrl('manifests/AnyManifest.schema.json');
