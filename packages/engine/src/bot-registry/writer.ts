/**
 * Apply's side of the bot user registry (changes.ts): the writes run after the bot user changes,
 * with the ids their creates produced, all at once (they touch different records).
 */
import type { ApiObject } from '../ports.js';
import { ipPolicyLookUp, type LookUp } from '../apply/calls.js';
import type { ApiCall } from '../kinds/types.js';
import { entryOf, keptByOld, wanted, writes, type RegistryMatching } from './changes.js';
import { emptyRegistry, formatRecords } from './records.js';

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

/**
 * Apply's hook: the write of the registry, run after the bot user changes. Entries take the
 * ids the creates produced; a declared bot user without an id (its create did not run) keeps
 * the entry the registry had, if any.
 */
export function registryWriter(matching: RegistryMatching, stack: string): (env: RegistryWriteEnv) => Promise<{ id: string | null; requests: number }> {
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

/** Apply's hook for `movedRegistryChange`: rewrites OLD's records without the moved entries. */
export function movedRegistryWriter(matching: RegistryMatching): (env: RegistryWriteEnv) => Promise<{ id: string | null; requests: number }> {
  const old = matching.fromRegistry;
  return async (env) => {
    if (!old) return { id: null, requests: 0 };
    const { requests } = await sendAll(env, writes(old.stack, old.records, formatRecords(old.stack, keptByOld(matching))));
    return { id: old.records[0]?.id ?? null, requests };
  };
}
