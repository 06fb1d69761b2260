/**
 * The unmanaged objects of a plan or a drift report, as a person reads them: every one when there
 * are few; past that, a line per kind with its first few and how many more (a one-object plan in
 * a new stack beside 48 objects of the account says so in a few lines). Machine output (JSON)
 * keeps them all.
 */
import type { UnmanagedObject } from '../plan-model.js';
import { listSome } from './list-some.js';
import { append } from '../append.js';

/** Up to this many objects are listed one by one. */
const LISTED_IN_FULL = 10;
/** Past it, how many of each kind are named. */
const NAMED_PER_KIND = 3;

/** Lines (without indentation) naming the objects: one each, or one per kind. */
export function unmanagedLines(objects: readonly UnmanagedObject[]): string[] {
  const one = (o: UnmanagedObject) => `${o.id}${o.label ? ` (${o.label})` : ''}`;
  if (objects.length <= LISTED_IN_FULL) return objects.map((o) => `${o.kind} ${o.id}${o.label ? `  ${o.label}` : ''}`);
  const byKind = new Map<string, UnmanagedObject[]>();
  for (const o of objects) append(byKind, o.kind, o);
  return [...byKind].map(([kind, of]) => `${kind} (${of.length}): ${listSome(of.map(one), { shown: NAMED_PER_KIND })}`);
}
