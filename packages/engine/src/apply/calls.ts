/**
 * Sends a step's API calls through the port. Retries are the client's alone (one policy, in
 * `@gatehouse/client`); the engine adds only what the client cannot know:
 *
 * - A POST whose answer was lost (no answer, or a 5xx) may have created the object. Before the
 *   client sends it again, it asks the engine's look-up (`CreateOptions.findExisting`): the
 *   object by its identity (this stack's marker name, or the natural key for kinds without
 *   metadata; or a caller's own `LookUp`, as the lock's record by its run id). When found, that
 *   is the create's result, so a retry never makes a duplicate.
 * - A DELETE answered 404 has reached its goal (gone already, or an earlier attempt did it).
 */
import type { ApiCall, KindDescriptor, Spec } from '../kinds/types.js';
import { parseMarker } from '../identity/marker.js';
import { LiveApiError, type ApiObject, type LiveApi } from '../ports.js';

/** How to recognize the object a create makes, for the look-up after a lost answer. */
export interface Identity {
  descriptor: KindDescriptor;
  stack: string;
  /** Marker name (kinds with metadata). */
  markerName: string;
  /** Desired normal form (for the natural key of kinds without metadata). */
  normal: Spec;
  /** A live object that has the same identity but is not the one created (a replace's old object). */
  excludeId?: string;
}

/**
 * Finds the object a POST to `path` may have made, for objects that are not a kind's (the
 * lock's record): `found` when it exists, and the requests the search took.
 */
export type LookUp = (api: LiveApi, path: string) => Promise<{ found?: ApiObject; requests: number }>;

/**
 * The `LookUp` of the lock's and the registry's records, which are IP policies: the first one
 * `matches` accepts, listed page by page (a page is 100).
 */
export const ipPolicyLookUp =
  (matches: (raw: ApiObject) => boolean): LookUp =>
  (api) =>
    findInList(api, '/ip_policies', 'ip_policies', matches);

/** The first object of a collection that `matches`, listed page by page (a page is 100), and the requests that took. */
async function findInList(api: LiveApi, path: string, listKey: string, matches: (raw: ApiObject) => boolean): ReturnType<LookUp> {
  let seen = 0;
  for await (const raw of api.list(path, listKey)) {
    seen += 1;
    if (matches(raw)) return { found: raw, requests: Math.ceil(seen / 100) };
  }
  return { requests: Math.max(1, Math.ceil(seen / 100)) };
}

export interface CallsOutcome {
  /** The first call's answer (the created object for a create). */
  first: ApiObject | undefined;
  /** Requests made, look-ups included (the client's own retries not counted). */
  requests: number;
}

/**
 * Sends `calls` in order, each once: the port's client retries what it may (`LiveApi`). A create
 * carries its look-up (`identity`), which the client runs before sending it again after a lost
 * answer.
 */
export async function runCalls(calls: readonly ApiCall[], api: LiveApi, identity?: Identity | LookUp): Promise<CallsOutcome> {
  let first: ApiObject | undefined;
  let requests = 0;
  const findExisting = (path: string) => async () => {
    const lookup = typeof identity === 'function' ? await identity(api, path) : await findByIdentity(api, path, identity!);
    requests += lookup.requests;
    return lookup.found;
  };
  for (const [index, call] of calls.entries()) {
    try {
      requests += 1;
      const answer = await send(api, call, identity && call.method === 'POST' ? findExisting(call.path) : undefined);
      if (index === 0) first = answer;
    } catch (error) {
      // A DELETE answered 404 has reached its goal: gone already, or an earlier attempt did it.
      if (call.method === 'DELETE' && error instanceof LiveApiError && error.status === 404) continue;
      throw error;
    }
  }
  return { first, requests };
}

async function send(api: LiveApi, call: ApiCall, findExisting?: () => Promise<ApiObject | undefined>): Promise<ApiObject | undefined> {
  switch (call.method) {
    case 'POST':
      return api.create(call.path, call.body ?? {}, findExisting ? { findExisting } : undefined);
    case 'PATCH':
      return api.update(call.path, call.body ?? {});
    case 'PUT':
      return api.replace(call.path, call.body ?? {});
    case 'DELETE':
      await api.remove(call.path);
      return undefined;
  }
}

/**
 * Looks for the object a POST to `path` would have created. Kinds with their own lists are
 * listed from the collection the POST went to (a backend's type); children rendered inline
 * (routes) are read from their parent, whose path the POST path extends.
 */
export async function findByIdentity(api: LiveApi, path: string, identity: Identity): Promise<{ found?: ApiObject; requests: number }> {
  const { descriptor } = identity;
  const matches = (raw: ApiObject) => {
    if (identity.excludeId !== undefined && raw.id === identity.excludeId) return false;
    if (descriptor.metadata) {
      const marker = parseMarker(raw.metadata).marker;
      return marker?.stack === identity.stack && marker.name === identity.markerName;
    }
    const key = descriptor.naturalKey;
    return key !== undefined && key(descriptor.fromLive(raw, undefined)) === key(identity.normal);
  };
  if ('inline' in descriptor.observe) {
    const parentPath = path.slice(0, path.lastIndexOf('/'));
    const parent = await api.get(parentPath);
    const items = (parent?.[descriptor.observe.inline.field] as ApiObject[] | undefined) ?? [];
    const found = items.find(matches);
    return found ? { found, requests: 1 } : { requests: 1 };
  }
  const collection = descriptor.observe.lists.find((c) => c.path === path) ?? descriptor.observe.lists[0]!;
  return findInList(api, collection.path, collection.listKey, matches);
}
