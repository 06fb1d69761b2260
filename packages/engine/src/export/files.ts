/**
 * The exported manifests as files: one per manifest kind (`ip-policies.yaml`, ...), documents
 * sorted by name, each file starting with `EXPORT_HEADER` so that a later export knows which
 * files it wrote (and may replace) and which it must not touch unless asked.
 */
import { stringify } from 'yaml';
import type { Spec } from '../kinds/types.js';

/** First characters of every file export writes. */
export const EXPORT_HEADER = '# gatehouse export:';

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
    const header = `${EXPORT_HEADER} ${kind} manifests exported from ${about.target} (stack "${about.stack}"); safe to edit.\n`;
    const body = docs.map((d) => stringify(d, { lineWidth: 0, aliasDuplicateObjects: false })).join('---\n');
    return [{ file: fileNameOf(kind), kind, documents: docs.length, text: header + body }];
  });
}
