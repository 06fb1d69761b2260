/**
 * One reconcile cycle of one environment, as `gatehouse watch` runs it every interval:
 *
 * 1. Read the manifests (no request: a manifest problem fails the cycle and costs nothing).
 * 2. List the live state, plan, and classify the drift with the engine's evidence
 *    (changed outside gatehouse, changed in git, ...). While another apply holds the stack's
 *    lock (a pipeline), the drift is reported but nothing is healed or notified: that apply
 *    may be half-way.
 * 3. Heal, when the flags allow some of the changes (drift/heal.ts): take the stack's lock
 *    while listing the live state again (as `gatehouse apply` does), plan again on that
 *    reading, select again, apply what is selected, release the lock. So two watchers never
 *    heal at once (the second finds the lock held, or nothing left to heal), and a watcher
 *    never races a pipeline.
 *
 * The stop signal (SIGTERM) ends a listing after its page in flight and starts no new change;
 * changes in flight finish and the lock is released before the cycle returns.
 */
import { hostname } from 'node:os';
import type { Connection } from '../connection/connect.js';
import type { EnvironmentRun } from '../environments/select.js';
import { formatProblem } from '../output.js';
import { LiveApiError, LockHeld, lockIsActive, lockOf, lockWhileReading, ManifestProblems, sanitize, type LockInfo } from '@gatehouse/engine/core';
import type { ReadingOptions } from '../manifest-flags.js';
import { executeApply, observe, planApply, readForApply, type ApplyRead, type Observation, type PrepareOptions } from '@gatehouse/engine/apply';
import { classifyDrift, selectHealable, type DriftReport, type HeldChange } from '@gatehouse/engine/drift';
import { lockWarnings } from '../stack-flags.js';
import type { ApplyOutcome, CycleOutcome } from './metrics.js';
import type { DriftedItem } from './notify.js';
import type { WatchSettings } from './settings.js';
import { Stopped, stoppableApi } from './stoppable-api.js';

/** One environment a watcher reconciles. */
export interface WatchedEnvironment {
  /** The gatehouse.yaml environment, or `default` without one: the metrics' and logs' label. */
  name: string;
  run: EnvironmentRun;
  connection: Connection;
  /**
   * The addresses the last cycle found live and matched to their manifests (set by each cycle
   * that read the live state): drift's evidence that one missing now was deleted by hand.
   */
  seenLive?: ReadonlySet<string>;
}

export interface CycleOptions {
  settings: WatchSettings;
  reading: ReadingOptions;
  stop: AbortSignal;
  /** Told of what does not end the cycle (a lock renewal or release that failed). */
  warn: (message: string) => void;
}

interface HealReport {
  outcome: ApplyOutcome | 'nothing';
  /** Addresses set right. */
  healed: string[];
  /** Addresses tried and not set right, with why. */
  failed: { address: string; reason: string }[];
  /** One sentence (a lock held, a refusal, an API failure). */
  message?: string;
}

export interface CycleReport {
  outcome: CycleOutcome;
  /** Requests the cycle sent (its client's attempts, retries included). */
  requests: number;
  /** Drifted objects before any heal (absent when the cycle failed before classifying). */
  drift?: DriftedItem[];
  /** Fields left alone by ignore rules that differ, over all objects. */
  ignoredFields?: number;
  /** Another holder's lock seen while reading: nothing was healed or notified. */
  lock?: LockInfo;
  heal?: HealReport;
  /** Changes the flags do not let the cycle apply: how many need each missing flag. */
  held?: Record<string, number>;
  error?: string;
  problems?: string[];
}

/** Runs one cycle; never throws for a failure of the manifests or the API (it is the report's). */
export async function runCycle(env: WatchedEnvironment, options: CycleOptions): Promise<CycleReport> {
  const before = env.connection.client.transport.counts.total;
  const requests = () => env.connection.client.transport.counts.total - before;
  try {
    const report = await reconcile(env, options);
    return { ...report, requests: requests() };
  } catch (error) {
    if (error instanceof Stopped || options.stop.aborted) return { outcome: 'interrupted', requests: requests() };
    return { outcome: 'failed', requests: requests(), ...describeFailure(error) };
  }
}

async function reconcile(env: WatchedEnvironment, options: CycleOptions): Promise<Omit<CycleReport, 'requests'>> {
  const { settings, stop } = options;
  const stack = env.connection.stack;
  const prepareOptions: PrepareOptions = {
    api: env.connection.api,
    stack,
    paths: env.run.paths,
    environment: env.run.environment,
    ...env.run.options,
    prune: settings.allow.prune,
  };
  const read = await readForApply({ ...prepareOptions, env: process.env, ...options.reading });
  if (stop.aborted) throw new Stopped();
  const observation = await observe(stoppableApi(env.connection.api, stop));
  const seenLive = env.seenLive;
  const { prepared, report } = planAndClassify(env, prepareOptions, read, observation, seenLive);
  env.seenLive = new Set(prepared.matching.pairs.map((pair) => pair.desired.address));
  const drift = report.objects.map(toCycleDrift);
  const ignoredFields = (prepared.plan.ignored ?? []).reduce((sum, o) => sum + o.fields.length, 0);
  const lock = lockOf(stack, observation.lockObjects.bots, observation.lockObjects.policies);
  // While an apply runs, report only. A lock whose holder died on this machine, the heal's own
  // lock takes over (as apply's does); a stale one makes the heal `locked`, saying to unlock it.
  if (lock && lockIsActive(lock)) return { outcome: 'success', drift, ignoredFields, lock };
  if (!settings.allow.outside && !settings.allow.git) return { outcome: 'success', drift, ignoredFields };

  const selection = selectHealable(prepared, report, settings.allow);
  const held = countHeld([
    ...selection.held,
    ...prepared.notPruned.map((c) => ({ address: c.address, cause: 'git' as const, needs: ['--prune', ...(settings.allow.git ? [] : ['--apply-git'])] })),
  ]);
  if (selection.selected.length === 0) return { outcome: 'success', drift, ignoredFields, held };
  const heal = await healUnderLock(
    env,
    options,
    prepareOptions,
    read,
    selection.selected.map((s) => s.address),
    seenLive,
  );
  return { outcome: heal.outcome === 'interrupted' ? 'interrupted' : 'success', drift, ignoredFields, held, heal };
}

/** The plan of `read` against one reading of the live state, and the drift its evidence shows. */
function planAndClassify(
  env: WatchedEnvironment,
  prepareOptions: PrepareOptions,
  read: ApplyRead,
  observation: Observation,
  seenLive: ReadonlySet<string> | undefined,
) {
  const prepared = planApply(prepareOptions, read, observation);
  const report = classifyDrift({
    matching: prepared.matching,
    desired: read.read.desired,
    stack: env.connection.stack,
    target: env.connection.target,
    requests: observation.requests,
    ...(seenLive ? { seenLive } : {}),
  });
  return { prepared, report };
}

/** Step 3: under the stack's lock, plan and select again on a fresh reading, and apply. */
async function healUnderLock(
  env: WatchedEnvironment,
  options: CycleOptions,
  prepareOptions: PrepareOptions,
  read: ApplyRead,
  wanted: string[],
  seenLive: ReadonlySet<string> | undefined,
): Promise<HealReport> {
  const { settings, stop, warn } = options;
  const { api, stack } = env.connection;
  const failedAll = (reason: string) => wanted.map((address) => ({ address, reason }));
  const lockWarned = lockWarnings(stack, warn);
  let held;
  try {
    held = await lockWhileReading(
      api,
      stack,
      {
        timeoutMs: settings.lockTimeoutMs,
        holder: `gatehouse watch on ${hostname()} (pid ${process.pid})`,
        ...lockWarned,
      },
      () => observe(stoppableApi(api, stop)),
      (observed) => observed.lockObjects.policies,
    );
  } catch (error) {
    if (error instanceof LockHeld) return { outcome: 'locked', healed: [], failed: [], message: `${sanitize(error.message)}; the next cycle tries again` };
    if (error instanceof Stopped || stop.aborted) return { outcome: 'interrupted', healed: [], failed: [] };
    const message = describeFailure(error).error;
    return { outcome: 'failed', healed: [], failed: failedAll(message), message };
  }
  const { lock, value: observation } = held;
  try {
    const { prepared, report } = planAndClassify(env, prepareOptions, read, observation, seenLive);
    const selection = selectHealable(prepared, report, settings.allow);
    // Another watcher (or a pipeline) set it right between the two readings.
    if (selection.selected.length === 0) return { outcome: 'nothing', healed: [], failed: [] };
    if (selection.prepared.refusals.length > 0) {
      const message = selection.prepared.refusals.map((r) => `${r.message} [${r.code}]`).join('; ');
      return {
        outcome: 'refused',
        healed: [],
        failed: selection.selected.map((s) => ({ address: s.address, reason: message })),
        message: `refused, nothing was written: ${sanitize(message)}`,
      };
    }
    const result = await executeApply(selection.prepared, api, { signal: AbortSignal.any([stop, lock.lost]) });
    const healed = result.steps.filter((s) => s.status === 'done').map((s) => s.address);
    const failed = result.steps.filter((s) => s.status !== 'done').map((s) => ({ address: s.address, reason: s.reason?.message ?? s.status }));
    const outcome: ApplyOutcome = result.interrupted || lock.lost.aborted ? 'interrupted' : result.ok ? 'done' : 'failed';
    return {
      outcome,
      healed,
      failed,
      ...(failed.length > 0
        ? { message: sanitize(`${failed.length} change${failed.length === 1 ? '' : 's'} not done: ${failed[0]!.address}: ${failed[0]!.reason}`) }
        : {}),
    };
  } catch (error) {
    const message = describeFailure(error).error;
    return { outcome: 'failed', healed: [], failed: failedAll(message), message };
  } finally {
    await lock.release().catch(lockWarned.onReleaseError);
  }
}

const toCycleDrift = (o: DriftReport['objects'][number]): DriftedItem => ({
  address: o.address,
  kind: o.kind,
  cause: o.drift,
  fields: o.fields.map((f) => f.path),
});

/** How many held changes need each flag. */
function countHeld(held: readonly HeldChange[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const change of held) for (const flag of change.needs) counts[flag] = (counts[flag] ?? 0) + 1;
  return counts;
}

/** A failure as the log line says it: the problems of the manifests, or one sanitized sentence. */
function describeFailure(error: unknown): { error: string; problems?: string[] } {
  if (error instanceof ManifestProblems) {
    const n = error.problems.length;
    return {
      error: `${n} problem${n === 1 ? '' : 's'} in the manifests; nothing was planned`,
      problems: error.problems.slice(0, 20).map((p) => formatProblem(p)),
    };
  }
  if (error instanceof LiveApiError) return { error: `the API failed: ${sanitize(error.message)}` };
  return { error: sanitize(error instanceof Error ? error.message : String(error)) };
}
