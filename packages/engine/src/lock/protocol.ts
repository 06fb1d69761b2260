/**
 * The lock's protocol (record.ts explains the primitive): claim the lock's bot user, confirm the
 * claim with a record, renew it while the apply runs, release it at the end.
 */
import { runCalls } from '../apply/calls.js';
import { type ApiObject, type LiveApi, LiveApiError } from '../ports.js';
import { currentProcess, defaultHolder, defaultRunId, holderIsDead, type ProcessIdentity } from './process.js';
import { DEFAULT_LEASE_SECONDS, LOCK_RECORD_PREFIX, LockHeld, LockLost, lockName, type LockInfo, type LockRecord } from './record.js';
import { breakLock, ignoreMissing, lockRecords, lockRecordsIn, ownRecord, readLock, release, removeListed, withdrawRecordsOf } from './storage.js';

export interface AcquireOptions {
  /** How long to wait for a held lock, in milliseconds (0: fail at once). */
  timeoutMs?: number;
  /**
   * Between two attempts while waiting (default 10 s: each attempt costs about three requests,
   * out of the account's budget that the holder is spending too).
   */
  pollMs?: number;
  leaseSeconds?: number;
  holder?: string;
  runId?: string;
  now?: () => Date;
  sleep?: (ms: number) => Promise<void>;
  /** This process as recorded in the lock (default `currentProcess()`; null: record none). */
  process?: ProcessIdentity | null;
  /** Between two renewals of the held lock, in milliseconds (default a third of the lease). */
  renewEveryMs?: number;
  /** Told of a renewal that failed (the API did not answer, 5xx): renewing goes on. */
  onRenewalError?: (error: Error) => void;
  /** Told when `lockWhileReading` could not release the lock after its read failed (the lock stays). */
  onReleaseError?: (error: Error) => void;
  /**
   * Told once, when the lock is held by another and the caller starts waiting for it (a
   * `timeoutMs` over 0), so that a log shows why nothing happens for a while.
   */
  onWait?: (lock: LockInfo | undefined) => void;
}

/** A lock this process holds; `release` removes it (idempotent). */
export interface HeldLock {
  stack: string;
  runId: string;
  botUserId: string;
  recordId?: string;
  /** The lock of a dead holder that was removed before this one was taken, if any. */
  recovered?: LockInfo;
  /**
   * Aborted, with a `LockLost` as its reason, when a renewal finds the lock gone (its bot user
   * or its record removed: `gatehouse unlock`, or another apply took it over). Whoever holds
   * the lock must then start no new write.
   */
  lost: AbortSignal;
  /** Stops renewing and removes the lock (idempotent). */
  release(): Promise<void>;
}

const isNameTaken = (error: unknown) => error instanceof LiveApiError && error.status === 400 && error.code === 'duplicate_name';

/**
 * Takes the lock of `stack`, waiting up to `timeoutMs` while another holds it; throws `LockHeld`
 * naming the holder when it does not come free. Never removes another's lock, stale or not.
 * Confirming the claim lists the IP policies (`lockWhileReading` confirms from its read instead).
 */
export async function acquireLock(api: LiveApi, stack: string, options: AcquireOptions = {}): Promise<HeldLock> {
  return (await lockWhileReading(api, stack, options, async () => undefined)).lock;
}

/**
 * Takes the lock of `stack` as `acquireLock` does and runs `read` (a plan's listing of live
 * state) under it; resolves with the held lock and what `read` gave.
 *
 * The claim is made (the lock's bot user is ours: created, or found without a record) and this
 * holder's record written before `read` runs, so what is read includes every write of the
 * previous holder (it deletes its bot user only after its last write). When `policiesOf` gives
 * the IP policies `read` listed, the claim is confirmed from them: the lock then costs two
 * writes to take and two to release, and no listing of its own. A claim lost to an earlier
 * record discards what was read, and the whole takes place again within the timeout.
 * When `read` fails, the lock is released (once confirmed) and its error thrown.
 */
export async function lockWhileReading<T>(
  api: LiveApi,
  stack: string,
  options: AcquireOptions,
  read: () => Promise<T>,
  policiesOf?: (value: T) => readonly ApiObject[],
): Promise<{ lock: HeldLock; value: T }> {
  const ctx = lockContext(options);
  for (;;) {
    const claim = await writeRecord(api, stack, ctx, await claimBotUser(api, stack, ctx));
    let value: T;
    try {
      value = await read();
    } catch (error) {
      await abandon(api, stack, claim).catch((failure: unknown) => options.onReleaseError?.(failure instanceof Error ? failure : new Error(String(failure))));
      throw error;
    }
    const records = policiesOf ? lockRecordsIn(stack, policiesOf(value)) : await lockRecords(api, stack);
    if (await confirmClaim(api, claim, records)) return { lock: hold(api, stack, ctx, claim), value };
    // Another claim of the same bot user is earlier: it holds the lock; ours is withdrawn. When
    // its holder has released it meanwhile, it is free: take it.
    const holder = await readLock(api, stack, ctx.now());
    if (!holder) continue;
    const waited = ctx.now().getTime() - ctx.start;
    if (waited >= ctx.timeoutMs) throw new LockHeld(holder, stack, ctx.timeoutMs > 0 ? waited : 0);
    await ctx.sleep(Math.min(ctx.pollMs, Math.max(1, ctx.timeoutMs - waited)));
  }
}

/** What one acquisition keeps across its attempts. */
interface LockContext {
  options: AcquireOptions;
  now: () => Date;
  sleep: (ms: number) => Promise<void>;
  timeoutMs: number;
  pollMs: number;
  start: number;
  runId: string;
  here: ProcessIdentity | undefined;
  /** The lock of a dead holder removed by this acquisition, if any (removed at most once). */
  recovered?: LockInfo;
  /** Whether `onWait` was called. */
  waiting?: boolean;
}

function lockContext(options: AcquireOptions): LockContext {
  const now = options.now ?? (() => new Date());
  return {
    options,
    now,
    sleep: options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))),
    timeoutMs: options.timeoutMs ?? 0,
    pollMs: options.pollMs ?? 10_000,
    start: now().getTime(),
    runId: options.runId ?? defaultRunId(),
    here: options.process === undefined ? currentProcess() : (options.process ?? undefined),
  };
}

/**
 * The lock's bot user made ours: created, or found without a record (claimed). Waits while
 * another holds the lock (throws `LockHeld` after the timeout); takes over the lock of a
 * holder that certainly died.
 */
async function claimBotUser(api: LiveApi, stack: string, ctx: LockContext): Promise<string> {
  for (;;) {
    let bot: { id?: unknown } | undefined;
    let createError: unknown;
    try {
      // After a lost answer the client looks before it sends the create again: a lock bot user
      // without a record is claimed (ours, or another's that the record check then settles); one
      // with a record is another's lock, and the create sent again is refused as a taken name.
      bot = await api.create('/bot_users', { name: lockName(stack), active: false }, { findExisting: () => unclaimedBot(api, stack, ctx.now()) });
    } catch (error) {
      // Taken by another, or an answer lost after the client's attempts (5xx, reset): read what is there.
      if (!isNameTaken(error) && !mayHaveBeenCarriedOut(error)) throw error;
      createError = isNameTaken(error) ? undefined : error;
    }
    if (bot) return String(bot.id);
    // One reading of the lock per refused create: while waiting, each poll costs the create and
    // this reading, out of the budget the holder is spending too.
    const lock = await readLock(api, stack, ctx.now());
    if (!lock && createError) throw createError;
    // Released since the create was refused: it is free, take it.
    if (!lock) continue;
    // A lock bot user without a record: its creator lost the answer (perhaps us), died between
    // its two writes, or is between them now. Claim it; the record check of `confirmClaim` lets
    // exactly one claimant through.
    if (!lock.record_id) return String(lock.bot_user_id);
    // A holder killed on this machine (SIGKILL, OOM) left its lock: take it over at once, so
    // that running apply again finishes the job. Only when its death is certain.
    if (holderIsDead(lock.process, ctx.here) && lock.bot_user_id !== ctx.recovered?.bot_user_id) {
      await breakLock(api, stack, lock);
      ctx.recovered = lock;
      continue;
    }
    const waited = ctx.now().getTime() - ctx.start;
    if (waited >= ctx.timeoutMs) throw new LockHeld(lock, stack, ctx.timeoutMs > 0 ? waited : 0);
    if (!ctx.waiting) {
      ctx.waiting = true;
      ctx.options.onWait?.(lock);
    }
    await ctx.sleep(Math.min(ctx.pollMs, Math.max(1, ctx.timeoutMs - waited)));
  }
}

/** A claimed bot user with this holder's record written: not yet confirmed. */
interface Claim {
  botUserId: string;
  recordId: string;
  record: LockRecord;
}

/**
 * Writes this holder's record for a claimed bot user (looked up by run id and sent again after
 * a lost answer, see `ownRecord`; the claim ends only when the create fails for good).
 */
async function writeRecord(api: LiveApi, stack: string, ctx: LockContext, botUserId: string): Promise<Claim> {
  const { options, now, runId, here } = ctx;
  const record: LockRecord = {
    stack,
    holder: options.holder ?? defaultHolder(),
    run_id: runId,
    started_at: now().toISOString(),
    lease_seconds: options.leaseSeconds ?? DEFAULT_LEASE_SECONDS,
    bot_user_id: botUserId,
    ...(here ? { process: { ...here } } : {}),
  };
  const metadata = `${LOCK_RECORD_PREFIX}${JSON.stringify(record)}`;
  try {
    // A create whose answer was lost (or a 5xx) may have written the record: before the client
    // sends it again, it looks it up (`ownRecord`, through `runCalls`), so one run never leaves
    // two records and a record written despite the error is this holder's, not a reason to give up.
    const { first } = await runCalls(
      [{ method: 'POST', path: '/ip_policies', body: { description: `gatehouse lock of stack "${stack}"`.slice(0, 255), metadata } }],
      api,
      ownRecord(stack, runId, metadata),
    );
    return { botUserId, recordId: String(first!.id), record };
  } catch (error) {
    // The bot user stays: another claimant may hold it by now, and without a record it is
    // claimable by the next apply. A record of ours written despite the error is withdrawn.
    await withdrawRecordsOf(api, stack, runId).catch(() => undefined);
    throw error;
  }
}

/**
 * Whether the claim holds, from the lock records listed after this holder's was written. Two
 * records claim one bot user when two callers claimed it without a record (one of them perhaps
 * its creator). The earliest record wins: whoever wrote later sees the earlier one, withdraws
 * its record (never the bot user) and answers false. The winner clears records of earlier lock
 * bot users (a release or a withdrawal cut short), best effort, so they do not pile up.
 */
async function confirmClaim(api: LiveApi, claim: Claim, records: readonly { id: string; record: LockRecord }[]): Promise<boolean> {
  const claims = records.filter(({ record }) => record.bot_user_id === claim.botUserId).map(({ id }) => id);
  // Lists are newest first: the last claim listed is the earliest.
  if (claims.length > 0 && claims[claims.length - 1] !== claim.recordId) {
    await api.remove(`/ip_policies/${claim.recordId}`).catch(ignoreMissing);
    return false;
  }
  await removeListed(api, records, (r) => r.bot_user_id !== claim.botUserId).catch(() => undefined);
  return true;
}

/**
 * A claim whose read failed: released when a listing confirms it is this holder's, otherwise
 * only its record is withdrawn (the bot user may be the earlier claimant's lock).
 */
async function abandon(api: LiveApi, stack: string, claim: Claim): Promise<void> {
  let held: boolean;
  try {
    held = await confirmClaim(api, claim, await lockRecords(api, stack));
  } catch {
    await api.remove(`/ip_policies/${claim.recordId}`).catch(ignoreMissing);
    return;
  }
  if (held) await release(api, claim);
}

/** The held lock of a confirmed claim, renewing its record until released. */
function hold(api: LiveApi, stack: string, ctx: LockContext, claim: Claim): HeldLock {
  let released = false;
  const lost = new AbortController();
  const held: HeldLock = {
    stack,
    runId: ctx.runId,
    botUserId: claim.botUserId,
    recordId: claim.recordId,
    ...(ctx.recovered ? { recovered: ctx.recovered } : {}),
    lost: lost.signal,
    release: async () => {
      if (released) return;
      await renewing.stop();
      await release(api, claim);
      released = true;
    },
  };
  const renewing = renewal(api, held, claim.record, {
    everyMs: ctx.options.renewEveryMs ?? (claim.record.lease_seconds * 1000) / 3,
    now: ctx.now,
    onError: ctx.options.onRenewalError ?? (() => undefined),
    onLost: (why) => lost.abort(new LockLost(stack, why)),
  });
  return held;
}

interface Renewal {
  /** Stops renewing; resolves once a renewal in flight has ended. */
  stop(): Promise<void>;
}

/**
 * Renews the held lock's record every `everyMs` (`renewed_at`, one PATCH), after checking that
 * its bot user still exists (one GET): a lock whose bot user or record is gone is lost
 * (`onLost`, once; renewing stops). A renewal that fails otherwise (no answer, 5xx) is told to
 * `onError` and tried again at the next turn: the lock is not lost for a network blip, and if the
 * API stays unreachable for the whole lease, others see the lock as stale. The timer does not
 * keep the process alive.
 */
function renewal(
  api: LiveApi,
  held: HeldLock,
  record: LockRecord,
  options: { everyMs: number; now: () => Date; onError: (error: Error) => void; onLost: (why: string) => void },
): Renewal {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> = Promise.resolve();
  const renew = async () => {
    try {
      if (!(await api.get(`/bot_users/${held.botUserId}`))) return lose(`its bot user ${lockName(held.stack)} (${held.botUserId}) was removed`);
      if (stopped) return;
      await api.update(`/ip_policies/${held.recordId}`, {
        metadata: `${LOCK_RECORD_PREFIX}${JSON.stringify({ ...record, renewed_at: options.now().toISOString() })}`,
      });
    } catch (error) {
      if (stopped) return;
      if (error instanceof LiveApiError && error.status === 404) return lose(`its record (IP policy ${held.recordId}) was removed`);
      options.onError(error instanceof Error ? error : new Error(String(error)));
    }
    schedule();
  };
  const lose = (why: string) => {
    if (stopped) return;
    stopped = true;
    options.onLost(why);
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(
      () => {
        inFlight = renew();
      },
      Math.max(1, options.everyMs),
    );
    timer.unref();
  };
  schedule();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await inFlight;
    },
  };
}

/** The lock's bot user when it has no record yet (what a create whose answer was lost may have made). */
async function unclaimedBot(api: LiveApi, stack: string, now: Date): Promise<ApiObject | undefined> {
  const lock = await readLock(api, stack, now);
  return lock && !lock.record_id ? { id: lock.bot_user_id, name: lockName(stack) } : undefined;
}

/** A failure after which the write may still have been made: anything but a definite 4xx answer. */
function mayHaveBeenCarriedOut(error: unknown): boolean {
  if (!(error instanceof LiveApiError)) return false;
  return error.outcomeUnknown || error.status === undefined || error.status >= 500;
}
