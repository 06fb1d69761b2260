/**
 * The `unknown_kind` problem of a document whose kind gatehouse does not know, with the hint
 * that fixes it. Every document under the manifest paths is accounted for: one with no `kind`
 * (or a misspelt `knd:`), an unknown kind (`IPPolcy`) or another tool's document (a Kubernetes
 * object) is a problem at its line, never skipped in silence. Skipped, the object its manifest
 * meant to declare would be missing from the plan, and `--prune` would delete it.
 */
import { MANIFEST_KINDS, closestName } from '@gatehouse/schemas/runtime';
import { problem, type Problem } from '../problems.js';
import type { LoadedDocument } from './documents.js';

const KINDS: readonly string[] = MANIFEST_KINDS;

/** Where another tool's files go instead: said once per problem. */
const EXCLUDE_HINT = 'if the file belongs to another tool, keep it out of the manifest paths or list it under exclude: in gatehouse.yaml';

/** The closest kind gatehouse knows, by spelling (`IPPolcy`, `ippolicy`), when there is one. */
function closeKind(kind: string): string | undefined {
  return KINDS.find((k) => k.toLowerCase() === kind.toLowerCase()) ?? closestName(kind, KINDS);
}

/** The problem of a mapping `value` whose `kind` is missing or not a manifest kind. */
export function unknownKindProblem(doc: LoadedDocument, value: Record<string, unknown>): Problem {
  const kind = value.kind;
  const known = `one of ${KINDS.join(', ')}`;
  if (kind === undefined) {
    // A key that is `kind` misspelt (`knd`, `Kind`, `kinds`), its value perhaps a known kind.
    const misspelt = Object.keys(value).find((key) => key.toLowerCase() === 'kind' || closestName(key, ['kind']) !== undefined);
    if (misspelt !== undefined) {
      const written = typeof value[misspelt] === 'string' ? closeKind(value[misspelt]) : undefined;
      return problem(
        'unknown_kind',
        `the document has no kind; did you mean kind instead of ${JSON.stringify(misspelt)}? (kind: ${written ?? known})`,
        doc.locate([misspelt], { key: true }),
      );
    }
    return problem(
      'unknown_kind',
      `the document has no kind: every document under the manifest paths must be a gatehouse manifest (kind: ${known}); ${EXCLUDE_HINT}`,
      doc.locate([]),
    );
  }
  const where = doc.locate(['kind']);
  if (typeof kind !== 'string') return problem('unknown_kind', `kind must be ${known}, not ${JSON.stringify(kind)}`, where);
  if (typeof value.apiVersion === 'string') {
    return problem(
      'unknown_kind',
      `a Kubernetes document (apiVersion ${JSON.stringify(value.apiVersion)}, kind ${JSON.stringify(kind)}), not a gatehouse manifest; ${EXCLUDE_HINT}`,
      where,
    );
  }
  const close = closeKind(kind);
  return problem('unknown_kind', `kind must be ${known}, not ${JSON.stringify(kind)}${close ? `; did you mean ${close}?` : `; ${EXCLUDE_HINT}`}`, where);
}
