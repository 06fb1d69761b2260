/**
 * `gatehouse render`: the fully resolved manifests of one environment, to review or diff:
 * overlays applied and `${var:}` substituted, while `${env:}` placeholders (secrets) and `$$`
 * escapes stay as written, so that the output reads back as the same manifests. Documents stay
 * in the file they came from (a merged object in its base file, a new object in its overlay
 * file), in their order.
 */
import { stringify } from 'yaml';
import type { Problem } from '../problems.js';
import { sortProblems } from '../problems.js';
import { interpolate } from '../load/interpolate.js';
import type { LoadOptions } from '../load/documents.js';
import { environmentDocuments, type EnvironmentInput } from './documents.js';
import { append } from '../append.js';

/** The first line of every rendered file begins so: how `render --out` knows its own files. */
const RENDER_HEADER = '# gatehouse render --env ';

/** Whether `text` (a file's beginning is enough) was written by `gatehouse render`. */
export const isRenderedText = (text: string): boolean => text.startsWith(RENDER_HEADER);

export interface RenderedFile {
  /** The source file, as the user would name it. */
  file: string;
  /** Its resolved documents as YAML (`---` between documents). */
  text: string;
  documents: number;
}

export async function renderEnvironment(options: {
  paths: string[];
  environment: EnvironmentInput;
  maxFileSize?: number;
  onWarning?: (warning: Problem) => void;
}): Promise<{ files: RenderedFile[]; problems: Problem[] }> {
  const loadOptions: LoadOptions = options.maxFileSize !== undefined ? { maxFileSize: options.maxFileSize } : {};
  const loaded = await environmentDocuments(options.paths, options.environment, loadOptions);
  for (const warning of loaded.warnings) options.onWarning?.(warning);
  const interpolated = interpolate(loaded.documents, {}, { vars: options.environment.vars, keepEnv: true });
  const byFile = new Map<string, unknown[]>();
  for (const doc of interpolated.documents) append(byFile, doc.file, doc.value);
  const files = [...byFile].map(([file, values]) => ({
    file,
    documents: values.length,
    text: `${RENDER_HEADER}${options.environment.name} (from ${file})\n${values.map((v) => stringify(v, { lineWidth: 0 })).join('---\n')}`,
  }));
  return { files, problems: sortProblems([...loaded.problems, ...interpolated.problems]) };
}
