/**
 * Step 6b, order: sorts changes so that every change comes after the changes it depends on
 * (as kubernetes-sigs/cli-utils `object/graph` does), keeping the given order among
 * independent changes. A cycle is a typed error that lists its edges.
 */
import type { Change } from '../plan-model.js';

export interface Edge {
  /** The change that waits... */
  from: string;
  /** ...for this one. */
  to: string;
}

export class DependencyCycleError extends Error {
  readonly code = 'dependency_cycle';
  constructor(readonly edges: Edge[]) {
    super(`the changes depend on each other in a cycle: ${edges.map((e) => `${e.from} -> ${e.to}`).join(', ')}; break one of these references`);
    this.name = 'DependencyCycleError';
  }
}

/**
 * Repeated passes in input order, each emitting every change whose dependencies are done:
 * O(changes x depth), and stable with respect to the input order.
 */
export function order(changes: Change[]): Change[] {
  const byAddress = new Map(changes.map((c) => [c.address, c]));
  const waiting = new Map(changes.map((c) => [c.address, new Set(c.dependsOn.filter((d) => byAddress.has(d) && d !== c.address))]));
  const out: Change[] = [];
  const done = new Set<string>();
  let pending = changes;
  while (pending.length > 0) {
    const next: Change[] = [];
    for (const change of pending) {
      if ([...waiting.get(change.address)!].every((d) => done.has(d))) {
        done.add(change.address);
        out.push(change);
      } else next.push(change);
    }
    if (next.length === pending.length) throw new DependencyCycleError(cycleEdges(next, waiting));
    pending = next;
  }
  return out;
}

/** One cycle among the remaining changes, as edges. */
function cycleEdges(remaining: Change[], waiting: Map<string, Set<string>>): Edge[] {
  const left = new Set(remaining.map((c) => c.address));
  let current = remaining[0]!.address;
  const path: string[] = [];
  while (!path.includes(current)) {
    path.push(current);
    current = [...waiting.get(current)!].find((d) => left.has(d))!;
  }
  const loop = [...path.slice(path.indexOf(current)), current];
  return loop.slice(0, -1).map((from, i) => ({ from, to: loop[i + 1]! }));
}
