/**
 * The per-stack lock, kept on the API itself: gatehouse has no state file, so two applies of one
 * stack (two CI jobs, a retried pipeline) can only exclude each other through the service.
 *
 * The primitive is the one write the service makes atomic for us: bot user names are unique
 * (`duplicate_name` otherwise), so creating the bot user `gatehouse-lock.<stack>` succeeds for
 * exactly one caller. That caller then records who it is in a companion IP policy whose metadata
 * is `gatehouse-lock:v1 {"stack","holder","run_id","started_at","lease_seconds","bot_user_id"}`
 * (bot users carry only a name and a flag). A bot user without a record (its creator lost the
 * answer to its create, died between the two writes, or is between them) is claimed by the next
 * apply; when two records claim one bot user, the earliest wins and the other withdraws, so
 * exactly one caller holds the lock. Release deletes the bot user, then the record.
 *
 * The holder renews its record while it runs (every third of the lease: `renewed_at`, see
 * `renewal`), so a lock whose latest renewal (or start, in records without one) is older than
 * its lease (`lease_seconds`, default one hour) is reported as stale: its holder stopped
 * renewing it (it died, hangs, or lost the API). A stale lock is only ever removed by a person
 * (`gatehouse unlock --stack NAME`). A holder that finds its lock gone when it renews (removed
 * by unlock, or taken over) has lost it: `HeldLock.lost` aborts, and apply starts no new write.
 * The one exception is a holder whose death is certain: the record names its boot, pid
 * namespace and pid, and an apply on that same boot and namespace that finds no such process
 * (the holder was SIGKILLed or OOM-killed) removes the lock and takes it (`holderIsDead`).
 * Both lock objects are invisible to plan, drift, export and apply (`isLockObject`): they are
 * never planned, exported, adopted or deleted as a user's bot user or IP policy.
 */
import { readFileSync, readlinkSync } from 'node:fs';
import { hostname, userInfo } from 'node:os';
import { randomUUID } from 'node:crypto';
import { ipPolicyLookUp, runCalls, type LookUp } from '../apply/calls.js';
import { type ApiObject, type LiveApi, LiveApiError } from '../ports.js';

export const LOCK_BOT_PREFIX = 'gatehouse-lock.';
export const LOCK_RECORD_PREFIX = 'gatehouse-lock:v1 ';
export const DEFAULT_LEASE_SECONDS = 3600;

/** What anyone who reads the API can learn of a held lock. */
export interface LockInfo {
  stack: string;
  bot_user_id: string;
  /** RFC 3339: the record's start, else the bot user's `created_at`, else unknown (''). */
  since: string;
  /** RFC 3339: the holder's latest renewal of the record, when it renewed it. */
  renewed_at?: string;
  /** `user@host (pid N)`, absent when the record is missing. */
  holder?: string;
  run_id?: string;
  lease_seconds?: number;
  /**
   * True when the latest renewal (else `since`) is older than the lease (or than the default
   * lease without a record).
   */
  stale: boolean;
  /** Id of the record's IP policy, when there is one. */
  record_id?: string;
  /** The holder's process as recorded (see `holderIsDead`). */
  process?: ProcessIdentity;
}

interface LockRecord {
  stack: string;
  holder: string;
  run_id: string;
  started_at: string;
  /** The holder's latest renewal (absent before the first, and in records of older versions). */
  renewed_at?: string;
  lease_seconds: number;
  bot_user_id: string;
  /**
   * Where the holder runs, precisely enough to tell that it died: the kernel's boot id, the
   * holder's pid namespace and its pid (Linux only; absent elsewhere and in older records).
   */
  process?: ProcessIdentity;
}

/** A process, identified across containers: the same boot and pid namespace make `pid` comparable. */
export interface ProcessIdentity {
  boot_id: string;
  pid_ns: string;
  pid: number;
}

/** This process's identity, or undefined where the system does not expose one (not Linux). */
export function currentProcess(): ProcessIdentity | undefined {
  try {
    const boot_id = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    const pid_ns = readlinkSync('/proc/self/ns/pid');
    return boot_id && pid_ns ? { boot_id, pid_ns, pid: process.pid } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether the holder recorded as `recorded` is provably gone: it ran on this very boot in this
 * pid namespace (so its pid means the same here) and no process has that pid now. Anything
 * less certain (another machine or container, an older record, a reused pid) is not.
 */
export function holderIsDead(recorded: ProcessIdentity | undefined, here: ProcessIdentity | undefined = currentProcess()): boolean {
  if (!recorded || !here || recorded.boot_id !== here.boot_id || recorded.pid_ns !== here.pid_ns) return false;
  if (!Number.isInteger(recorded.pid) || recorded.pid <= 0 || recorded.pid === here.pid) return false;
  try {
    process.kill(recorded.pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

export const lockName = (stack: string) => `${LOCK_BOT_PREFIX}${stack}`;

/** Whether a live object is one of the lock's (a lock bot user or a lock record). */
export function isLockObject(kind: string, raw: ApiObject): boolean {
  if (kind === 'BotUser') return typeof raw.name === 'string' && raw.name.startsWith(LOCK_BOT_PREFIX);
  if (kind === 'IPPolicy') return typeof raw.metadata === 'string' && raw.metadata.startsWith(LOCK_RECORD_PREFIX);
  return false;
}

function parseRecord(metadata: unknown): LockRecord | undefined {
  if (typeof metadata !== 'string' || !metadata.startsWith(LOCK_RECORD_PREFIX)) return undefined;
  try {
    const value = JSON.parse(metadata.slice(LOCK_RECORD_PREFIX.length)) as Partial<LockRecord>;
    return typeof value.stack === 'string' ? (value as LockRecord) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The lock of `stack` among lock objects already read (observe's bot users and IP policies),
 * or undefined when it is free.
 */
export function lockOf(stack: string, bots: readonly ApiObject[], policies: readonly ApiObject[], now = new Date()): LockInfo | undefined {
  const bot = bots.find((b) => b.name === lockName(stack));
  if (!bot) return undefined;
  // Lists are newest first: the earliest record claiming the bot user is the holder's (see
  // `acquireLock` on two claims).
  const record = policies.map((p) => ({ id: String(p.id), record: parseRecord(p.metadata) })).findLast((r) => r.record?.stack === stack && r.record.bot_user_id === bot.id);
  const since = record?.record?.started_at ?? (typeof bot.created_at === 'string' ? bot.created_at : '');
  const lease = record?.record?.lease_seconds ?? DEFAULT_LEASE_SECONDS;
  const renewed = record?.record?.renewed_at;
  // Staleness counts from the latest sign of life: the renewal, else the start.
  const renewedAt = renewed ? Date.parse(renewed) : Number.NaN;
  const latest = Number.isFinite(renewedAt) ? Math.max(renewedAt, Date.parse(since) || 0) : Date.parse(since);
  const info: LockInfo = { stack, bot_user_id: String(bot.id), since, stale: Number.isFinite(latest) && now.getTime() - latest > lease * 1000 };
  if (renewed) info.renewed_at = renewed;
  if (record?.record) {
    Object.assign(info, { holder: record.record.holder, run_id: record.record.run_id, lease_seconds: record.record.lease_seconds, record_id: record.id });
    if (record.record.process) info.process = record.record.process;
  }
  return info;
}

/** The lock of `stack` as the API shows it now (two list reads). */
export async function readLock(api: LiveApi, stack: string, now = new Date()): Promise<LockInfo | undefined> {
  const bots: ApiObject[] = [];
  for await (const raw of api.list('/bot_users', 'bot_users')) if (isLockObject('BotUser', raw)) bots.push(raw);
  if (!bots.some((b) => b.name === lockName(stack))) return undefined;
  const policies: ApiObject[] = [];
  for await (const raw of api.list('/ip_policies', 'ip_policies')) if (isLockObject('IPPolicy', raw)) policies.push(raw);
  return lockOf(stack, bots, policies, now);
}

/** One sentence about a held lock, for errors and for plan and drift output. */
export function describeLock(lock: LockInfo): string {
  const who = lock.holder ? `by ${lock.holder}` : 'by an unknown holder (no lock record)';
  const run = lock.run_id ? `, run ${lock.run_id}` : '';
  const since = lock.since ? ` since ${lock.since}` : '';
  const renewed = lock.renewed_at ? ` (renewed ${lock.renewed_at})` : '';
  const stale = lock.stale
    ? `; the lock is STALE (not renewed for longer than its lease of ${lock.lease_seconds ?? DEFAULT_LEASE_SECONDS} s: its holder stopped): if no apply is running, remove it with gatehouse unlock --stack ${lock.stack}`
    : '';
  return `stack "${lock.stack}" is locked ${who}${since}${renewed}${run}${stale}`;
}

/**
 * The sentence plan and drift print about a lock they found: who holds it, and what that means
 * for what they show (`consequence`, said only when an apply probably runs). A stale lock is
 * not a running apply (`describeLock` says to unlock it); a holder known dead on this machine
 * (`holderIsDead`) is not either: the next apply takes its lock over.
 */
export function lockNote(lock: LockInfo, consequence: string, here: ProcessIdentity | undefined = currentProcess()): string {
  if (holderIsDead(lock.process, here)) return `${describeLock(lock)}; its holder no longer runs on this machine, so the next apply takes the lock over`;
  if (lock.stale) return describeLock(lock);
  return `${describeLock(lock)}; an apply is probably running, so ${consequence}`;
}

/**
 * Thrown by `acquireLock` when the lock stays held for the whole timeout. `waitedMs` is how long
 * the caller chose to wait (0 with `--lock-timeout 0`, however long the attempt itself took).
 */
export class LockHeld extends Error {
  constructor(readonly lock: LockInfo | undefined, stack: string, waitedMs: number) {
    const waited = waitedMs > 0 ? `waited ${Math.round(waitedMs / 1000)} s (--lock-timeout); ` : '';
    // A stale lock's description already says to unlock it: no apply is running to wait for.
    const advice = lock?.stale
      ? `${waited}nothing removes a stale lock by itself`
      : waitedMs > 0
        ? `${waited}another apply of this stack is still running: wait for it, or pass a longer --lock-timeout`
        : 'another apply of this stack is running: wait for it, or pass --lock-timeout to wait';
    super(`${lock ? describeLock(lock) : `stack "${stack}" is locked (it was released or changed while being read)`}; ${advice}`);
    this.name = 'LockHeld';
  }
}

export interface AcquireOptions {
  /** How long to wait for a held lock, in milliseconds (0: fail at once). */
  timeoutMs?: number;
  /** Between two attempts while waiting (default 2 s). */
  pollMs?: number;
  /**
   * Attempts of the record's create in all, the first included (default 4, as apply's calls);
   * after a lost answer, the record is looked up by run id before the next.
   */
  attempts?: number;
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

/** Why a held lock was lost (the reason of `HeldLock.lost`). */
export class LockLost extends Error {
  constructor(stack: string, why: string) {
    super(
      `lost the lock of stack "${stack}" while applying: ${why}; nothing more was written. ` +
        `Someone ran gatehouse unlock, or took the lock over, while this apply ran: check that no other apply of this stack runs (gatehouse plan shows the lock), then run apply again`,
    );
    this.name = 'LockLost';
  }
}

const isNameTaken = (error: unknown) => error instanceof LiveApiError && error.status === 400 && error.code === 'duplicate_name';

/** Who holds a lock: `user@host (pid N)`. */
export function defaultHolder(): string {
  let user = process.env.USER ?? process.env.USERNAME;
  try {
    user ??= userInfo().username;
  } catch {
    user ??= 'unknown';
  }
  return `${user}@${hostname()} (pid ${process.pid})`;
}

/** A run id: the CI's own when there is one (GitHub, GitLab, Jenkins, Buildkite), else random. */
export function defaultRunId(env: NodeJS.ProcessEnv = process.env): string {
  if (env.GATEHOUSE_RUN_ID) return env.GATEHOUSE_RUN_ID;
  if (env.GITHUB_RUN_ID) return `github:${env.GITHUB_REPOSITORY ?? ''}#${env.GITHUB_RUN_ID}.${env.GITHUB_RUN_ATTEMPT ?? '1'}`;
  if (env.CI_JOB_ID) return `gitlab:${env.CI_JOB_ID}`;
  if (env.BUILD_TAG) return `jenkins:${env.BUILD_TAG}`;
  if (env.BUILDKITE_BUILD_ID) return `buildkite:${env.BUILDKITE_BUILD_ID}`;
  return randomUUID();
}

/**
 * Takes the lock of `stack`, waiting up to `timeoutMs` while another holds it; throws `LockHeld`
 * naming the holder when it does not come free. Never removes another's lock, stale or not.
 */
export async function acquireLock(api: LiveApi, stack: string, options: AcquireOptions = {}): Promise<HeldLock> {
  return (await lockWhileReading(api, stack, options, async () => undefined)).lock;
}

/**
 * Takes the lock of `stack` as `acquireLock` does, running `read` (live state: a plan's listing)
 * as soon as reading is safe, which is before the lock is confirmed; resolves with the held lock
 * and what `read` gave.
 *
 * Why reading may start early: the lock is claimed by creating its bot user (or by finding one
 * without a record), and confirmed by writing the record and reading the records back (two
 * requests and a listing of the IP policies, see `confirmClaim`). Once the bot user is ours, the
 * previous holder has ended: it deletes its bot user only after its last write, so what is read
 * from then on includes every write of it. Writes must wait for the confirmation (the caller
 * writes only after this resolves); a claim lost to an earlier record discards what was read,
 * and the whole takes place again, reads included, within the timeout.
 * When `read` fails, the lock is released (once confirmed) and its error thrown.
 */
export async function lockWhileReading<T>(api: LiveApi, stack: string, options: AcquireOptions, read: () => Promise<T>): Promise<{ lock: HeldLock; value: T }> {
  const ctx = lockContext(options);
  for (;;) {
    const claimed = await claimBotUser(api, stack, ctx);
    const confirming = confirmClaim(api, stack, ctx, claimed);
    // (A `read` that throws at once is a failed read like any other.)
    const reading = Promise.resolve().then(read);
    const [confirmed, value] = await Promise.allSettled([confirming, reading]);
    if (value.status === 'rejected') {
      if (confirmed.status === 'fulfilled') await confirmed.value.release().catch((error: unknown) => options.onReleaseError?.(error instanceof Error ? error : new Error(String(error))));
      throw value.reason;
    }
    if (confirmed.status === 'fulfilled') return { lock: confirmed.value, value: value.value };
    if (!(confirmed.reason instanceof ClaimLost)) throw confirmed.reason;
    // Another claim of the same bot user is earlier: it holds the lock; ours is withdrawn.
    const waited = ctx.now().getTime() - ctx.start;
    if (waited >= ctx.timeoutMs) throw new LockHeld(await readLock(api, stack, ctx.now()), stack, ctx.timeoutMs > 0 ? waited : 0);
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
    pollMs: options.pollMs ?? 2000,
    start: now().getTime(),
    runId: options.runId ?? defaultRunId(),
    here: options.process === undefined ? currentProcess() : (options.process ?? undefined),
  };
}

/** A claim of the record of `confirmClaim` lost to an earlier one (ours withdrawn). */
class ClaimLost extends Error {
  constructor() {
    super('another claim of the lock bot user is earlier');
    this.name = 'ClaimLost';
  }
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
      bot = await api.create('/bot_users', { name: lockName(stack), active: false });
    } catch (error) {
      // Taken by another, or an answer lost after the write (5xx, reset): read what is there.
      if (!isNameTaken(error) && !mayHaveBeenCarriedOut(error)) throw error;
      createError = isNameTaken(error) ? undefined : error;
    }
    if (!bot) {
      const lock = await readLock(api, stack, ctx.now());
      if (!lock && createError) throw createError;
      if (!lock) continue;
      if (!lock.record_id) {
        // A lock bot user without a record: its creator lost the answer (perhaps us), died
        // between its two writes, or is between them now. Claim it; the record check of
        // `confirmClaim` lets exactly one claimant through.
        bot = { id: lock.bot_user_id };
      }
      // A holder killed on this machine (SIGKILL, OOM) left its lock: take it over at once, so
      // that running apply again finishes the job. Only when its death is certain.
      else if (holderIsDead(lock.process, ctx.here) && lock.bot_user_id !== ctx.recovered?.bot_user_id) {
        await breakLock(api, stack, lock);
        ctx.recovered = lock;
        continue;
      }
    }
    if (!bot) {
      const lock = await readLock(api, stack, ctx.now());
      const waited = ctx.now().getTime() - ctx.start;
      if (waited >= ctx.timeoutMs) throw new LockHeld(lock, stack, ctx.timeoutMs > 0 ? waited : 0);
      if (!ctx.waiting) {
        ctx.waiting = true;
        ctx.options.onWait?.(lock);
      }
      await ctx.sleep(Math.min(ctx.pollMs, Math.max(1, ctx.timeoutMs - waited)));
      continue;
    }
    return String(bot.id);
  }
}

/**
 * Confirms a claimed bot user: writes this holder's record (looked up by run id and sent again
 * after a lost answer, see `ownRecord`; the claim ends only when the create fails for good)
 * and reads the records back. Two
 * records claim one bot user when two callers claimed it without a record (one of them perhaps
 * its creator). The earliest record wins: whoever wrote later sees the earlier one when it reads
 * back its own, withdraws its record (never the bot user) and throws `ClaimLost`. The winner
 * clears records of earlier lock bot users and starts renewing.
 */
async function confirmClaim(api: LiveApi, stack: string, ctx: LockContext, botUserId: string): Promise<HeldLock> {
  const { options, now, runId, here } = ctx;
  let released = false;
  const lost = new AbortController();
  let renewing: Renewal | undefined;
  const held: HeldLock = {
    stack,
    runId,
    botUserId,
    ...(ctx.recovered ? { recovered: ctx.recovered } : {}),
    lost: lost.signal,
    release: async () => {
      if (released) return;
      await renewing?.stop();
      await release(api, held);
      released = true;
    },
  };
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
    // A create whose answer was lost (or a 5xx) may have written the record: before sending it
    // again, apply's `runCalls` looks it up (`ownRecord`), so one run never leaves two records
    // and a record written despite the error is this holder's, not a reason to give up.
    const { first } = await runCalls(
      [{ method: 'POST', path: '/ip_policies', body: { description: `gatehouse lock of stack "${stack}"`.slice(0, 255), metadata } }],
      { api, attempts: options.attempts ?? 4, delay: ctx.sleep },
      ownRecord(stack, runId, metadata),
    );
    held.recordId = String(first!.id);
  } catch (error) {
    // The bot user stays: another claimant may hold it by now, and without a record it is
    // claimable by the next apply. A record of ours written despite the error is withdrawn.
    await withdrawRecordsOf(api, stack, runId).catch(() => undefined);
    throw error;
  }
  // One listing serves both this check and the clearing below (each is ceil(policies/100) requests).
  const records = await lockRecords(api, stack);
  const claims = records.filter(({ record }) => record.bot_user_id === botUserId).map(({ id }) => id);
  if (claims.length > 0 && claims[claims.length - 1] !== held.recordId) {
    await api.remove(`/ip_policies/${held.recordId}`).catch(ignoreMissing);
    throw new ClaimLost();
  }
  // Records of earlier lock bot users (a release or a withdrawal cut short) claim nothing any
  // more; the holder clears them, best effort, so they do not pile up.
  await removeListed(api, records, (r) => r.bot_user_id !== botUserId).catch(() => undefined);
  renewing = renewal(api, held, record, {
    everyMs: options.renewEveryMs ?? (record.lease_seconds * 1000) / 3,
    now,
    onError: options.onRenewalError ?? (() => undefined),
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
      await api.update(`/ip_policies/${held.recordId}`, { metadata: `${LOCK_RECORD_PREFIX}${JSON.stringify({ ...record, renewed_at: options.now().toISOString() })}` });
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
    timer = setTimeout(() => {
      inFlight = renew();
    }, Math.max(1, options.everyMs));
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

/** A failure after which the write may still have been made: anything but a definite 4xx answer. */
function mayHaveBeenCarriedOut(error: unknown): boolean {
  if (!(error instanceof LiveApiError)) return false;
  return error.outcomeUnknown || error.status === undefined || error.status >= 500;
}

/** The lock records of `stack` as `{id, record}`, newest first (list order). */
async function lockRecords(api: LiveApi, stack: string): Promise<{ id: string; record: LockRecord }[]> {
  const found: { id: string; record: LockRecord }[] = [];
  for await (const raw of api.list('/ip_policies', 'ip_policies')) {
    const record = isLockObject('IPPolicy', raw) ? parseRecord(raw.metadata) : undefined;
    if (record?.stack === stack) found.push({ id: String(raw.id), record });
  }
  return found;
}

/** Removes the lock records of `stack` that `select` picks. */
const removeRecords = async (api: LiveApi, stack: string, select: (record: LockRecord) => boolean): Promise<void> =>
  removeListed(api, await lockRecords(api, stack), select);

/** Removes the records of a listing already made that `select` picks (one already gone is fine). */
async function removeListed(api: LiveApi, records: readonly { id: string; record: LockRecord }[], select: (record: LockRecord) => boolean): Promise<void> {
  for (const { id, record } of records) {
    if (select(record)) await api.remove(`/ip_policies/${id}`).catch(ignoreMissing);
  }
}

/**
 * Finds this holder's record after its create lost its answer: a record of `stack` with run id
 * `runId` that is the very one sent (`metadata`: same bot user, start, holder and process), not
 * a record another process wrote under the same run id (a CI's id reused by two jobs).
 */
function ownRecord(stack: string, runId: string, metadata: string): LookUp {
  return ipPolicyLookUp((raw) => {
    const record = isLockObject('IPPolicy', raw) ? parseRecord(raw.metadata) : undefined;
    return record?.stack === stack && record.run_id === runId && raw.metadata === metadata;
  });
}

/** Removes the lock records of `stack` written by run `runId`. */
const withdrawRecordsOf = (api: LiveApi, stack: string, runId: string) => removeRecords(api, stack, (r) => r.run_id === runId);


/**
 * The bot user first, then the record: a bot user without its record would be claimable (see
 * `acquireLock`) while this holder still runs; a record left without its bot user claims nothing.
 */
async function release(api: LiveApi, held: HeldLock): Promise<void> {
  await api.remove(`/bot_users/${held.botUserId}`).catch(ignoreMissing);
  if (held.recordId) await api.remove(`/ip_policies/${held.recordId}`).catch(ignoreMissing);
}

const ignoreMissing = (error: unknown) => {
  if (error instanceof LiveApiError && error.status === 404) return;
  throw error;
};

/** Removes the lock of `stack` whoever holds it (`gatehouse unlock`); what was removed, if any. */
export async function breakLock(api: LiveApi, stack: string, expected?: LockInfo): Promise<LockInfo | undefined> {
  const lock = await readLock(api, stack);
  if (!lock) return undefined;
  // The lock changed hands since the person confirmed: not the one they meant to remove.
  if (expected && expected.bot_user_id !== lock.bot_user_id) throw new Error(`the lock of stack "${stack}" changed since it was shown (now: ${describeLock(lock)}); run unlock again`);
  await api.remove(`/bot_users/${lock.bot_user_id}`).catch(ignoreMissing);
  if (lock.record_id) await api.remove(`/ip_policies/${lock.record_id}`).catch(ignoreMissing);
  return lock;
}
