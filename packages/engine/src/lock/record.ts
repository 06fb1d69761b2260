/**
 * The per-stack lock (the protocol is protocol.ts; its storage on the API, storage.ts), kept on the API itself: gatehouse has no state file, so two applies of one
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
import type { ApiObject } from '../ports.js';
import { currentProcess, holderIsDead, type ProcessIdentity } from './process.js';

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

export interface LockRecord {
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

export const lockName = (stack: string) => `${LOCK_BOT_PREFIX}${stack}`;

/** Whether a live object is one of the lock's (a lock bot user or a lock record). */
export function isLockObject(kind: string, raw: ApiObject): boolean {
  if (kind === 'BotUser') return typeof raw.name === 'string' && raw.name.startsWith(LOCK_BOT_PREFIX);
  if (kind === 'IPPolicy') return typeof raw.metadata === 'string' && raw.metadata.startsWith(LOCK_RECORD_PREFIX);
  return false;
}

export function parseRecord(metadata: unknown): LockRecord | undefined {
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
  const record = policies
    .map((p) => ({ id: String(p.id), record: parseRecord(p.metadata) }))
    .findLast((r) => r.record?.stack === stack && r.record.bot_user_id === bot.id);
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
 * Whether an apply probably runs under `lock`: it is neither stale (its lease renewed) nor held
 * by a process known dead on this machine (which the next apply takes over).
 */
export function lockIsActive(lock: LockInfo, here: ProcessIdentity | undefined = currentProcess()): boolean {
  return !lock.stale && !holderIsDead(lock.process, here);
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
  constructor(
    readonly lock: LockInfo | undefined,
    stack: string,
    waitedMs: number,
  ) {
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
