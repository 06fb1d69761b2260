/**
 * Part of resolve, run first: substitutes `${env:NAME}` in every string of every document, so
 * that validate checks the values the server will see. A missing variable is a problem naming
 * it (never its value, which may be a secret). `$${env:NAME}` escapes a literal `${env:NAME}`.
 */
import { problem, type Problem } from '../problems.js';
import type { LoadedDocument, Path } from './load.js';

const PATTERN = /\$?\$\{env:([^}]*)\}/g;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function interpolate(
  documents: LoadedDocument[],
  env: Record<string, string | undefined>,
): { documents: LoadedDocument[]; problems: Problem[] } {
  const problems: Problem[] = [];
  const substitute = (text: string, doc: LoadedDocument, path: Path): string =>
    text.replace(PATTERN, (whole, name: string) => {
      if (whole.startsWith('$$')) return whole.slice(1);
      if (!NAME.test(name)) {
        problems.push(problem('env_missing', `"\${env:${name}}" is not a valid variable reference; use letters, digits and _`, doc.locate(path)));
        return '';
      }
      const value = env[name];
      if (value === undefined) {
        problems.push(problem('env_missing', `environment variable ${name} is not set; set it or remove \${env:${name}}`, doc.locate(path)));
        return '';
      }
      return value;
    });
  const walk = (value: unknown, doc: LoadedDocument, path: Path): unknown => {
    if (typeof value === 'string') return value.includes('${env:') ? substitute(value, doc, path) : value;
    if (Array.isArray(value)) return value.map((item, i) => walk(item, doc, [...path, i]));
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, doc, [...path, k])]));
    }
    return value;
  };
  return { documents: documents.map((doc) => ({ ...doc, value: walk(doc.value, doc, []) })), problems };
}
