/**
 * Step 4, observe: read the live state through `LiveApi.list` only: one paginated list per
 * collection (100 objects a request), never a GET per object. Children that the API renders
 * inline (an edge's routes) are taken from their parent; children with their own list (IP
 * policy rules) are read in one list for all parents. Collections are read concurrently. A list
 * the account cannot read (404, 403: plan/unreadable.ts) is recorded in `unreadable` and the
 * others go on; when none can be read, the first failure is the error.
 */
import { KINDS } from '../kinds/index.js';
import type { Collection, KindDescriptor } from '../kinds/types.js';
import type { LiveObject } from '../live.js';
import { isRegistryObject } from '../bot-registry/records.js';
import { isLockObject } from '../lock/record.js';
import { markerFitsKind, parseMarker } from '../identity/marker.js';
import type { ApiObject, LiveApi } from '../ports.js';
import type { UnreadableKind } from '../plan-model.js';
import { isUnreadable, unreadableKind } from './unreadable.js';

const PAGE_SIZE = 100;

export interface Observation {
  live: LiveObject[];
  /** List requests spent: pages per collection (an empty list still costs one). */
  requests: number;
  /**
   * The per-stack lock's objects (lock/record.ts), left out of `live`: never planned, exported,
   * adopted or deleted; `lockOf` reads them.
   */
  lockObjects: { bots: ApiObject[]; policies: ApiObject[] };
  /** Bot user registry records of every stack (bot-registry/registry.ts), left out of `live` too. */
  registryObjects: ApiObject[];
  /** Collections the account cannot list (plan/unreadable.ts); their objects are not in `live`. */
  unreadable: UnreadableKind[];
}

/**
 * Every live object has the same fields, absent ones `undefined`: one hidden class for all of
 * them, so the loops of match and plan over thousands of them read each field at one place
 * instead of one per combination of fields present (a policy's, a rule's, a bot user's).
 */
function toLive(descriptor: KindDescriptor, raw: ApiObject, collection?: Collection, parentId?: string): LiveObject {
  const parsed = descriptor.metadata ? parseMarker(raw.metadata) : NO_MARKER;
  // A marker whose name no object of this kind could have (a path, a child's name on a
  // top-level object) is not one gatehouse wrote: the object is not owned (marker.ts).
  const { user, marker } = parsed.marker && !markerFitsKind(parsed.marker.name, descriptor.child !== undefined) ? { user: raw.metadata as string } : parsed;
  return { descriptor, id: String(raw.id), raw, collection: collection || undefined, parentId, userMetadata: user, marker };
}

const NO_MARKER: ReturnType<typeof parseMarker> = { user: undefined };

/** A collection's objects a page at a time when the API can (`listPages`), else one by one. */
async function* pagesOf(api: LiveApi, collection: Collection): AsyncIterable<readonly ApiObject[]> {
  if (api.listPages) {
    yield* api.listPages(collection.path, collection.listKey);
    return;
  }
  for await (const raw of api.list(collection.path, collection.listKey)) yield [raw];
}

export async function observe(api: LiveApi, kinds: readonly KindDescriptor[] = KINDS): Promise<Observation> {
  let requests = 0;
  const lockObjects: Observation['lockObjects'] = { bots: [], policies: [] };
  const registryObjects: ApiObject[] = [];
  const lists = kinds.flatMap((descriptor) =>
    'lists' in descriptor.observe ? descriptor.observe.lists.map((collection) => ({ descriptor, collection })) : [],
  );
  const unreadable: UnreadableKind[] = [];
  const failures: unknown[] = [];
  const read = await Promise.all(
    lists.map(async ({ descriptor, collection }) => {
      const objects: LiveObject[] = [];
      let listed = 0; // lock and registry objects too: they fill pages like any other
      const observeSpec = descriptor.observe as { parentId?(live: ApiObject): string | undefined };
      const readAll = async () => {
        for await (const page of pagesOf(api, collection)) {
          for (const raw of page) {
            listed += 1;
            if (isLockObject(descriptor.kind, raw)) {
              (descriptor.kind === 'BotUser' ? lockObjects.bots : lockObjects.policies).push(raw);
              continue;
            }
            if (isRegistryObject(descriptor.kind, raw)) {
              registryObjects.push(raw);
              continue;
            }
            objects.push(toLive(descriptor, raw, collection, observeSpec.parentId?.(raw)));
          }
        }
      };
      try {
        await readAll();
      } catch (error) {
        if (!isUnreadable(error)) throw error;
        failures.push(error);
        unreadable.push(unreadableKind(descriptor, collection, error));
        requests += 1;
        return [];
      }
      requests += Math.max(1, Math.ceil(listed / PAGE_SIZE));
      return objects;
    }),
  );
  // Nothing readable at all is no missing feature: a wrong URL, or a key that reads nothing.
  if (lists.length > 0 && failures.length === lists.length) throw failures[0];
  unreadable.sort((a, b) => a.path.localeCompare(b.path));
  const live = read.flat();
  for (const descriptor of kinds) {
    if (!('inline' in descriptor.observe)) continue;
    const { field } = descriptor.observe.inline;
    const parents = live.filter((o) => o.descriptor.kind === descriptor.child?.parentKind);
    for (const parent of parents) {
      for (const raw of (parent.raw[field] as ApiObject[] | undefined) ?? []) live.push(toLive(descriptor, raw, undefined, parent.id));
    }
  }
  return { live, requests, lockObjects, registryObjects, unreadable };
}
