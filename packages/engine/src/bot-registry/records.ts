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
import { METADATA_MAX_BYTES } from '@gatehouse/schemas/runtime';
import type { DesiredObject } from '../desired.js';
import type { LiveObject } from '../live.js';
import type { ApiObject } from '../ports.js';

export const REGISTRY_PREFIX = 'gatehouse-bots:v1 ';
/** Any version of the record: a newer gatehouse's records are set aside too, never adopted. */
const ANY_VERSION_PREFIX = 'gatehouse-bots:';
/** Kind and address prefix of the registry's change in a plan. */
export const REGISTRY_KIND = 'BotUserRegistry';
export const BOT_KIND = 'BotUser';
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
  if (!metadata.startsWith(REGISTRY_PREFIX))
    return { unreadable: `written in a format this gatehouse does not know (${metadata.split(' ', 1)[0]!.slice(0, 40)})` };
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
export function registeredPairs(
  desired: readonly DesiredObject[],
  registry: BotRegistry | undefined,
  byId: ReadonlyMap<string, LiveObject>,
): [DesiredObject, LiveObject][] {
  if (!registry || registry.entries.size === 0) return [];
  const adopted = new Set(desired.flatMap((d) => (d.adopt !== undefined ? [d.adopt] : [])));
  const taken = new Set<string>();
  const pairs: [DesiredObject, LiveObject][] = [];
  for (const d of desired) {
    if (d.descriptor.kind !== BOT_KIND || d.adopt !== undefined) continue;
    const entry = registry.entries.get(d.name);
    const live = entry && byId.get(entry.id);
    if (!live || live.descriptor.kind !== BOT_KIND || adopted.has(live.id) || taken.has(live.id)) continue;
    taken.add(live.id);
    pairs.push([d, live]);
  }
  return pairs;
}

/** Drift's hook: the hash the registry recorded when the bot user `o` was applied as `d`. */
export function recordedHash(registry: BotRegistry | undefined, d: DesiredObject, o: LiveObject): string | undefined {
  const entry = registry?.entries.get(d.name);
  return entry && entry.id === o.id && entry.hash !== '' ? entry.hash : undefined;
}

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
