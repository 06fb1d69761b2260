/**
 * What identifies an object can never come from a secret `${env:}` variable (env-policy.ts):
 * its manifest `name` (every plan prints it, the ownership marker records it, addresses and
 * dependencies are made of it), its natural key (an IP policy rule's CIDR and a route's match,
 * part of their addresses; a bot user's name, which lists it once it is no longer declared),
 * `kind` and `adopt`. A value there could not be masked without
 * making the plan unreadable, so it is a problem at its line: write it in the manifest, take it
 * from `${var:}`, or declare the variable plain in gatehouse.yaml.
 */
import type { DesiredObject } from '../desired.js';
import { problem, type Problem } from '../problems.js';

const DOCUMENT_FIELDS = new Set(['name', 'kind', 'adopt']);

export function secretIdentityProblems(desired: readonly DesiredObject[]): Problem[] {
  const problems: Problem[] = [];
  const seen = new Set<string>();
  for (const d of desired) {
    const uses = d.doc.secrets;
    if (!uses || uses.length === 0) continue;
    const key = d.descriptor.child ? [...d.specPath, d.descriptor.child.key] : undefined;
    const natural = d.descriptor.naturalKey?.(d.normal).toLowerCase();
    const own = (path: readonly (string | number)[]) => d.specPath.every((s, i) => String(s) === String(path[i]));
    for (const use of uses) {
      const identity =
        (d.parent === undefined && use.path.length === 1 && DOCUMENT_FIELDS.has(String(use.path[0]))) ||
        (key !== undefined && key.length === use.path.length && key.every((s, i) => String(s) === String(use.path[i]))) ||
        // By content too (a bot user's spec.name): a value of 4 characters or more found in the key.
        (natural !== undefined && own(use.path) && use.raw.some((value) => value.length >= 4 && natural.includes(value.toLowerCase())));
      if (!identity) continue;
      const at = d.doc.locate([...use.path]);
      const where = `${at.file}:${at.line}:${at.col}`;
      if (seen.has(where)) continue;
      seen.add(where);
      const field = use.path.length === 1 ? String(use.path[0]) : `${String(use.path.at(-1))}, which identifies the ${d.descriptor.title},`;
      const variables = use.names.join(', ');
      problems.push(
        problem(
          'env_secret_identity',
          `${field} comes from \${env:${use.names[0]}}, a secret variable: names and keys are printed in every plan and recorded in the ownership marker; write it in the manifest, take it from \${var:}, or declare ${variables} plain in gatehouse.yaml (variables: {${use.names[0]}: {secret: false}})`,
          at,
        ),
      );
    }
  }
  return problems;
}
