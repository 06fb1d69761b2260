/**
 * The bot user registry in a plan (records.ts): the entries a plan wants recorded, and the one
 * change (`BotUserRegistry/<stack>`, cause `registry`) that writes them, plus, with
 * `--from-stack OLD`, the change of OLD's registry that stops recording the bot users that moved.
 */
import { desiredHash, fingerprint } from '../identity/hash.js';
import type { DesiredObject } from '../desired.js';
import type { LiveObject } from '../live.js';
import type { Change } from '../plan-model.js';
import type { ApiCall } from '../kinds/types.js';
import { fieldChanges } from '../plan/diff.js';
import type { PruneScope } from '../plan/matching.js';
import { listSome } from '../render/list-some.js';
import {
  BOT_KIND,
  emptyRegistry,
  formatRecords,
  ID_AFTER_CREATE,
  recordDescription,
  REGISTRY_KIND,
  type BotRegistry,
  type RegistryEntry,
  type RegistryRecord,
} from './records.js';

/** What the registry of a plan or an apply must say: declared bot users with their live ids (or none yet). */
interface Wanted {
  name: string;
  address: string;
  /** The live id; undefined until the bot user is created. */
  id: string | undefined;
  hash: string;
  path?: string;
}

/**
 * The entries the registry must hold: the declared bot users, and the recorded ones that the
 * manifests read do not declare but that lie outside the prune scope (`plan/prune-scope.ts`:
 * planning one file must not forget the bot users another file declares). Without a scope
 * (every manifest read) undeclared entries are dropped.
 */
export function wanted(matching: RegistryMatching): Wanted[] {
  const registry = matching.registry;
  const out: Wanted[] = [];
  const path = (d: DesiredObject) => d.manifestPath ?? registry?.entries.get(d.name)?.path;
  const entry = (d: DesiredObject, id: string | undefined): Wanted => {
    const at = path(d);
    return { name: d.name, address: d.address, id, hash: desiredHash(d), ...(at !== undefined ? { path: at } : {}) };
  };
  for (const { desired: d, live } of matching.pairs) {
    if (d.descriptor.kind === BOT_KIND) out.push(entry(d, live.id));
  }
  for (const d of matching.creates) {
    if (d.descriptor.kind === BOT_KIND) out.push(entry(d, undefined));
  }
  const declared = new Set(out.map((w) => w.name));
  const scope = matching.pruneScope;
  for (const [name, kept] of registry?.entries ?? []) {
    if (declared.has(name) || !scope || scope.covers(kept.path, BOT_KIND)) continue;
    out.push({ name, address: `${BOT_KIND}/${name}`, id: kept.id, hash: kept.hash, ...(kept.path !== undefined ? { path: kept.path } : {}) });
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The registry entry recording `w` as the bot user `id`. */
export const entryOf = (w: Wanted, id: string): RegistryEntry => ({ id, hash: w.hash, ...(w.path !== undefined ? { path: w.path } : {}) });

/** What the registry reads of a matching (match.ts, with its prune scope). */
export type RegistryMatching = {
  pairs: { desired: DesiredObject; live: LiveObject }[];
  creates: DesiredObject[];
  registry?: BotRegistry;
  fromRegistry?: BotRegistry;
  pruneScope?: Pick<PruneScope, 'covers'>;
};

/**
 * The writes that turn `records` into `want` (metadata strings). A record that already holds one
 * of the wanted strings stays as it is, wherever it is in id order (apply writes the records at
 * once, so their ids need not follow the entries' order); the others are rewritten in order,
 * and the surplus created or deleted. The writes are independent of each other.
 */
export function writes(stack: string, records: readonly RegistryRecord[], want: readonly string[]): ApiCall[] {
  const missing = [...want];
  const rewritten: RegistryRecord[] = [];
  for (const record of records) {
    const same = missing.indexOf(record.raw.metadata as string);
    if (same >= 0) missing.splice(same, 1);
    else rewritten.push(record);
  }
  const calls: ApiCall[] = [];
  for (let i = 0; i < Math.max(rewritten.length, missing.length); i++) {
    const record = rewritten[i];
    const metadata = missing[i];
    if (record && metadata === undefined) calls.push({ method: 'DELETE', path: `/ip_policies/${record.id}` });
    else if (!record) calls.push({ method: 'POST', path: '/ip_policies', body: { description: recordDescription(stack), metadata: metadata! } });
    else calls.push({ method: 'PATCH', path: `/ip_policies/${record.id}`, body: { metadata: metadata! } });
  }
  return calls;
}

const shown = (entries: Iterable<[string, string]>) => ({ bots: Object.fromEntries(entries) });

/** A registry's change in a plan, and the fingerprint of the records it rewrites. */
type RegistryChange = { change: Change; fingerprint?: { id: string; value: string } };

/**
 * The registry changes of a plan whose other changes are `changes`: this stack's, then, with
 * `--from-stack OLD`, OLD's, which stops recording the bot users that moved (after this stack's).
 */
export function registryChanges(matching: RegistryMatching, stack: string, changes: readonly Change[]): RegistryChange[] {
  const own = registryChange(matching, stack, changes);
  const moved = movedRegistryChange(matching, stack, own ? [...changes, own.change] : changes);
  return [own, moved].filter((c) => c !== undefined);
}

/** The registry's change in a plan, and its fingerprint, or undefined when no write is needed. */
function registryChange(matching: RegistryMatching, stack: string, changes: readonly Change[]): RegistryChange | undefined {
  const registry = matching.registry ?? emptyRegistry(stack);
  const want = wanted(matching);
  if (want.length === 0 && registry.records.length === 0) return undefined;
  const pending = want.some((w) => w.id === undefined);
  const planned = formatRecords(
    stack,
    want.map((w) => ({ name: w.name, entry: entryOf(w, w.id ?? '') })),
  );
  if (!pending && writes(stack, registry.records, planned).length === 0) return undefined;

  const what: string[] = [];
  const created = want.filter((w) => w.id === undefined);
  const added = want.filter((w) => w.id !== undefined && registry.entries.get(w.name)?.id !== w.id);
  const restated = want.filter((w) => w.id !== undefined && registry.entries.get(w.name)?.id === w.id && registry.entries.get(w.name)?.hash !== w.hash);
  const declared = new Set(want.map((w) => w.name));
  const dropped = [...registry.entries.keys()].filter((name) => !declared.has(name));
  // A few names and "and N more": the reason is read by a person (plan text, Markdown, apply's
  // progress line); the change's before and after name every bot user.
  const list = (names: string[]) => listSome(names.map((n) => JSON.stringify(n)));
  if (registry.records.length === 0) what.push('a new registry');
  if (created.length > 0) what.push(`records ${list(created.map((w) => w.name))} once created`);
  if (added.length > 0) what.push(`records ${list(added.map((w) => w.name))}`);
  if (restated.length > 0) what.push(`records ${list(restated.map((w) => w.name))} as applied`);
  const moved = want.filter((w) => w.id !== undefined && registry.entries.get(w.name)?.id === w.id && registry.entries.get(w.name)?.path !== w.path);
  if (moved.length > 0) what.push(`records the manifest path of ${list(moved.map((w) => w.name))}`);
  if (dropped.length > 0) what.push(`drops ${list(dropped)} (no longer declared; the bot user is left in place, never pruned)`);
  const unreadable = registry.records.filter((r) => r.unreadable);
  if (unreadable.length > 0) what.push(`rewrites ${listSome(unreadable.map((r) => `${r.id} (${r.unreadable})`))}`);
  const shared = want.flatMap((w) =>
    w.id !== undefined && registry.otherStacks.has(w.id)
      ? [
          `${JSON.stringify(w.name)} is also recorded by stack ${registry.otherStacks
            .get(w.id)!
            .map((s) => JSON.stringify(s))
            .join(', ')}`,
        ]
      : [],
  );
  if (shared.length > 0) what.push(`note: ${listSome(shared, { separator: '; ' })}`);
  const surplus = registry.records.length - planned.length;
  if (surplus > 0) what.push(`removes ${surplus} record${surplus === 1 ? '' : 's'} no longer needed`);
  if (what.length === 0) what.push(`rewrites ${registry.records.length} record${registry.records.length === 1 ? '' : 's'} in their current form`);

  const before = registry.records.length === 0 ? null : shown([...registry.entries].map(([name, entry]) => [name, entry.id]));
  const after = shown(want.map((w) => [w.name, w.id ?? ID_AFTER_CREATE]));
  const first = registry.records[0];
  const change: Change = {
    address: `${REGISTRY_KIND}/${stack}`,
    action: first ? 'update' : 'create',
    kind: REGISTRY_KIND,
    name: stack,
    id: first?.id ?? null,
    before,
    after,
    ...(before ? fieldChanges(before, after, []) : { fields: [], patch: [] }),
    dependsOn: changes.filter((c) => c.kind === BOT_KIND && !c.needsPrune && c.action !== 'delete').map((c) => c.address),
    cause: 'registry',
    reason: `records which bot users stack "${stack}" manages: ${what.join('; ')}`,
  };
  if (!first) return { change };
  return { change, fingerprint: { id: first.id, value: fingerprint(registry.records.map((r) => r.raw)) } };
}

/** The entries of OLD's registry (`matching.fromRegistry`) that stay: those of bot users this stack does not declare. */
export function keptByOld(matching: RegistryMatching): { name: string; entry: RegistryEntry }[] {
  const movedIds = new Set(matching.pairs.filter((p) => p.desired.descriptor.kind === BOT_KIND).map((p) => p.live.id));
  return [...(matching.fromRegistry?.entries ?? [])].filter(([, entry]) => !movedIds.has(entry.id)).map(([name, entry]) => ({ name, entry }));
}

/**
 * The change of OLD's registry on a move (`--from-stack OLD`): it drops the entries of the bot
 * users this stack declares. Undefined when OLD records none of them.
 */
function movedRegistryChange(matching: RegistryMatching, stack: string, changes: readonly Change[]): RegistryChange | undefined {
  const old = matching.fromRegistry;
  const first = old?.records[0];
  if (!old || !first) return undefined;
  const kept = keptByOld(matching);
  const keptNames = new Set(kept.map((k) => k.name));
  const dropped = [...old.entries.keys()].filter((name) => !keptNames.has(name));
  if (dropped.length === 0) return undefined;
  const before = shown([...old.entries].map(([name, entry]) => [name, entry.id]));
  const after = shown(kept.map((k) => [k.name, k.entry.id]));
  const list = listSome(dropped.map((n) => JSON.stringify(n)));
  const change: Change = {
    address: `${REGISTRY_KIND}/${old.stack}`,
    action: 'update',
    kind: REGISTRY_KIND,
    name: old.stack,
    id: first.id,
    before,
    after,
    ...fieldChanges(before, after, []),
    dependsOn: changes.filter((c) => c.cause === 'registry' && c.name === stack).map((c) => c.address),
    cause: 'registry',
    reason: `records which bot users stack ${JSON.stringify(old.stack)} manages: stops recording ${list} (moved to stack ${JSON.stringify(stack)}; the bot user is left in place)`,
  };
  return { change, fingerprint: { id: first.id, value: fingerprint(old.records.map((r) => r.raw)) } };
}
