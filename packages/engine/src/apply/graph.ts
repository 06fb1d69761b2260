/**
 * From the changes to run to the parts the walker runs, with their dependencies. Pure: no I/O.
 *
 * Each change is one part (`<address>#create`, `#update`, `#delete`), a replace two
 * (`#delete` and `#create`), a stale change one part that fails without writing. Dependencies:
 *
 * 1. Creates and updates wait for the part that gives each object they reference (their parent
 *    included) its final state: its create, its update, or its replace's create. Parents first.
 * 2. Deletes wait for the deletes of their live children and of live objects that reference
 *    them, and for the updates that stop referencing them (or their parent, when the plan says
 *    so: a dashboard restriction's policy keeps a rule, so the rule's delete waits for the
 *    restriction's update or delete). Children first.
 * 3. A create or update that claims a unique key (a hostport) waits for the delete of the live
 *    object that holds it now.
 * 4. Replace. When live objects that stay declared still reference the object, and its kind
 *    has no key the service keeps unique, it is created first, those referrers are re-pointed
 *    to the new id (their update carries the reference fields, or a `#repoint` part is added),
 *    and only then is the old object deleted: no reference ever dangles. Otherwise it is deleted
 *    first and created after (a unique key, such as a rule's CIDR, forbids two at once).
 */
import type { KindDescriptor, Spec } from '../kinds/types.js';
import type { LiveObject } from '../live.js';
import type { Change } from '../plan-model.js';
import { liveNormal } from '../identity/normal-form.js';
import { collect } from '../identity/patterns.js';
import type { Subject } from './model.js';
import type { Matching } from '../plan/matching.js';
import { liveReferences } from '../plan/reference-tokens.js';
import { append } from '../append.js';

type PartKind = 'create' | 'update' | 'delete' | 'repoint' | 'stale';

export interface Part {
  key: string;
  kind: PartKind;
  subject: Subject;
  dependsOn: string[];
  /** Top-level fields an update must send besides its changes (references to a replaced object). */
  extraFields: string[];
  /** For a replace's create made before the old object is deleted: the old id (not a match). */
  excludeId?: string;
}

/** Top-level fields of `normal` whose references include `token`. */
function fieldsReferencing(descriptor: KindDescriptor, normal: Spec, token: string): string[] {
  const fields = new Set<string>();
  for (const ref of descriptor.refs) {
    for (const found of collect(normal, ref.pattern)) if (String(found.value) === token) fields.add(String(found.path[0]));
  }
  return [...fields];
}

/** Index of the live objects: who references an id, who is a child of an id. */
function liveIndex(all: LiveObject[]) {
  const referrers = new Map<string, LiveObject[]>();
  const children = new Map<string, LiveObject[]>();
  for (const o of all) {
    for (const id of liveReferences(o)) if (id !== o.id) append(referrers, id, o);
    if (o.parentId !== undefined) append(children, o.parentId, o);
  }
  return { referrersOf: (id: string) => referrers.get(id) ?? [], childrenOf: (id: string) => children.get(id) ?? [] };
}

const uniqueKeysOf = (descriptor: KindDescriptor, normal: Spec) => (descriptor.uniqueKeys?.(normal) ?? []).map((k) => k.key);

export function buildParts(subjects: Subject[], matching: Matching): Part[] {
  const parts = new Map<string, Part>();
  const add = (subject: Subject, kind: PartKind, extra: Partial<Part> = {}): Part => {
    const part: Part = { key: `${subject.change.address}#${kind}`, kind, subject, dependsOn: [], extraFields: [], ...extra };
    parts.set(part.key, part);
    return part;
  };
  const final = new Map<string, string>(); // address -> part giving its final state
  const deleteOf = new Map<string, string>(); // live id -> part deleting it
  const deleteByAddress = new Map<string, string>(); // address of a deleted object -> its delete part
  const updateOf = new Map<string, Part>(); // address -> update part
  const createFirst = new Set<string>(); // addresses of replaces done create-first

  const allLive = [...matching.pairs.map((p) => p.live), ...matching.deletes];
  const { referrersOf, childrenOf } = liveIndex(allLive);
  const pairedByLiveId = new Map(matching.pairs.map((p) => [p.live.id, p.desired]));

  for (const subject of subjects) {
    const { change, live, desired } = subject;
    if (subject.stale) {
      const part = add(subject, 'stale');
      final.set(change.address, part.key);
      if (change.id) deleteOf.set(change.id, part.key);
      continue;
    }
    if (change.action === 'create') final.set(change.address, add(subject, 'create').key);
    if (change.action === 'update') {
      const part = add(subject, 'update');
      updateOf.set(change.address, part);
      // A marker refresh writes no field: what references the object need not wait for it.
      if (change.cause !== 'marker') final.set(change.address, part.key);
    }
    if (change.action === 'delete') {
      const part = add(subject, 'delete');
      deleteOf.set(live!.id, part.key);
      deleteByAddress.set(change.address, part.key);
    }
    if (change.action === 'replace') {
      const staying = referrersOf(live!.id).filter((o) => pairedByLiveId.get(o.id)?.references.includes(change.address));
      const unique = desired!.descriptor.uniqueKeys !== undefined || desired!.descriptor.naturalKey !== undefined;
      if (staying.length > 0 && !unique) createFirst.add(change.address);
      deleteOf.set(live!.id, add(subject, 'delete').key);
      final.set(change.address, add(subject, 'create', createFirst.has(change.address) ? { excludeId: live!.id } : {}).key);
    }
  }

  // Create-first replaces: re-point the referrers that stay.
  const repoints = new Map<string, Part[]>(); // replaced address -> parts re-pointing to it
  for (const address of createFirst) {
    const old = parts.get(`${address}#delete`)!.subject.live!;
    for (const o of referrersOf(old.id)) {
      const d = pairedByLiveId.get(o.id);
      if (!d || !d.references.includes(address)) continue;
      const fields = fieldsReferencing(d.descriptor, d.normal, address);
      let part = updateOf.get(d.address) ?? parts.get(`${d.address}#stale`) ?? parts.get(`${d.address}#create`);
      if (!part) {
        const change: Change = {
          address: d.address,
          action: 'update',
          kind: d.descriptor.kind,
          name: d.name,
          id: o.id,
          before: null,
          after: null,
          fields: [],
          patch: [],
          dependsOn: [],
          reason: `references ${address}, which is replaced`,
        };
        part = add({ change, desired: d, live: o }, 'repoint');
      }
      if (part.kind === 'update' || part.kind === 'repoint') part.extraFields.push(...fields.filter((f) => !part!.extraFields.includes(f)));
      append(repoints, address, part);
    }
  }

  const deletedUnique = new Map<string, string>(); // unique key held by a live object being deleted -> its delete part
  for (const part of parts.values()) {
    const o = part.subject.live;
    if (part.kind === 'delete' && o) for (const key of uniqueKeysOf(o.descriptor, liveNormal(o))) deletedUnique.set(key, part.key);
  }

  for (const part of parts.values()) {
    const { change, desired, live } = part.subject;
    const deps = new Set<string>();
    if ((part.kind === 'create' || part.kind === 'update' || part.kind === 'repoint') && desired) {
      for (const ref of desired.references) {
        const dep = final.get(ref);
        if (dep && dep !== part.key) deps.add(dep);
      }
      // What else the plan orders a create or an update after (a bot user taking the name
      // another gives up). Not a replace: its dependsOn holds what its delete waits for.
      if (change.action === 'create' || change.action === 'update')
        for (const address of change.dependsOn) {
          const dep = final.get(address);
          if (dep && dep !== part.key && !dep.startsWith(`${change.address}#`)) deps.add(dep);
        }
      for (const key of uniqueKeysOf(desired.descriptor, desired.normal)) {
        const dep = deletedUnique.get(key);
        if (dep && dep !== `${change.address}#delete`) deps.add(dep);
      }
      if (part.kind === 'create' && change.action === 'replace' && !createFirst.has(change.address)) deps.add(`${change.address}#delete`);
    }
    // A bookkeeping write (the bot user registry) waits for the changes the plan says it follows.
    if (part.subject.bookkeeping)
      for (const address of change.dependsOn) {
        const dep = final.get(address);
        if (dep) deps.add(dep);
      }
    if (part.kind === 'delete' && live) {
      for (const o of childrenOf(live.id)) {
        const del = deleteOf.get(o.id);
        if (del) deps.add(del);
      }
      for (const o of referrersOf(live.id)) {
        const del = deleteOf.get(o.id);
        if (del) deps.add(del);
        const d = pairedByLiveId.get(o.id);
        const update = d && updateOf.get(d.address);
        if (update) deps.add(update.key);
      }
      // The updates and deletes the plan orders a delete after beyond its own referrers': a
      // dashboard restriction that stops using a policy, or is deleted, before the policy's
      // rules go (`keepsChildren`; the service refuses to delete the last rule while it is used).
      if (change.action === 'delete')
        for (const address of change.dependsOn) {
          const dep = updateOf.get(address)?.key ?? deleteByAddress.get(address);
          if (dep) deps.add(dep);
        }
      if (createFirst.has(change.address)) {
        deps.add(`${change.address}#create`);
        for (const p of repoints.get(change.address) ?? []) deps.add(p.key);
      }
    }
    deps.delete(part.key);
    part.dependsOn = [...deps];
  }
  return [...parts.values()];
}
