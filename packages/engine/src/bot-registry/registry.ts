/**
 * The bot user registry: which live bot user each bot user manifest of a stack denotes, kept
 * on the API (gatehouse has no state file), the way the per-stack lock keeps its record.
 *
 * Why: a bot user has no `metadata`, so it cannot carry an ownership marker. Its API name is
 * unique, but it is what a rename changes: without a record, renaming `spec.name` from A to B
 * finds no bot user named B and plans a second one, and nothing tells which stack applied a
 * bot user (so a plain export cannot choose the stack's own).
 *
 * The primitive: an IP policy without rules, whose `metadata` is the record
 *
 *     gatehouse-bots:v1 {"stack":"<stack>","bots":{"<manifest name>":{"id":"bot_...","hash":"<16 hex>"}}}
 *
 * An IP policy applies to no traffic until an IP restriction or an endpoint configuration uses
 * it (api-spec part 1), and this one has no rules and is referenced by nothing, so it allows
 * and denies nothing. IP policies are the one kind with free `metadata` whose existence has no
 * effect (a restriction, an edge or a destination would); the lock's record is one too. `hash`
 * is the bot user's spec hash as last applied (as an ownership marker's): drift tells a rename
 * made outside gatehouse from one made in the manifests.
 *
 * Contract:
 * - A registry is one or more records of one stack; entries are the union of their `bots`
 *   (the first record in id order wins a name held twice). A record passing the 4,096-byte
 *   metadata limit is split: entries sorted by manifest name fill records greedily.
 * - Match (`registeredPairs`): a declared bot user without `adopt:` is the live bot user its
 *   registry entry names when that exists, is a bot user, is adopted by no manifest and is not
 *   taken already; before the API name and the manifest name (alias). So renaming `spec.name`
 *   is a PATCH of the same bot user, any number of times.
 * - Plan (`registryChange`): the registry write is one change (`BotUserRegistry/<stack>`,
 *   cause `registry`) that depends on every bot user change of the plan; planned whenever the
 *   records apply would write differ from the live ones (a create of a bot user always does).
 *   A stack that declares bot users and has no registry gets one. A stack that stops declaring
 *   them keeps one empty record (never a delete: deletes are for `--prune`).
 * - Apply (`registryWriter`): runs after the bot user changes, with the ids their creates
 *   produced: PATCHes the records whose content changes, POSTs missing ones, DELETEs surplus,
 *   all at once. A record holding wanted content stays, whatever its place in id order.
 * - Moves (`movedRegistryChange`): with `--from-stack OLD`, OLD's registry stops recording the
 *   bot users this stack's manifests declare (they moved, as every other declared object of
 *   OLD does): a second registry change, `BotUserRegistry/OLD`, after this stack's. Without it
 *   OLD's export and plans would keep the bot users as OLD's after a stack rename.
 * - Registry records are not user objects: observe sets them aside (`isRegistryObject`), so
 *   they are never planned as IP policies, adopted, exported, pruned or reported as drift.
 *   Records of other stacks are read only to say which stacks also record a bot user.
 * - A record that cannot be read (metadata edited into invalid JSON, entries of the wrong
 *   shape) never stops a run: it contributes no entry; when it names this stack it is
 *   rewritten by the next registry write (which the plan shows), otherwise it is left alone.
 * - The registry is not proof of ownership for deletes: bot users are never pruned (a bot
 *   user may be recorded by two stacks, and an old registry may record a bot user that a
 *   person has since taken over by hand).
 */
import { createHash } from 'node:crypto';
import { METADATA_MAX_BYTES } from '@gatehouse/schemas/runtime';
import type { DesiredObject } from '../desired.js';
import type { LiveObject } from '../live.js';
import type { Change } from '../plan-model.js';
import type { ApiObject } from '../ports.js';
import { ipPolicyLookUp, type LookUp } from '../apply/calls.js';
import type { ApiCall } from '../kinds/types.js';
import { fieldChanges } from '../plan/diff.js';
import { canonicalJson } from '../identity/patterns.js';
import { desiredHash } from '../plan/plan.js';
import type { PruneScope } from '../plan/prune-scope.js';
import { listSome } from '../render/list-some.js';

export const REGISTRY_PREFIX = 'gatehouse-bots:v1 ';
/** Any version of the record: a newer gatehouse's records are set aside too, never adopted. */
const ANY_VERSION_PREFIX = 'gatehouse-bots:';
/** Kind and address prefix of the registry's change in a plan. */
export const REGISTRY_KIND = 'BotUserRegistry';
const BOT_KIND = 'BotUser';
/** Shown in a plan in place of the id of a bot user that apply creates. */
export const ID_AFTER_CREATE = '(id known after its create)';

export interface RegistryEntry {
  id: string;
  /** The bot user's spec hash as last applied (`desiredHash`). */
  hash: string;
  /**
   * The manifest path it was applied from, as an ownership marker records it (absent in older
   * records and for standard input): a plan that read other files keeps the entry (prune scope).
   */
  path?: string;
}

export interface RegistryRecord {
  /** Id of the IP policy holding the record. */
  id: string;
  raw: ApiObject;
  /** Its entries; absent when the record cannot be read. */
  bots?: Record<string, RegistryEntry>;
  /** Why the record cannot be read, when it cannot. */
  unreadable?: string;
}

export interface BotRegistry {
  stack: string;
  /** This stack's records (unreadable ones that name it included), in id order. */
  records: RegistryRecord[];
  /** Manifest name -> entry. */
  entries: Map<string, RegistryEntry>;
  /** Bot user id -> the other stacks whose registry records it. */
  otherStacks: Map<string, string[]>;
}

/** Whether a live object is a registry record (an IP policy whose metadata is one). */
export function isRegistryObject(kind: string, raw: ApiObject): boolean {
  return kind === 'IPPolicy' && typeof raw.metadata === 'string' && raw.metadata.startsWith(ANY_VERSION_PREFIX);
}

const isEntry = (value: unknown): value is RegistryEntry =>
  value !== null &&
  typeof value === 'object' &&
  typeof (value as RegistryEntry).id === 'string' &&
  typeof (value as RegistryEntry).hash === 'string' &&
  ['string', 'undefined'].includes(typeof (value as RegistryEntry).path);

/** A record's stack and entries, or why it cannot be read. */
function parseRecord(metadata: string): { stack: string; bots: Record<string, RegistryEntry> } | { unreadable: string; stack?: string } {
  if (!metadata.startsWith(REGISTRY_PREFIX)) return { unreadable: `written in a format this gatehouse does not know (${metadata.split(' ', 1)[0]!.slice(0, 40)})` };
  let value: unknown;
  try {
    value = JSON.parse(metadata.slice(REGISTRY_PREFIX.length));
  } catch {
    // Whose it is, as far as the text still says.
    const stack = /"stack"\s*:\s*("(?:[^"\\]|\\.)*")/.exec(metadata)?.[1];
    let named: string | undefined;
    try {
      named = stack !== undefined ? (JSON.parse(stack) as string) : undefined;
    } catch {
      named = undefined;
    }
    return { unreadable: 'its metadata is not valid JSON', ...(named !== undefined ? { stack: named } : {}) };
  }
  const record = value as { stack?: unknown; bots?: unknown };
  if (typeof record?.stack !== 'string') return { unreadable: 'it names no stack' };
  const bots = record.bots;
  if (bots === null || typeof bots !== 'object' || Array.isArray(bots) || !Object.values(bots).every(isEntry)) {
    return { unreadable: 'its bots are not a map of manifest names to {id, hash}', stack: record.stack };
  }
  return { stack: record.stack, bots: bots as Record<string, RegistryEntry> };
}

/** The registry of `stack` among the registry records observe set aside (any stack's). */
export function readRegistry(stack: string, objects: readonly ApiObject[]): BotRegistry {
  const records: RegistryRecord[] = [];
  const otherStacks = new Map<string, string[]>();
  for (const raw of objects) {
    if (typeof raw.metadata !== 'string') continue;
    const parsed = parseRecord(raw.metadata);
    if (parsed.stack !== stack) {
      if ('bots' in parsed) {
        for (const entry of Object.values(parsed.bots)) {
          const stacks = otherStacks.get(entry.id) ?? [];
          if (!stacks.includes(parsed.stack)) otherStacks.set(entry.id, [...stacks, parsed.stack]);
        }
      }
      continue;
    }
    records.push({ id: String(raw.id), raw, ...('bots' in parsed ? { bots: parsed.bots } : { unreadable: parsed.unreadable }) });
  }
  records.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const entries = new Map<string, RegistryEntry>();
  for (const record of records) {
    for (const [name, entry] of Object.entries(record.bots ?? {})) if (!entries.has(name)) entries.set(name, entry);
  }
  return { stack, records, entries, otherStacks };
}

/** An empty registry of `stack` (no records): what a stack that never recorded bot users has. */
export const emptyRegistry = (stack: string): BotRegistry => ({ stack, records: [], entries: new Map(), otherStacks: new Map() });

/**
 * Match's hook: the pairs the registry makes, before any other identity but `adopt:`. A live
 * bot user is given to at most one manifest (two names recorded for one bot user: the first
 * declared wins, the other is matched by its API name or created).
 */
export function registeredPairs(desired: readonly DesiredObject[], registry: BotRegistry | undefined, byId: ReadonlyMap<string, LiveObject>): [DesiredObject, LiveObject][] {
  if (!registry || registry.entries.size === 0) return [];
  const adopted = new Set(desired.flatMap((d) => (d.adopt !== undefined ? [d.adopt] : [])));
  const taken = new Set<string>();
  const pairs: [DesiredObject, LiveObject][] = [];
  for (let i = 0; i < desired.length; i++) {
    const d = desired[i]!;
    if (d.descriptor.kind !== BOT_KIND || d.adopt !== undefined) continue;
    const entry = registry.entries.get(d.name);
    const live = entry && byId.get(entry.id);
    if (!live || live.descriptor.kind !== BOT_KIND || adopted.has(live.id) || taken.has(live.id)) continue;
    taken.add(live.id);
    pairs.push([d, live]);
  }
  return pairs;
}

/** The manifest name the registry of `stack` records for a live bot user, if any. */
export function registeredName(registry: BotRegistry | undefined, botId: string): string | undefined {
  for (const [name, entry] of registry?.entries ?? []) if (entry.id === botId) return name;
  return undefined;
}

/** Drift's hook: the hash the registry recorded when the bot user `o` was applied as `d`. */
export function recordedHash(registry: BotRegistry | undefined, d: DesiredObject, o: LiveObject): string | undefined {
  const entry = registry?.entries.get(d.name);
  return entry && entry.id === o.id && entry.hash !== '' ? entry.hash : undefined;
}

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
function wanted(matching: RegistryMatching): Wanted[] {
  const registry = matching.registry;
  const out: Wanted[] = [];
  const path = (d: DesiredObject) => d.manifestPath ?? registry?.entries.get(d.name)?.path;
  const entry = (d: DesiredObject, id: string | undefined): Wanted => {
    const at = path(d);
    return { name: d.name, address: d.address, id, hash: desiredHash(d), ...(at !== undefined ? { path: at } : {}) };
  };
  for (let i = 0; i < matching.pairs.length; i++) { const { desired: d, live } = matching.pairs[i]!; if (d.descriptor.kind === BOT_KIND) out.push(entry(d, live.id)); }
  for (let i = 0; i < matching.creates.length; i++) { const d = matching.creates[i]!; if (d.descriptor.kind === BOT_KIND) out.push(entry(d, undefined)); }
  const declared = new Set(out.map((w) => w.name));
  const scope = matching.pruneScope;
  for (const [name, kept] of registry?.entries ?? []) {
    if (declared.has(name) || !scope || scope.covers(kept.path, BOT_KIND)) continue;
    out.push({ name, address: `${BOT_KIND}/${name}`, id: kept.id, hash: kept.hash, ...(kept.path !== undefined ? { path: kept.path } : {}) });
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The registry entry recording `w` as the bot user `id`. */
const entryOf = (w: Wanted, id: string): RegistryEntry => ({ id, hash: w.hash, ...(w.path !== undefined ? { path: w.path } : {}) });

/** What the registry reads of a matching (match.ts, with its prune scope). */
export type RegistryMatching = {
  pairs: { desired: DesiredObject; live: LiveObject }[];
  creates: DesiredObject[];
  registry?: BotRegistry;
  fromRegistry?: BotRegistry;
  pruneScope?: Pick<PruneScope, 'covers'>;
};

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');

/**
 * The records' metadata for these entries: sorted by name, as few records as the 4,096-byte
 * limit allows. At least one record (an empty registry is one record with no entries).
 */
export function formatRecords(stack: string, entries: readonly { name: string; entry: RegistryEntry }[], limit = METADATA_MAX_BYTES): string[] {
  const head = `${REGISTRY_PREFIX}{"stack":${JSON.stringify(stack)},"bots":{`;
  const tail = '}}';
  const records: string[] = [];
  let parts: string[] = [];
  let size = bytes(head) + bytes(tail);
  for (const { name, entry } of entries) {
    // (JSON.stringify leaves out a path that is undefined.)
    const part = `${JSON.stringify(name)}:${JSON.stringify({ id: entry.id, hash: entry.hash, path: entry.path })}`;
    const extra = bytes(part) + (parts.length > 0 ? 1 : 0);
    if (parts.length > 0 && size + extra > limit) {
      records.push(head + parts.join(',') + tail);
      parts = [];
      size = bytes(head) + bytes(tail);
    }
    size += bytes(part) + (parts.length > 0 ? 1 : 0);
    parts.push(part);
  }
  records.push(head + parts.join(',') + tail);
  return records;
}

/** The description of a registry record: what it is, within 255 bytes. */
export function recordDescription(stack: string): string {
  const text = `gatehouse: bot users of stack "${stack}" (no rules: restricts no traffic)`;
  let cut = [...text];
  while (bytes(cut.join('')) > 255) cut = cut.slice(0, -1);
  return cut.join('');
}

/**
 * The writes that turn `records` into `want` (metadata strings). A record that already holds one
 * of the wanted strings stays as it is, wherever it is in id order (apply writes the records at
 * once, so their ids need not follow the entries' order); the others are rewritten in order,
 * and the surplus created or deleted. The writes are independent of each other.
 */
function writes(stack: string, records: readonly RegistryRecord[], want: readonly string[]): ApiCall[] {
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

/**
 * Sends the registry's writes all at once (they touch different records): a registry of
 * 1,000 bot users is 5 records, and one after the other they would be the last 5 round trips
 * of an apply. Every write is awaited; the first failure is then thrown.
 */
async function sendAll(env: RegistryWriteEnv, calls: readonly ApiCall[]): Promise<{ created: string | undefined; requests: number }> {
  const answers = await Promise.allSettled(calls.map((call) => (call.method === 'POST' ? createRecord(env, call) : env.send([call]))));
  let requests = 0;
  let created: string | undefined;
  for (const [i, answer] of answers.entries()) {
    if (answer.status === 'rejected') throw answer.reason;
    requests += answer.value.requests;
    if (calls[i]!.method === 'POST' && created === undefined && typeof answer.value.first?.id === 'string') created = answer.value.first.id;
  }
  return { created, requests };
}

const shown = (entries: Iterable<[string, string]>) => ({ bots: Object.fromEntries(entries) });

/** The registry's change in a plan, and its fingerprint, or undefined when no write is needed. */
export function registryChange(
  matching: RegistryMatching,
  stack: string,
  changes: readonly Change[],
): { change: Change; fingerprint?: { id: string; value: string } } | undefined {
  const registry = matching.registry ?? emptyRegistry(stack);
  const want = wanted(matching);
  if (want.length === 0 && registry.records.length === 0) return undefined;
  const pending = want.some((w) => w.id === undefined);
  const planned = formatRecords(stack, want.map((w) => ({ name: w.name, entry: entryOf(w, w.id ?? '') })));
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
  const shared = want.flatMap((w) => (w.id !== undefined && registry.otherStacks.has(w.id) ? [`${JSON.stringify(w.name)} is also recorded by stack ${registry.otherStacks.get(w.id)!.map((s) => JSON.stringify(s)).join(', ')}`] : []));
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
  const value = createHash('sha256').update(canonicalJson(registry.records.map((r) => r.raw))).digest('hex');
  return { change, fingerprint: { id: first.id, value } };
}

/** What the registry write needs of apply's environment. */
export interface RegistryWriteEnv {
  /** Desired address -> live id (creates add theirs as they run). */
  ids: Map<string, string>;
  /**
   * Sends the calls through apply's `runCalls` (its retries; `lookUp` finds what a create whose
   * answer was lost may have made, before it is sent again).
   */
  send(calls: ApiCall[], lookUp?: LookUp): Promise<{ first: ApiObject | undefined; requests: number }>;
}

/**
 * Apply's hook: the write of the registry, run after the bot user changes. Entries take the
 * ids the creates produced; a declared bot user without an id (its create did not run) keeps
 * the entry the registry had, if any.
 */
export function registryWriter(
  matching: RegistryMatching,
  stack: string,
): (env: RegistryWriteEnv) => Promise<{ id: string | null; requests: number }> {
  const registry = matching.registry ?? emptyRegistry(stack);
  const want = wanted(matching);
  return async (env) => {
    const entries = want.flatMap((w) => {
      const id = w.id ?? env.ids.get(w.address);
      if (id !== undefined) return [{ name: w.name, entry: entryOf(w, id) }];
      const kept = registry.entries.get(w.name);
      return kept ? [{ name: w.name, entry: kept }] : [];
    });
    const { created, requests } = await sendAll(env, writes(stack, registry.records, formatRecords(stack, entries)));
    return { id: registry.records[0]?.id ?? created ?? null, requests };
  };
}

/**
 * POSTs a record through apply's `runCalls`: when an answer is lost (the create may have been
 * made), a record with exactly this metadata is looked up before it is sent again, so a retry
 * never leaves two.
 */
const createRecord = (env: RegistryWriteEnv, call: ApiCall) => env.send([call], recordWithMetadata(call.body?.metadata));

/** Finds the IP policy whose metadata is `metadata` (a registry record, unique to its write). */
const recordWithMetadata = (metadata: unknown) => ipPolicyLookUp((raw) => raw.metadata === metadata);

/** The bot user ids the registry of a stack records (export's choice without `--all`). */
export const registeredIds = (registry: BotRegistry): Set<string> => new Set([...registry.entries.values()].map((e) => e.id));


/** The entries of OLD's registry (`matching.fromRegistry`) that stay: those of bot users this stack does not declare. */
function keptByOld(matching: RegistryMatching): { name: string; entry: RegistryEntry }[] {
  const movedIds = new Set(matching.pairs.filter((p) => p.desired.descriptor.kind === BOT_KIND).map((p) => p.live.id));
  return [...(matching.fromRegistry?.entries ?? [])].filter(([, entry]) => !movedIds.has(entry.id)).map(([name, entry]) => ({ name, entry }));
}

/**
 * The change of OLD's registry on a move (`--from-stack OLD`): it drops the entries of the bot
 * users this stack declares. Undefined when OLD records none of them.
 */
export function movedRegistryChange(
  matching: RegistryMatching,
  stack: string,
  changes: readonly Change[],
): { change: Change; fingerprint: { id: string; value: string } } | undefined {
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
  const value = createHash('sha256').update(canonicalJson(old.records.map((r) => r.raw))).digest('hex');
  return { change, fingerprint: { id: first.id, value } };
}

/** Apply's hook for `movedRegistryChange`: rewrites OLD's records without the moved entries. */
export function movedRegistryWriter(matching: RegistryMatching): (env: RegistryWriteEnv) => Promise<{ id: string | null; requests: number }> {
  const old = matching.fromRegistry;
  return async (env) => {
    if (!old) return { id: null, requests: 0 };
    const { requests } = await sendAll(env, writes(old.stack, old.records, formatRecords(old.stack, keptByOld(matching))));
    return { id: old.records[0]?.id ?? null, requests };
  };
}
