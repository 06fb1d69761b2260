/**
 * The check of gatehouse.yaml's `ignore:` rules (readProject): each kind glob must name at least
 * one manifest kind, and each path must be able to match a field of one of the kinds it names
 * (load/ignore-paths.ts), each problem at the line of the glob or the path.
 */
import picomatch from 'picomatch';
import { MANIFEST_KINDS } from '@gatehouse/schemas/runtime';
import { KINDS } from '../kinds/index.js';
import { ignorePathProblem } from '../load/ignore-paths.js';
import type { ProjectIgnoreRule } from '../plan/ignore.js';
import { problem, type Problem } from '../problems.js';
import type { SourceLocation } from '../source.js';

export async function projectIgnoreProblems(rules: readonly ProjectIgnoreRule[], locate: (path: (string | number)[]) => SourceLocation): Promise<Problem[]> {
  const problems: Problem[] = [];
  for (const [i, rule] of rules.entries()) {
    const matches = picomatch(rule.kind);
    const kinds = MANIFEST_KINDS.filter((kind) => matches(kind));
    if (kinds.length === 0) {
      const child = KINDS.find((k) => k.child && matches(k.kind));
      const hint = child
        ? `; ${child.kind} objects are declared inside ${child.child!.parentKind}: use kind: ${child.child!.parentKind} with paths such as ${child.child!.field}[*].description`
        : `; the kinds are ${MANIFEST_KINDS.join(', ')}`;
      problems.push(problem('ignore_path_invalid', `ignore: kind "${rule.kind}" matches no manifest kind${hint}`, locate([i, 'kind'])));
      continue;
    }
    for (const [j, path] of rule.paths.entries()) {
      const why = await Promise.all(kinds.map((kind) => ignorePathProblem(kind, path)));
      // A glob of several kinds: a path is fine when one of them has the field.
      if (why.every((w) => w !== undefined)) {
        problems.push(
          problem(
            'ignore_path_invalid',
            `ignore: ${kinds.length === 1 ? why[0] : `"${path}" can match no field of any kind "${rule.kind}" names (${kinds.join(', ')}); for ${kinds[0]}: ${why[0]}`}`,
            locate([i, 'paths', j]),
          ),
        );
      }
    }
  }
  return problems;
}
