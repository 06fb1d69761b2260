/**
 * Kinds the account cannot list. A list the API answers with 404 (it does not serve that
 * collection: `route_not_found`) or 403 (the account's plan lacks the feature) says nothing of
 * the objects there, so:
 *
 * - when the manifests declare an object of that collection, nothing is planned: a problem at
 *   each such object, since neither its create nor its update can be judged;
 * - otherwise the run goes on without it, and says which kinds it could not read: their live
 *   objects are neither compared, nor listed as unmanaged, nor deleted (pruned), since none
 *   was seen;
 * - when no list at all could be read, it is no missing feature but a wrong URL or key: the
 *   first failure is the error.
 */
import type { DesiredObject } from '../desired.js';
import type { Collection, KindDescriptor } from '../kinds/types.js';
import { childrenOf, descriptor } from '../kinds/index.js';
import { LiveApiError } from '../ports.js';
import { problem, type Problem } from '../problems.js';
import type { UnreadableKind } from '../plan-model.js';

/** Whether a list failure means the collection cannot be read by this account (404, 403). */
export const isUnreadable = (error: unknown): error is LiveApiError => error instanceof LiveApiError && (error.status === 404 || error.status === 403);

/** What observe records of a collection it could not list (its inline children are unread with it). */
export function unreadableKind(descriptor: KindDescriptor, collection: Collection, error: LiveApiError): UnreadableKind {
  const inline = childrenOf(descriptor.kind)
    .filter((c) => 'inline' in c.observe)
    .map((c) => c.kind);
  return {
    kind: descriptor.kind,
    path: collection.path,
    status: error.status!,
    ...(error.code !== undefined ? { code: error.code } : {}),
    ...(inline.length > 0 ? { with: inline } : {}),
  };
}

/** Why a collection cannot be read, in words: `404 route_not_found: the API does not serve it`. */
export function unreadableReason(u: UnreadableKind): string {
  const why = u.status === 403 ? "the account's plan does not include it" : 'the API does not serve it';
  return `${u.status}${u.code ? ` ${u.code}` : ''}: ${why}`;
}

/** The kinds an unreadable collection stands for, for messages: `HTTPSEdge (and its HTTPSEdgeRoute)`. */
export const unreadableKinds = (u: UnreadableKind): string => `${u.kind}${u.with && u.with.length > 0 ? ` (and its ${u.with.join(', ')})` : ''}`;

/**
 * One problem per declared object that lives in an unreadable collection (its children with
 * it), at the object: the manifests cannot be planned against a kind the account cannot read.
 */
export function unreadableProblems(desired: readonly DesiredObject[], unreadable: readonly UnreadableKind[]): Problem[] {
  if (unreadable.length === 0) return [];
  const byPath = new Map(unreadable.map((u) => [u.path, u]));
  const problems: Problem[] = [];
  for (const d of desired) {
    const u = byPath.get(collectionOf(d));
    if (!u) continue;
    problems.push(
      problem(
        'kind_unreadable',
        `${d.address} cannot be planned: the account cannot list ${u.path} (${unreadableReason(u)}); remove the ${d.descriptor.title} from the manifests or use an account that has it`,
        d.source,
      ),
    );
  }
  return problems;
}

/** The collection a desired object is listed in: its own, its parent's for inline children. */
function collectionOf(d: DesiredObject): string {
  const observe = d.descriptor.observe;
  if ('inline' in observe) {
    const parentObserve = descriptor(d.descriptor.child!.parentKind).observe as { lists: Collection[] };
    return parentObserve.lists[0]!.path;
  }
  return d.descriptor.listedIn?.(d.normal) ?? observe.lists[0]!.path;
}
