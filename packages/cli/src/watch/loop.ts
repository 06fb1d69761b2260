/**
 * The loop of `gatehouse watch`: a cycle every interval until the stop signal, then return.
 *
 * - With `--git-pull`, the repository is pulled first; a failed pull skips the cycle of every
 *   environment (one log line each, saying why), and the next interval tries again.
 * - Environments run concurrently, except those that share a connection (one API, one budget),
 *   which run one after the other, so that each cycle's request count is its own.
 * - A cycle starts one interval after the previous one started, or at once when that one took
 *   longer: cycles never overlap.
 * - After each cycle of an environment: one JSON line on stdout (log.ts), the metrics, the
 *   health, and the notifications its findings call for (sent in order, in the background, so
 *   that a slow webhook never delays a cycle; waited for at the end).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { SERVICE_BUDGET } from '@gatehouse/client';
import type { WatchedEnvironment, CycleOptions, CycleReport } from './cycle.js';
import { runCycle } from './cycle.js';
import { gitPull } from './git.js';
import type { Health } from './health.js';
import { cycleLine } from './log.js';
import type { WatchMetrics } from './metrics.js';
import type { DriftNotifier, Notification } from './notify.js';

export interface LoopOptions extends CycleOptions {
  /** Groups of environments: each group shares a connection and runs in order. */
  groups: WatchedEnvironment[][];
  metrics: WatchMetrics;
  health: Health;
  notifier?: { states: DriftNotifier; send(notification: Notification): Promise<void> };
  /** The repository directory to pull before each cycle (`--git-pull`). */
  gitDirectory?: string;
  /** Writes one line on stdout. */
  write: (line: string) => void;
}

/**
 * The service's budget per account, in requests a minute (the client's `SERVICE_BUDGET`: 120 per
 * rolling 60 s). A watcher whose cycles alone would spend more than half of it at its interval
 * is told so, once per environment.
 */
const SERVICE_REQUESTS_PER_MINUTE = (SERVICE_BUDGET.requests * 60_000) / SERVICE_BUDGET.windowMs;

export async function watchLoop(options: LoopOptions): Promise<void> {
  const { stop, settings } = options;
  let notifying: Promise<void> = Promise.resolve();
  const warnedBudget = new Set<string>();
  for (let cycle = 1; !stop.aborted; cycle++) {
    const started = Date.now();
    let commit: string | undefined;
    let skipped: string | undefined;
    if (options.gitDirectory !== undefined) {
      const pulled = await gitPull(options.gitDirectory, stop);
      if (stop.aborted) break;
      if (pulled.ok) commit = pulled.commit;
      else skipped = `git pull failed, cycle skipped: ${pulled.reason ?? 'unknown error'}`;
    }
    await Promise.all(
      options.groups.map(async (group) => {
        for (const env of group) {
          const began = Date.now();
          const report: CycleReport = skipped !== undefined ? { outcome: 'skipped', requests: 0, error: skipped } : await runCycle(env, options);
          const ended = new Date();
          record(options, env, report, (ended.getTime() - began) / 1000, ended);
          const perMinute = (report.requests * 60_000) / settings.intervalMs;
          if (perMinute > SERVICE_REQUESTS_PER_MINUTE / 2 && !warnedBudget.has(env.name)) {
            warnedBudget.add(env.name);
            options.warn(
              `environment ${env.name}: a cycle took ${report.requests} requests, so every ${settings.intervalMs / 1000} s is about ${Math.round(perMinute)} a minute, over half of the ${SERVICE_REQUESTS_PER_MINUTE} a minute the service allows an account (shared with pipelines and people); choose a longer --interval`,
            );
          }
          options.write(
            cycleLine({
              cycle,
              environment: env.name,
              stack: env.connection.stack,
              report,
              durationMs: ended.getTime() - began,
              at: ended,
              ...(commit !== undefined ? { commit } : {}),
            }),
          );
          const notifier = options.notifier;
          if (notifier && report.drift && !report.lock && report.outcome !== 'interrupted') {
            const messages = notifier.states.observe({
              environment: env.name,
              stack: env.connection.stack,
              drifted: report.drift,
              healed: report.heal?.healed ?? [],
              failed: report.heal?.failed ?? [],
            });
            for (const message of messages) notifying = notifying.then(() => notifier.send(message));
          }
        }
      }),
    );
    const wait = started + settings.intervalMs - Date.now();
    if (wait > 0 && !stop.aborted) await sleep(wait, undefined, { signal: stop }).catch(() => undefined);
  }
  await notifying;
}

/** Metrics and health of one cycle of one environment. */
function record(options: LoopOptions, env: WatchedEnvironment, report: CycleReport, seconds: number, ended: Date): void {
  const { metrics, health } = options;
  metrics.cycle(env.name, report.outcome, seconds, ended);
  health.cycleEnded(env.name, report.outcome, ended);
  if (report.heal && report.heal.outcome !== 'nothing') metrics.applied(env.name, report.heal.outcome);
  if (!report.drift) return;
  const healed = new Set(report.heal?.healed ?? []);
  metrics.setDrift(
    env.name,
    report.drift.filter((d) => !healed.has(d.address)),
    report.drift,
  );
  metrics.healed(
    env.name,
    report.drift.filter((d) => healed.has(d.address)),
  );
}
