/**
 * The exported manifests as files: each object in the file its marker records (paths.ts), the
 * others in one file per manifest kind (`ip-policies.yaml`, ...); in a file, documents by kind,
 * then by name. Each file starts with the `# yaml-language-server: $schema=` line of its kind's
 * published schema (of any manifest, when it holds several kinds: editors then check and
 * complete it), then `EXPORT_HEADER`, so that a later export knows which files it wrote (and
 * may replace) and which it must not touch unless asked (`isExportedText`: the header within
 * the first lines, so older exports, which started with it, are still recognised).
 */
import { MANIFEST_SCHEMA_URL, schemaUrl } from '@gatehouse/schemas/runtime';
import { stringify, type ScalarTag } from 'yaml';
import { stringTag } from 'yaml/util';
import type { Spec } from '../kinds/types.js';
import { append } from '../append.js';
import { hasUnsafeCharactersBesidesNewline, sanitize, yamlDoubleQuoted } from '../render/sanitize.js';

/**
 * Strings as `yaml` writes them, but one holding a character plan escapes (controls, bidi
 * controls, line separators: render/sanitize.ts) is double-quoted with that character as an
 * escape: the file reads back as the same value, and shows nothing hidden to whoever reviews it.
 */
const escapedStrings: ScalarTag = {
  ...stringTag,
  stringify(item, ctx, onComment, onChompKeep) {
    const text = String(item.value);
    return hasUnsafeCharactersBesidesNewline(text) ? yamlDoubleQuoted(text) : stringTag.stringify!(item, ctx, onComment, onChompKeep);
  },
};

/** First characters of every file export writes. */
export const EXPORT_HEADER = '# gatehouse export:';

/** Whether `text` (a file's beginning) was written by export: `EXPORT_HEADER` on one of its first two lines. */
export function isExportedText(text: string): boolean {
  return text.split('\n', 2).some((line) => line.startsWith(EXPORT_HEADER));
}

/**
 * The published schema of a kind's manifests: `IPPolicy` -> `.../manifests/IpPolicyManifest.schema.json`
 * (a leading acronym is written as a word, as the schema names are).
 */
export function manifestSchemaUrl(kind: string): string {
  const name = kind.replace(/^([A-Z]+)(?=[A-Z][a-z])/, (acronym) => acronym[0] + acronym.slice(1).toLowerCase());
  return schemaUrl(`manifests/${name}Manifest.schema.json`);
}

export const SCHEMA_LINE_PREFIX = '# yaml-language-server: $schema=';

export interface ManifestDocument {
  kind: string;
  name: string;
  adopt?: string;
  spec: Spec;
}

export interface ExportFile {
  /** File name relative to the output directory, with `/` separators. */
  file: string;
  /** Documents in the file. */
  documents: number;
  /** Documents per manifest kind, in the order of `kinds`. */
  kinds: { kind: string; documents: number }[];
  text: string;
}

/** `IPPolicy` -> `ip-policies.yaml`, `HTTPSEdge` -> `https-edges.yaml`, `ReservedTCPAddress` -> `reserved-tcp-addresses.yaml`. */
export function fileNameOf(kind: string): string {
  const words = kind
    .replace(/([a-z])([A-Z])/g, '$1-$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1-$2')
    .toLowerCase();
  const plural = words.endsWith('y') ? `${words.slice(0, -1)}ies` : words.endsWith('s') ? `${words}es` : `${words}s`;
  return `${plural}.yaml`;
}

/**
 * The files of `documents`, each document in the file `fileOf` gives it; files in the order of
 * the first kind they hold (by `kinds`), then by name.
 */
export function renderFiles(
  documents: readonly ManifestDocument[],
  kinds: readonly string[],
  about: { target: string; stack: string },
  fileOf: (document: ManifestDocument) => string = (d) => fileNameOf(d.kind),
): ExportFile[] {
  const rank = new Map(kinds.map((k, i) => [k, i]));
  const byFile = new Map<string, ManifestDocument[]>();
  for (const d of documents) append(byFile, fileOf(d), d);
  const files = [...byFile].map(([file, docs]) => {
    docs.sort((a, b) => rank.get(a.kind)! - rank.get(b.kind)! || a.name.localeCompare(b.name));
    const counts = kinds.flatMap((kind) => {
      const n = docs.filter((d) => d.kind === kind).length;
      return n > 0 ? [{ kind, documents: n }] : [];
    });
    const one = counts.length === 1 ? counts[0]!.kind : undefined;
    const header =
      `${SCHEMA_LINE_PREFIX}${one ? manifestSchemaUrl(one) : MANIFEST_SCHEMA_URL}\n` +
      `${EXPORT_HEADER} ${one ? `${one} manifests` : 'manifests'} exported from ${sanitize(about.target)} (stack "${sanitize(about.stack)}"); safe to edit.\n`;
    const body = docs.map((d) => stringify(d, { lineWidth: 0, aliasDuplicateObjects: false, customTags: (tags) => [escapedStrings, ...tags] })).join('---\n');
    return { file, documents: docs.length, kinds: counts, text: header + body, first: rank.get(docs[0]!.kind)! };
  });
  return files.sort((a, b) => a.first - b.first || a.file.localeCompare(b.file)).map(({ first: _first, ...file }) => file);
}
