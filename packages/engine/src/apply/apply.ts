/**
 * Step 7, apply: the orchestrator.
 *
 * 1. `prepareApply`: plan (or check a saved plan), set deletes aside without `--prune`,
 *    collect refusals. Nothing is written; refusals stop here (`ApplyRefused`).
 * 2. `buildParts`: each change becomes one or two parts with their dependencies.
 * 3. `walk`: parts run as soon as their own dependencies are done, `parallelism` at a time;
 *    dependents of a failed or stale part are skipped.
 * 4. Per change, once all its parts settled: a `StepResult` (reported through `onStep`), then
 *    the summary.
 */
import { liveObjectsById, referenceTokens } from '../plan/reference-tokens.js';
import type { LiveApi } from '../ports.js';
import { LiveApiError } from '../ports.js';
import { executePart, StaleChange, type PartValue } from './execute.js';
import { buildParts, type Part } from './graph.js';
import { ApplyRefused, summarize, type ApplyResult, type StepResult } from './model.js';
import { prepareApply, type PrepareOptions, type PreparedApply } from './prepare.js';
import { walk, type StepOutcome } from './walk.js';
import { append } from '../append.js';

export const DEFAULT_PARALLELISM = 10;

export interface RunOptions {
  /** Parts running at once (default 10). */
  parallelism?: number;
  /** Called once per change when it is done, failed or skipped. */
  onStep?(result: StepResult): void;
  /** Called when a change starts its first request. */
  onStart?(address: string): void;
  /** Interrupt: aborting it starts no new change (see `walk`). */
  signal?: AbortSignal;
  /** After an interrupt, how long changes in flight may take before apply stops waiting (ms). */
  graceMs?: number;
}

/** How long an interrupted apply waits for requests in flight (the bound). */
export const INTERRUPT_GRACE_MS = 30_000;

export type ApplyOptions = PrepareOptions & RunOptions;

/** Prepares, refuses (throws `ApplyRefused`) or runs. */
export async function applyPlan(options: ApplyOptions): Promise<ApplyResult> {
  return executeApply(await prepareApply(options), options.api, options);
}

/** Runs a prepared apply; refuses when it has refusals. */
export async function executeApply(prepared: PreparedApply, api: LiveApi, options: RunOptions = {}): Promise<ApplyResult> {
  if (prepared.refusals.length > 0) throw new ApplyRefused(prepared.refusals);
  const began = performance.now();
  const parts = buildParts(prepared.subjects, prepared.matching);
  const env = {
    api,
    stack: prepared.stack,
    ids: prepared.ids,
    addresses: prepared.addresses,
    tokens: referenceTokens(prepared.matching),
    objects: liveObjectsById(prepared.matching),
    metadataFor: prepared.metadataFor,
  };

  // Parts per change, to report a change once all of its parts settled.
  const partsOf = new Map<string, Part[]>();
  for (const part of parts) append(partsOf, part.subject.change.address, part);
  const outcomes = new Map<string, StepOutcome<PartValue>>();
  const partByKey = new Map(parts.map((p) => [p.key, p]));
  const started = new Set<string>();
  const results: StepResult[] = [];

  const settle = (outcome: StepOutcome<PartValue>) => {
    outcomes.set(outcome.key, outcome);
    const address = partByKey.get(outcome.key)!.subject.change.address;
    const mine = partsOf.get(address)!;
    if (!mine.every((p) => outcomes.has(p.key))) return;
    const result = stepResult(mine, outcomes, partByKey, prepared.redact ?? ((text) => text));
    results.push(result);
    options.onStep?.(result);
  };

  await walk(
    parts.map((part) => ({ key: part.key, dependsOn: part.dependsOn, run: () => executePart(part, env) })),
    {
      parallelism: options.parallelism ?? DEFAULT_PARALLELISM,
      onOutcome: settle,
      ...(options.signal ? { signal: options.signal, graceMs: options.graceMs ?? INTERRUPT_GRACE_MS } : {}),
      onStart: (key) => {
        const address = partByKey.get(key)!.subject.change.address;
        if (!started.has(address)) {
          started.add(address);
          options.onStart?.(address);
        }
      },
    },
  );

  const notPruned = prepared.notPruned.map((c) => ({ address: c.address, kind: c.kind, name: c.name, id: c.id }));
  return {
    stack: prepared.stack,
    target: api.target,
    ok: results.every((r) => r.status === 'done'),
    interrupted: options.signal?.aborted === true,
    steps: results,
    not_pruned: notPruned,
    summary: summarize(results, notPruned.length, prepared.notInPlan.length, prepared.alreadyDone.length),
    duration_ms: Math.round(performance.now() - began),
    ...(prepared.plan.held_duplicates ? { held_duplicates: prepared.plan.held_duplicates } : {}),
    ...(prepared.plan.targets ? { targets: prepared.plan.targets } : {}),
    ...(prepared.plan.prune_scope ? { prune_scope: prepared.plan.prune_scope } : {}),
  };
}

/** One change's result from its parts' outcomes. */
function stepResult(parts: Part[], outcomes: Map<string, StepOutcome<PartValue>>, partByKey: Map<string, Part>, redact: (text: string) => string): StepResult {
  const { change } = parts[0]!.subject;
  const repoint = parts.every((p) => p.kind === 'repoint');
  const own = parts.map((p) => outcomes.get(p.key)!);
  const failed = own.find((o) => o.status === 'failed');
  const skipped = own.find((o) => o.status === 'skipped');
  const cancelled = own.some((o) => o.status === 'cancelled');
  const notStarted = own.some((o) => o.status === 'not_started');
  const done = own.filter((o): o is Extract<StepOutcome<PartValue>, { status: 'done' }> => o.status === 'done');
  const created = done.find((o) => o.key.endsWith('#create'));
  const base = {
    address: change.address,
    kind: change.kind,
    name: change.name,
    action: repoint ? ('update' as const) : change.action,
    id: created?.value.id ?? change.id,
    duration_ms: Math.round(own.reduce((sum, o) => sum + ('ms' in o ? o.ms : 0), 0)),
    requests: done.reduce((sum, o) => sum + o.value.requests, 0),
    ...(repoint || change.cause !== undefined ? { note: change.reason ?? 'ownership marker refreshed' } : {}),
  };
  if (failed && failed.status === 'failed') {
    const error = failed.error;
    if (error instanceof StaleChange) return { ...base, status: 'failed', reason: { code: 'stale_object', message: error.message } };
    const message = error instanceof LiveApiError ? `${error.message}${error.retryable ? ' (retried; run apply again)' : ''}` : (error as Error).message;
    // The API may quote what it was sent: a secret variable's value is never shown.
    return { ...base, status: 'failed', reason: { code: 'api_failure', message: redact(message) } };
  }
  const partly = done.length > 0 ? ' (partly done: some of its requests were made)' : '';
  if (cancelled)
    return {
      ...base,
      status: 'cancelled',
      reason: { code: 'interrupted', message: `in flight when apply was interrupted; it may or may not have taken effect${partly}` },
    };
  if (notStarted && !skipped)
    return { ...base, status: 'not_started', reason: { code: 'interrupted', message: `not started: apply was interrupted${partly}` } };
  if (skipped && skipped.status === 'skipped') {
    const cause = outcomes.get(skipped.because);
    const causeAddress = partByKey.get(skipped.because)?.subject.change.address ?? skipped.because;
    const why = cause?.status === 'failed' && cause.error instanceof StaleChange ? 'is stale' : 'failed';
    return { ...base, status: 'skipped', reason: { code: 'dependency_failed', message: `not done: ${causeAddress}, which it depends on, ${why}` } };
  }
  return { ...base, status: 'done' };
}
