/**
 * The exported manifests as files: one per manifest kind (`ip-policies.yaml`, ...), documents
 * sorted by name. Each file starts with the `# yaml-language-server: $schema=` line of its
 * kind's published schema (editors then check and complete it), then `EXPORT_HEADER`, so that
 * a later export knows which files it wrote (and may replace) and which it must not touch
 * unless asked (`isExportedText`: the header within the first lines, so older exports, which
 * started with it, are still recognised).
 */
import { schemaUrl } from '@gatehouse/schemas/runtime';
import { stringify } from 'yaml';
import type { Spec } from '../kinds/types.js';

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
  /** File name relative to the output directory. */
  file: string;
  kind: string;
  documents: number;
  text: string;
}

/** `IPPolicy` -> `ip-policies.yaml`, `HTTPSEdge` -> `https-edges.yaml`, `ReservedTCPAddress` -> `reserved-tcp-addresses.yaml`. */
export function fileNameOf(kind: string): string {
  const words = kind.replace(/([a-z])([A-Z])/g, '$1-$2').replace(/([A-Z]+)([A-Z][a-z])/g, '$1-$2').toLowerCase();
  const plural = words.endsWith('y') ? `${words.slice(0, -1)}ies` : words.endsWith('s') ? `${words}es` : `${words}s`;
  return `${plural}.yaml`;
}

/** One file per kind that has documents, in `kinds` order. */
export function renderFiles(documents: ManifestDocument[], kinds: string[], about: { target: string; stack: string }): ExportFile[] {
  return kinds.flatMap((kind) => {
    const docs = documents.filter((d) => d.kind === kind).sort((a, b) => a.name.localeCompare(b.name));
    if (docs.length === 0) return [];
    const header =
      `${SCHEMA_LINE_PREFIX}${manifestSchemaUrl(kind)}\n` +
      `${EXPORT_HEADER} ${kind} manifests exported from ${about.target} (stack "${about.stack}"); safe to edit.\n`;
    const body = docs.map((d) => stringify(d, { lineWidth: 0, aliasDuplicateObjects: false })).join('---\n');
    return [{ file: fileNameOf(kind), kind, documents: docs.length, text: header + body }];
  });
}
