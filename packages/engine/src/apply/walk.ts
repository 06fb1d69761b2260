/**
 * Runs steps concurrently in dependency order, as Terraform's `internal/dag/walk.go` does:
 * a step starts as soon as the steps it depends on are done (not when a whole level is), at
 * most `parallelism` at a time; of the steps ready, those with the longest chain of steps
 * waiting for them first (`heights`). A failed step's dependents, and theirs, are skipped and
 * reported as such (cli-utils' filter of dependents of a failed step); independent steps go
 * on, so one failure never hides how far the rest got.
 *
 * Interrupt (`signal`): once aborted, no step starts; steps in flight may finish within
 * `graceMs` (default: as long as they take). When the grace ends first, the walk returns
 * anyway: steps still in flight are `cancelled` (their outcome is unknown), steps never
 * started (and their dependents) are `not_started`. Outcomes arriving after that are dropped.
 *
 * The input is expected to be acyclic (the plan orders it); a cycle or a dependency on an
 * unknown step is reported as `WalkError` before anything runs.
 */
import PQueue from 'p-queue';
import { append } from '../append.js';

export interface Step<T> {
  key: string;
  dependsOn: readonly string[];
  run(): Promise<T>;
}

export type StepOutcome<T> =
  | { key: string; status: 'done'; value: T; ms: number }
  | { key: string; status: 'failed'; error: unknown; ms: number }
  | { key: string; status: 'skipped'; because: string }
  /** Aborted before it started (it, or something it depends on, never ran). */
  | { key: string; status: 'not_started' }
  /** In flight when the grace after an abort ended: it may or may not have taken effect. */
  | { key: string; status: 'cancelled' };

export interface WalkOptions<T> {
  parallelism: number;
  /** Called once per step, in the order steps finish (or are skipped). */
  onOutcome?(outcome: StepOutcome<T>): void;
  /** Called when a step starts. */
  onStart?(key: string): void;
  /** Aborting it starts nothing new (see the module comment). */
  signal?: AbortSignal;
  /** After an abort, how long to wait for steps in flight (ms); unbounded when absent. */
  graceMs?: number;
}

export class WalkError extends Error {
  constructor(
    message: string,
    readonly keys: string[],
  ) {
    super(message);
    this.name = 'WalkError';
  }
}

export async function walk<T>(steps: readonly Step<T>[], options: WalkOptions<T>): Promise<StepOutcome<T>[]> {
  const byKey = new Map(steps.map((s) => [s.key, s]));
  const waitingOn = new Map<string, number>();
  const dependents = new Map<string, string[]>();
  for (const step of steps) {
    waitingOn.set(step.key, step.dependsOn.length);
    for (const dep of step.dependsOn) {
      if (!byKey.has(dep)) throw new WalkError(`step ${step.key} depends on unknown step ${dep}`, [step.key, dep]);
      append(dependents, dep, step.key);
    }
  }
  assertAcyclic(steps, dependents);

  const outcomes: StepOutcome<T>[] = [];
  const settled = new Set<string>();
  const queue = new PQueue({ concurrency: Math.max(1, options.parallelism) });

  const running = new Set<string>();
  let closed = false;
  const record = (outcome: StepOutcome<T>) => {
    running.delete(outcome.key);
    if (closed || settled.has(outcome.key)) return;
    settled.add(outcome.key);
    outcomes.push(outcome);
    options.onOutcome?.(outcome);
  };

  const skipDependentsOf = (failedKey: string, rootCause: string) => {
    for (const next of dependents.get(failedKey) ?? []) {
      if (settled.has(next)) continue;
      record({ key: next, status: 'skipped', because: rootCause });
      skipDependentsOf(next, rootCause);
    }
  };

  const priority = heights(steps, dependents);
  const start = (step: Step<T>) => {
    void queue.add(
      async () => {
        if (options.signal?.aborted) {
          record({ key: step.key, status: 'not_started' });
          return;
        }
        running.add(step.key);
        options.onStart?.(step.key);
        const began = performance.now();
        try {
          const value = await step.run();
          record({ key: step.key, status: 'done', value, ms: performance.now() - began });
        } catch (error) {
          record({ key: step.key, status: 'failed', error, ms: performance.now() - began });
          skipDependentsOf(step.key, step.key);
          return;
        }
        for (const next of dependents.get(step.key) ?? []) {
          const remaining = waitingOn.get(next)! - 1;
          waitingOn.set(next, remaining);
          if (remaining === 0 && !settled.has(next)) start(byKey.get(next)!);
        }
      },
      { priority: priority.get(step.key)! },
    );
  };

  // Highest first from the start too (the queue runs the first ones added at once).
  const roots = steps.filter((step) => step.dependsOn.length === 0);
  for (const step of roots.sort((a, b) => priority.get(b.key)! - priority.get(a.key)!)) start(step);
  await Promise.race([queue.onIdle(), graceAfterAbort(options.signal, options.graceMs)]);
  if (options.signal?.aborted) {
    for (const key of [...running]) record({ key, status: 'cancelled' });
    for (const step of steps) if (!settled.has(step.key)) record({ key: step.key, status: 'not_started' });
    queue.clear();
  }
  closed = true;
  return outcomes;
}

/**
 * Each step's height: the longest chain of steps that wait for it (0 for a step nothing waits
 * for). Ready steps start highest first (critical path first, FIFO among equals), so a step
 * that others wait for (a parent, the bot users before the registry write) is not queued
 * behind hundreds of independent ones and left to run alone at the end.
 */
function heights<T>(steps: readonly Step<T>[], dependents: Map<string, string[]>): Map<string, number> {
  const height = new Map<string, number>();
  const visit = (key: string): number => {
    const known = height.get(key);
    if (known !== undefined) return known;
    let h = 0;
    for (const next of dependents.get(key) ?? []) h = Math.max(h, visit(next) + 1);
    height.set(key, h);
    return h;
  };
  for (const step of steps) visit(step.key);
  return height;
}

/** Resolves `graceMs` after `signal` aborts; never without a signal or a bound. */
function graceAfterAbort(signal: AbortSignal | undefined, graceMs: number | undefined): Promise<void> {
  if (!signal || graceMs === undefined) return new Promise(() => undefined);
  return new Promise((resolve) => {
    const wait = () => setTimeout(resolve, graceMs).unref();
    if (signal.aborted) wait();
    else signal.addEventListener('abort', wait, { once: true });
  });
}

/** Kahn's algorithm over the whole input; names the steps left on a cycle. */
function assertAcyclic<T>(steps: readonly Step<T>[], dependents: Map<string, string[]>): void {
  const indegree = new Map(steps.map((s) => [s.key, s.dependsOn.length]));
  const ready = steps.filter((s) => s.dependsOn.length === 0).map((s) => s.key);
  let seen = 0;
  while (ready.length > 0) {
    const key = ready.pop()!;
    seen++;
    for (const next of dependents.get(key) ?? []) {
      const n = indegree.get(next)! - 1;
      indegree.set(next, n);
      if (n === 0) ready.push(next);
    }
  }
  if (seen < steps.length) {
    const stuck = [...indegree].filter(([, n]) => n > 0).map(([k]) => k);
    throw new WalkError(`steps depend on each other in a cycle: ${stuck.join(', ')}`, stuck);
  }
}
