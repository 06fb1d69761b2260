/**
 * Step 5, match: pair desired objects with live ones by identity, with no state file.
 *
 * Identity, in order (docs/architecture.md, "Identity without a state file"):
 * 1. `adopt: <id>`: the manifest takes over that live object explicitly.
 * 1b. A bot user: the live bot user its stack's registry records for its manifest name
 *    (bot-registry/registry.ts), so that a rename through `spec.name` keeps it; with
 *    `--from-stack OLD`, then the one OLD's registry records (a move and a rename at once).
 * 2. The ownership marker: a live object whose marker names this stack and this object.
 * 3. The natural key, where the service keeps it unique: a child within its matched parent
 *    (a rule by CIDR, a route by match_type+match: declaring it inline in an owned parent
 *    manages it); a bot user by name (no metadata, so no marker: declaring the name manages
 *    it, or by its `aliases`: its manifest name before `spec.name` renamed it); an IP
 *    restriction by type, but only when this stack owns it (a rename).
 * A desired object whose natural or unique key (type, hostport) is held by a live object this
 * stack does not own is a problem: the manifest must adopt it explicitly.
 * Objects of other stacks are taken over only with `--from-stack`, and a create that would
 * duplicate one is a problem (stacks.ts).
 * Unpaired live objects this stack owns are to be deleted; children of those too. All other
 * unpaired live objects are unmanaged: listed, never touched. Bot users are never deleted.
 */
import type { DesiredObject } from '../desired.js';
import type { LiveObject } from '../live.js';
import { problem, type Problem } from '../problems.js';
import { registeredPairs, type BotRegistry } from '../bot-registry/records.js';
import { nameSwapProblems } from '../bot-registry/name-order.js';
import { findDuplicates, type DuplicateObject } from './duplicates.js';
import type { Matching } from './matching.js';
import { holderHint, stackRules, type StackScope } from './stacks.js';
import { withArticle } from '../article.js';
import { append } from '../append.js';

/**
 * `options.fromStack`: `--from-stack`, the other stack whose objects this plan may move (stacks.ts).
 * `options.registry`: the stack's bot user registry (bot-registry/registry.ts).
 */
export function match(
  desired: DesiredObject[],
  everything: LiveObject[],
  stack: string,
  options: Omit<StackScope, 'stack'> & { registry?: BotRegistry; fromRegistry?: BotRegistry } = {},
): Matching {
  const { registry, fromRegistry } = options;
  const problems: Problem[] = [];
  const scope: StackScope = { stack, fromStack: options.fromStack };
  // Duplicates are set aside first: only the kept object of each group takes part in matching.
  const duplicates = findDuplicates(everything, stack, desired);
  const duplicateOf = new Map(duplicates.map((d) => [d.live.id, d]));
  const live = duplicates.length === 0 ? everything : everything.filter((o) => !duplicateOf.has(o.id));
  const claimed = new Map<LiveObject, DesiredObject>();
  const liveOf = new Map<string, LiveObject>(); // desired address -> live
  const owned = (o: LiveObject) => o.marker?.stack === stack;
  const claim = (d: DesiredObject, o: LiveObject) => {
    claimed.set(o, d);
    liveOf.set(d.address, o);
  };

  // Indexes, built once: lookups stay linear in the number of objects.
  const byId = new Map<string, LiveObject>();
  const byMarker = new Map<string, LiveObject>(); // kind \0 marker name -> owned live
  const byNaturalKey = new Map<string, LiveObject[]>(); // kind \0 parent id \0 key -> live
  for (const o of live) {
    byId.set(o.id, o);
    if (owned(o)) byMarker.set(`${o.descriptor.kind}\0${o.marker!.name}`, o);
    if (o.descriptor.naturalKey) {
      const key = o.descriptor.naturalKey(o.descriptor.fromLive(o.raw, o.collection));
      append(byNaturalKey, `${o.descriptor.kind}\0${o.parentId ?? ''}\0${key}`, o);
    }
  }
  // `{id: ...}` references name live objects: checked against what was read, before any write.
  for (const d of desired) {
    // (Most objects have no `{id}` reference: no iterator for them.)
    if (d.idRefs)
      for (const ref of d.idRefs) {
        const target = byId.get(ref.id);
        if (!target)
          problems.push(
            problem(
              'reference_id_missing',
              `no live ${ref.kind} has the id ${ref.id}; fix the id, or name ${withArticle(ref.kind)} manifest instead of {id: ...}`,
              ref.locate(),
            ),
          );
        else if (target.descriptor.kind !== ref.kind)
          problems.push(
            problem(
              'reference_id_wrong_kind',
              `${ref.id} is ${withArticle(target.descriptor.title)}, but ${withArticle(ref.kind)} is expected here; fix the id`,
              ref.locate(),
            ),
          );
      }
  }
  const stacks = stackRules(live, scope);
  const free = (o: LiveObject | undefined) => (o && !claimed.has(o) ? o : undefined);
  const byKey = (kind: string, parentId: string, key: string) => byNaturalKey.get(`${kind}\0${parentId}\0${key}`)?.find((o) => !claimed.has(o));

  // Bot users the registry records, before natural keys, so no other manifest takes them by name.
  for (const [d, o] of registeredPairs(desired, registry, byId)) claim(d, o);
  // With --from-stack OLD, then the bot users OLD's registry records (a move that also renames spec.name).
  for (const [d, o] of registeredPairs(desired, fromRegistry, byId)) if (!liveOf.has(d.address) && !claimed.has(o)) claim(d, o);
  const aliased: DesiredObject[] = [];
  // Parents before children: the desired list has each parent before its children.
  for (const d of desired) {
    const kind = d.descriptor.kind;
    if (liveOf.has(d.address)) continue;
    if (d.adopt !== undefined) {
      const target = byId.get(d.adopt);
      if (target && (target.descriptor.kind !== kind || claimed.has(target))) {
        problems.push(
          problem(
            'adopt_wrong_kind',
            `adopt: ${d.adopt} is ${claimed.has(target) ? `already matched to ${claimed.get(target)!.address}` : `${withArticle(target.descriptor.title)}, not ${withArticle(d.descriptor.title)}`}; fix the id`,
            d.doc.locate(['adopt']),
          ),
        );
        continue;
      }
      if (target) {
        const refused = stacks.takeOver(d, target, ['adopt']);
        if (refused) problems.push(refused);
        claim(d, target);
        continue;
      }
    }
    if (d.parent) {
      const parentLive = liveOf.get(d.parent);
      const found = parentLive && byKey(kind, parentLive.id, d.descriptor.naturalKey!(d.normal));
      if (found) {
        const refused = stacks.takeOver(d, found, d.specPath);
        if (refused) problems.push(refused);
        claim(d, found);
      }
      continue;
    }
    const marked = free(byMarker.get(`${kind}\0${d.markerName}`)) ?? free(stacks.moveCandidate(d));
    if (marked) {
      claim(d, marked);
      continue;
    }
    if (d.descriptor.naturalKey) {
      const found = byKey(kind, '', d.descriptor.naturalKey(d.normal));
      if (found && (!d.descriptor.metadata || owned(found))) claim(d, found);
      else if (d.descriptor.aliases) aliased.push(d);
    }
  }
  // Aliases last, so that an object declared under its own key is never taken by another's alias.
  for (const d of aliased) {
    const found = d.descriptor.aliases!(d.normal, d.name)
      .map((key) => byKey(d.descriptor.kind, '', key))
      .find((o) => o && (!d.descriptor.metadata || owned(o)));
    if (found) claim(d, found);
  }

  // Unique keys (an IP restriction's type, hostports) held by objects this manifest may not take.
  const holders = new Map<string, LiveObject>();
  for (const o of live) {
    if (claimed.has(o) || owned(o) || !o.descriptor.uniqueKeys) continue;
    for (const k of o.descriptor.uniqueKeys(o.descriptor.fromLive(o.raw, o.collection))) holders.set(k.key, o);
  }
  const creates = desired.filter((d) => !liveOf.has(d.address));
  const reported = new Set<DesiredObject>();
  for (const d of creates) {
    const named = new Set<LiveObject>(); // one problem per holder (an edge's several hostports)
    for (const claimKey of d.descriptor.uniqueKeys?.(d.normal) ?? []) {
      const holder = holders.get(claimKey.key);
      if (holder && !named.has(holder)) {
        named.add(holder);
        const { whose, how } = holderHint(holder, scope);
        problems.push(
          problem(
            'adoption_required',
            `${claimKey.key} is held by the live ${holder.descriptor.title} ${holder.id}, ${whose}; ${how}, or change the manifest`,
            d.doc.locate([...d.specPath, ...claimKey.path]),
          ),
        );
        reported.add(d);
      }
    }
  }
  problems.push(...stacks.collisions(creates, (o) => claimed.has(o), reported));

  const deletes: LiveObject[] = [];
  const unmanaged: LiveObject[] = [];
  const deletedIds = new Set<string>();
  // Decide parents before children, so children of a deleted parent are deleted with it.
  // (A stable partition, as the sort by "is a child" it replaces: no comparison per pair.)
  const ordered = [...live.filter((o) => !o.descriptor.child), ...live.filter((o) => o.descriptor.child)];
  for (const o of ordered) {
    if (claimed.has(o)) continue;
    const duplicateParent = o.parentId !== undefined ? duplicateOf.get(o.parentId) : undefined;
    if (duplicateParent) {
      const child: DuplicateObject = { live: o, keep: duplicateParent.keep, cause: duplicateParent.cause };
      duplicates.push(child);
      duplicateOf.set(o.id, child);
      continue;
    }
    const parentDeleted = o.parentId !== undefined && deletedIds.has(o.parentId);
    // A child this stack marked under a parent that another stack now owns (the parent moved
    // with --from-stack, its undeclared children stayed) lives inside that stack's object:
    // never deleted from here, only listed.
    const parentMarker = o.parentId !== undefined ? byId.get(o.parentId)?.marker : undefined;
    const parentElsewhere = parentMarker !== undefined && parentMarker.stack !== stack;
    if (o.descriptor.metadata && ((owned(o) && !parentElsewhere) || parentDeleted)) {
      deletes.push(o);
      deletedIds.add(o.id);
    } else unmanaged.push(o);
  }
  problems.push(...lastChildren(desired, live, liveOf, deletes));
  const pairs: Matching['pairs'] = [];
  claimed.forEach((d, o) => pairs.push({ desired: d, live: o }));
  problems.push(...nameSwapProblems({ pairs, creates }));
  return { pairs, creates, deletes, unmanaged, duplicates, problems, ...(registry ? { registry } : {}), ...(fromRegistry ? { fromRegistry } : {}) };
}

/**
 * `keepsChildren`: a desired object that uses a parent which must keep a child (a dashboard
 * restriction's policy, a rule) while the plan deletes every live child of that parent and the
 * manifests declare none. The service would refuse the last delete half-way through apply.
 */
function lastChildren(desired: DesiredObject[], live: LiveObject[], liveOf: Map<string, LiveObject>, deletes: LiveObject[]): Problem[] {
  const problems: Problem[] = [];
  const deleted = new Set(deletes);
  // Built at the first object that keeps children (most manifests have none).
  let declaredChildren: Set<string> | undefined;
  for (const d of desired) {
    if (!d.descriptor.keepsChildren) continue;
    for (const keep of d.descriptor.keepsChildren(d.normal)) {
      const target = liveOf.get(keep.token) ?? live.find((o) => o.id === keep.token);
      if (!target) continue;
      const children = live.filter((o) => o.parentId === target.id && o.descriptor.kind === keep.childKind);
      const address = liveOf.get(keep.token) ? keep.token : undefined;
      if (children.length === 0 || !children.every((c) => deleted.has(c))) continue;
      declaredChildren ??= new Set(desired.filter((c) => c.parent).map((c) => `${c.parent}\0${c.descriptor.kind}`));
      if (address !== undefined && declaredChildren.has(`${address}\0${keep.childKind}`)) continue;
      problems.push(
        problem(
          'last_child_in_use',
          `this would delete every rule of ${address ?? keep.token}, which ${d.address} uses: ${keep.why}; keep a rule in the policy, or take the policy out of ${d.address} first`,
          d.doc.locate([...d.specPath, ...keep.path]),
        ),
      );
    }
  }
  return problems;
}

export type { Matching } from './matching.js';
