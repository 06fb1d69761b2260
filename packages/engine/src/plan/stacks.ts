/**
 * Stacks: a live object belongs to at most one stack, and no stack duplicates or silently takes
 * what another stack owns.
 *
 * Why: there is no state file. The ownership marker's `stack` is the only record of which
 * stack manages an object, so the same manifests applied under a second stack (a new
 * `GATEHOUSE_STACK` in CI, a typo) would otherwise create a second copy of every policy, rule
 * and backend, and an `adopt:` would silently steal an object from the team that owns it.
 *
 * The contract (`match` calls these rules; `plan` writes the reasons):
 * 1. Collision. A top-level create of a kind that carries a marker, whose kind and manifest name
 *    are those in the marker of a live object of another stack, is the problem
 *    `owned_by_other_stack` at the document: it names that stack and the live id and says how
 *    to move the object (`adopt: <id>` with `--from-stack <stack>`) or to change the name.
 *    Creates whose unique key (a hostport, an IP restriction's type) another stack holds are
 *    already `adoption_required` (match.ts, with the `--from-stack` hint from `holderHint`) and
 *    are not reported twice. Children are matched within their parent by natural key, so they
 *    never collide on their own; a child of a reported parent needs no problem of its own.
 * 2. Take-over. A live object whose marker names another stack X is paired with a desired
 *    object (by `adopt:`, or as a child within its matched parent) only when `fromStack` is X;
 *    otherwise it is the problem `owned_by_other_stack` saying to add `--from-stack X`. The
 *    children of a parent reported so are not reported again.
 * 3. Move. With `fromStack` X, a desired top-level object that matches nothing of this stack is
 *    paired with the live object of X that has the same kind and manifest name; its declared
 *    children follow by natural key, as under any matched parent. The plan shows each as a
 *    change "moved from stack X" (apply rewrites the marker: plan = apply). Renaming a stack is
 *    `apply --stack new --from-stack old`. Objects of X that the manifests do not declare stay
 *    with X (listed as unmanaged). A child X marked inside a parent another stack owns now is
 *    never deleted by X (match.ts): it lives in the other stack's object.
 * 4. After a move, the old stack's manifests that still declare the object collide (rule 1,
 *    naming the new owner), so its plan, apply and drift fail with that problem instead of
 *    planning a create or calling the object "deleted outside gatehouse"; once its manifests no
 *    longer declare it, the object is only listed as unmanaged (stack <new>).
 * Bot users carry no marker and are outside these rules.
 */
import type { DesiredObject } from '../desired.js';
import type { LiveObject } from '../live.js';
import { problem, type Problem } from '../problems.js';
import { append } from '../append.js';

export interface StackScope {
  /** The stack being planned. */
  stack: string;
  /** `--from-stack`: the one other stack whose objects this plan may take over (rules 2, 3). */
  fromStack?: string | undefined;
}

export interface StackRules {
  /** Rule 3: the live object of `fromStack` that `d` (top-level, matched nothing) moves, if any. */
  moveCandidate(d: DesiredObject): LiveObject | undefined;
  /**
   * Rule 2: the problem of pairing `d` with `o` when `o` belongs to another stack than this one
   * and `fromStack`; undefined when allowed (or when `d`'s parent was reported already).
   */
  takeOver(d: DesiredObject, o: LiveObject, path: (string | number)[]): Problem | undefined;
  /** Rule 1: problems of the creates that duplicate another stack's object. */
  collisions(creates: readonly DesiredObject[], taken: (o: LiveObject) => boolean, reported: ReadonlySet<DesiredObject>): Problem[];
}

/** How to move an object another stack owns into this one: shared by every message that says so. */
function moveHint(owner: string, id: string): string {
  return `to move it into this stack, add "adopt: ${id}" to this manifest and run with --from-stack ${owner}`;
}

/**
 * The words match's `adoption_required` uses for the holder of a unique key: for an object of
 * another stack they say how to move it (`--from-stack`) unless this run already moves from it.
 */
export function holderHint(holder: LiveObject, scope: StackScope): { whose: string; how: string } {
  if (!holder.marker) return { whose: 'not managed by gatehouse', how: `add "adopt: ${holder.id}" to this manifest to manage it` };
  const owner = holder.marker.stack;
  const how = owner === scope.fromStack ? `add "adopt: ${holder.id}" to this manifest to move it` : moveHint(owner, holder.id);
  return { whose: `owned by stack "${owner}"`, how };
}

/** The reason a plan gives for pairing with a live object this stack does not own yet. */
export function takeOverReason(o: LiveObject, stack: string): string {
  return o.marker ? `moved from stack "${o.marker.stack}"` : `adopted into stack "${stack}"`;
}

export function stackRules(live: readonly LiveObject[], scope: StackScope): StackRules {
  const { stack, fromStack } = scope;
  // kind \0 manifest name -> live objects of other stacks (top-level objects carry the name).
  const others = new Map<string, LiveObject[]>();
  for (const o of live) {
    if (!o.marker || o.marker.stack === stack || o.descriptor.child || !o.descriptor.metadata) continue;
    append(others, `${o.descriptor.kind}\0${o.marker.name}`, o);
  }
  const refused = new Set<string>(); // addresses of desired objects reported by takeOver
  const named = (d: DesiredObject) => others.get(`${d.descriptor.kind}\0${d.markerName}`) ?? [];

  return {
    moveCandidate(d) {
      if (fromStack === undefined || d.parent !== undefined || !d.descriptor.metadata) return undefined;
      return named(d).find((o) => o.marker!.stack === fromStack);
    },

    takeOver(d, o, path) {
      const owner = o.marker?.stack;
      if (!o.descriptor.metadata || owner === undefined || owner === stack || owner === fromStack) return undefined;
      refused.add(d.address);
      if (d.parent !== undefined && refused.has(d.parent)) return undefined;
      const what =
        d.parent !== undefined ? `the live ${o.descriptor.title} ${o.id} (under ${d.parent})` : `adopt: ${o.id} names a live ${o.descriptor.title} that`;
      return problem(
        'owned_by_other_stack',
        `${what} is owned by stack "${owner}"; taking it over needs --from-stack ${owner} (the object then moves to stack "${stack}"), or remove ${d.parent !== undefined ? 'it from this manifest' : 'adopt:'}`,
        d.doc.locate(path),
      );
    },

    collisions(creates, taken, reported) {
      const problems: Problem[] = [];
      for (const d of creates) {
        if (d.parent !== undefined || reported.has(d) || !d.descriptor.metadata) continue;
        const holders = named(d).filter((o) => !taken(o));
        if (holders.length === 0) continue;
        const list = holders.map((o) => `${o.id} of stack "${o.marker!.stack}"`).join(', ');
        const first = holders[0]!;
        problems.push(
          problem(
            'owned_by_other_stack',
            `${d.address} would duplicate the live ${d.descriptor.title} ${list} (same kind and name); ${moveHint(first.marker!.stack, first.id)} (--from-stack ${first.marker!.stack} alone moves every object of that stack the manifests declare), or give this manifest another name`,
            d.doc.locate(['name']),
          ),
        );
      }
      return problems;
    },
  };
}

/**
 * `--from-stack X` where X owns no live object: nothing can move (a typo, or a move already
 * done). A warning, not an error, so that rerunning a finished move still works.
 */
export function fromStackWarning(live: readonly LiveObject[], scope: StackScope): Problem | undefined {
  const { fromStack } = scope;
  if (fromStack === undefined || live.some((o) => o.marker?.stack === fromStack)) return undefined;
  return problem(
    'from_stack_empty',
    `--from-stack ${fromStack}: stack "${fromStack}" owns no live object, so nothing moves from it (a typo, or a move already done)`,
  );
}
