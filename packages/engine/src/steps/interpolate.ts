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
  /**
   * Substitutes in place of a copy: containers are copied only when something inside them
   * changed (most documents hold no `${env:}` at all), and the path is one stack, copied
   * only when a problem needs it.
   */
  const walk = (value: unknown, doc: LoadedDocument, path: (string | number)[]): unknown => {
    if (typeof value === 'string') return value.includes('${env:') ? substitute(value, doc, [...path]) : value;
    if (Array.isArray(value)) {
      let out: unknown[] | undefined;
      for (let i = 0; i < value.length; i += 1) {
        path.push(i);
        const item = walk(value[i], doc, path);
        path.pop();
        if (item !== value[i]) (out ??= [...value])[i] = item;
      }
      return out ?? value;
    }
    if (value !== null && typeof value === 'object') {
      let out: Record<string, unknown> | undefined;
      for (const [key, item] of Object.entries(value)) {
        path.push(key);
        const next = walk(item, doc, path);
        path.pop();
        // defineProperty: a key named __proto__ stays a plain key.
        if (next !== item) Object.defineProperty((out ??= { ...value }), key, { value: next, enumerable: true, writable: true, configurable: true });
      }
      return out ?? value;
    }
    return value;
  };
  return { documents: documents.map((doc) => ({ ...doc, value: walk(doc.value, doc, []) })), problems };
}

const where = (p: Problem) => (p.at ? `${p.at.file}:${p.at.line}:${p.at.col}` : undefined);

/**
 * Drops the problems that only repeat a missing variable: a value whose `${env:NAME}` is
 * unset is substituted with "", and later steps would report that empty value again at the
 * same position (a too-short name, an empty hostport, a broken reference). The problem that
 * names the variable is the one to fix, so it is reported alone.
 */
export function withoutUnsetEcho(problems: Problem[]): Problem[] {
  const unset = new Set(problems.filter((p) => p.code === 'env_missing').map(where));
  if (unset.size === 0) return problems;
  return problems.filter((p) => p.code === 'env_missing' || !unset.has(where(p)));
}
