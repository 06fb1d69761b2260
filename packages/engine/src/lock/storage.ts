/**
 * The lock's storage on the API (record.ts has its format): reading the lock and its records,
 * removing them, and releasing or breaking a lock. Every removal treats an object already gone
 * as removed.
 */
import { ipPolicyLookUp, type LookUp } from '../apply/calls.js';
import { type ApiObject, type LiveApi, LiveApiError } from '../ports.js';
import { describeLock, isLockObject, lockName, lockOf, parseRecord, type LockInfo, type LockRecord } from './record.js';

/** The lock of `stack` as the API shows it now (two list reads). */
export async function readLock(api: LiveApi, stack: string, now = new Date()): Promise<LockInfo | undefined> {
  const bots: ApiObject[] = [];
  for await (const raw of api.list('/bot_users', 'bot_users')) if (isLockObject('BotUser', raw)) bots.push(raw);
  if (!bots.some((b) => b.name === lockName(stack))) return undefined;
  const policies: ApiObject[] = [];
  for await (const raw of api.list('/ip_policies', 'ip_policies')) if (isLockObject('IPPolicy', raw)) policies.push(raw);
  return lockOf(stack, bots, policies, now);
}

/** The lock records of `stack` among listed IP policies, as `{id, record}`, in list order (newest first). */
export function lockRecordsIn(stack: string, policies: readonly ApiObject[]): { id: string; record: LockRecord }[] {
  return policies.flatMap((raw) => {
    const record = isLockObject('IPPolicy', raw) ? parseRecord(raw.metadata) : undefined;
    return record?.stack === stack ? [{ id: String(raw.id), record }] : [];
  });
}

/** The lock records of `stack` as the API lists them now. */
export async function lockRecords(api: LiveApi, stack: string): Promise<{ id: string; record: LockRecord }[]> {
  const policies: ApiObject[] = [];
  for await (const raw of api.list('/ip_policies', 'ip_policies')) policies.push(raw);
  return lockRecordsIn(stack, policies);
}

/** Removes the records of a listing already made that `select` picks (one already gone is fine). */
export async function removeListed(
  api: LiveApi,
  records: readonly { id: string; record: LockRecord }[],
  select: (record: LockRecord) => boolean,
): Promise<void> {
  for (const { id, record } of records) {
    if (select(record)) await api.remove(`/ip_policies/${id}`).catch(ignoreMissing);
  }
}

/**
 * Finds this holder's record after its create lost its answer: a record of `stack` with run id
 * `runId` that is the very one sent (`metadata`: same bot user, start, holder and process), not
 * a record another process wrote under the same run id (a CI's id reused by two jobs).
 */
export function ownRecord(stack: string, runId: string, metadata: string): LookUp {
  return ipPolicyLookUp((raw) => {
    const record = isLockObject('IPPolicy', raw) ? parseRecord(raw.metadata) : undefined;
    return record?.stack === stack && record.run_id === runId && raw.metadata === metadata;
  });
}

/** Removes the lock records of `stack` written by run `runId`. */
export const withdrawRecordsOf = async (api: LiveApi, stack: string, runId: string): Promise<void> =>
  removeListed(api, await lockRecords(api, stack), (r) => r.run_id === runId);

/**
 * The bot user first, then the record: a bot user without its record would be claimable (see
 * `acquireLock`) while this holder still runs; a record left without its bot user claims nothing.
 */
export async function release(api: LiveApi, held: { botUserId: string; recordId?: string }): Promise<void> {
  await api.remove(`/bot_users/${held.botUserId}`).catch(ignoreMissing);
  if (held.recordId) await api.remove(`/ip_policies/${held.recordId}`).catch(ignoreMissing);
}

export const ignoreMissing = (error: unknown) => {
  if (error instanceof LiveApiError && error.status === 404) return;
  throw error;
};

/** Removes the lock of `stack` whoever holds it (`gatehouse unlock`); what was removed, if any. */
export async function breakLock(api: LiveApi, stack: string, expected?: LockInfo): Promise<LockInfo | undefined> {
  const lock = await readLock(api, stack);
  if (!lock) return undefined;
  // The lock changed hands since the person confirmed: not the one they meant to remove.
  if (expected && expected.bot_user_id !== lock.bot_user_id)
    throw new Error(`the lock of stack "${stack}" changed since it was shown (now: ${describeLock(lock)}); run unlock again`);
  await release(api, { botUserId: lock.bot_user_id, recordId: lock.record_id });
  return lock;
}
