/**
 * Prune scope (issue 8, point 2): which owned objects that the manifests no longer declare a
 * plan may delete. Reading a subset of the manifests must never destroy what the others
 * declare (`apply manifests/ip-policies.yaml --prune` deleted every edge and backend), and
 * gatehouse keeps no state file: so the ownership marker records the manifest path each object
 * was applied from (`manifest-paths.ts`), and the scope is decided from it and the PATHs read.
 *
 * An owned object that the manifests do not declare is in scope (its delete is planned) when:
 * 1. `--prune-all`: always: everything the stack owns that the manifests do not declare;
 * 2. its marker records a path within one of the PATHs: that file for a file PATH, anything
 *    under it for a directory PATH (environment overlay paths count as PATHs). A user who passes
 *    the whole manifest directory prunes exactly as before;
 * 3. its marker records no path (applied before paths were recorded, or from standard input):
 *    only when a manifest found under a directory PATH declares an object of its kind. A file
 *    PATH alone, or standard input alone, never prunes such an object;
 * 4. children (rules, routes) follow their parent: in scope under a parent the manifests
 *    declare (its manifest was read and lists its children), and with a parent being deleted;
 *    out with a parent left outside; by their own marker otherwise.
 * Bot users (no marker) follow their registry entry's path by the same rules: one recorded
 * from outside the scope is the stack's own still, never listed as unmanaged.
 * Everything else is left alone (`outside`), never shown as a delete: the plan says how many
 * there are and that `--prune-all` considers them. Duplicates (`duplicates.ts`) are not
 * pruning and are not scoped. The destruction rail still counts `outside` as owned.
 */
import type { DesiredObject } from '../desired.js';
import type { LiveObject } from '../live.js';
import type { ManifestPaths } from '../load/manifest-paths.js';
import { withinEntry } from '../load/manifest-paths.js';
import type { Matching, PruneScope } from './matching.js';
import type { PruneScopeSummary } from '../plan-model.js';

/** The matching with its deletes limited to the scope (the rest moved to `pruneScope.outside`). */
export function limitPrune(matching: Matching, where: ManifestPaths, desired: readonly DesiredObject[], all: boolean): Matching {
  const paths = where.entries.map((e) => (e.directory ? (e.path === '' ? './' : `${e.path}/`) : e.path));
  const inPaths = (recorded: string) => where.entries.some((e) => withinEntry(e, recorded));
  // Rule 3's kinds, built on first need (only records without a path ask): a plan with no such
  // record does not walk the desired objects for it.
  let kindsUnderDirectories: Set<string> | undefined;
  const kindUnderDirectories = (kind: string) => {
    kindsUnderDirectories ??= new Set(
      desired
        .filter((d) => !d.parent && d.manifestPath !== undefined && where.entries.some((e) => e.directory && withinEntry(e, d.manifestPath!)))
        .map((d) => d.descriptor.kind),
    );
    return kindsUnderDirectories.has(kind);
  };
  const covers = (recorded: string | undefined, kind: string) => all || (recorded !== undefined ? inPaths(recorded) : kindUnderDirectories(kind));
  const scope: PruneScope = { all, paths, stdin: where.stdin, outside: [], covers };
  // Bot users the registry records from files outside the scope stay the stack's own (the
  // registry keeps their entries): never listed as unmanaged ("not owned by stack ...").
  const recordedOutside = new Set([...(matching.registry?.entries.values() ?? [])].filter((e) => !covers(e.path, 'BotUser')).map((e) => e.id));
  if (recordedOutside.size > 0)
    matching = { ...matching, unmanaged: matching.unmanaged.filter((o) => o.descriptor.kind !== 'BotUser' || !recordedOutside.has(o.id)) };
  if (all || matching.deletes.length === 0) return { ...matching, pruneScope: scope };

  const declared = new Set(matching.pairs.map((p) => p.live.id));
  const deleting = new Set(matching.deletes.map((o) => o.id));
  const kept = new Set<string>(); // ids of deletes in scope
  const ownScope = (o: LiveObject) => covers(o.marker?.path, o.descriptor.kind);
  // match lists parents before their children, so a parent's verdict is known first.
  for (const o of matching.deletes) {
    const parent = o.parentId;
    const inScope = parent !== undefined && declared.has(parent) ? true : parent !== undefined && deleting.has(parent) ? kept.has(parent) : ownScope(o);
    if (inScope) kept.add(o.id);
    else scope.outside.push(o);
  }
  return { ...matching, deletes: matching.deletes.filter((o) => kept.has(o.id)), pruneScope: scope };
}

/** The plan's `prune_scope` (plan-model.ts): present with `--prune-all` or when something was left outside. */
export function pruneScopeNote(matching: Matching): { prune_scope?: PruneScopeSummary } {
  const scope = matching.pruneScope;
  if (!scope || (!scope.all && scope.outside.length === 0)) return {};
  const kinds: Record<string, number> = {};
  for (const o of scope.outside) kinds[o.descriptor.kind] = (kinds[o.descriptor.kind] ?? 0) + 1;
  return {
    prune_scope: {
      mode: scope.all ? 'all' : 'paths',
      paths: scope.paths,
      outside: scope.outside.length,
      outside_kinds: kinds,
      outside_without_path: scope.outside.filter((o) => o.marker?.path === undefined).length,
      ...(scope.stdin ? { stdin: true } : {}),
    },
  };
}
