/**
 * Apply's values: what it refuses before writing anything (one table of codes), and the result
 * it returns, per change and in summary. The CLI prints these; `--format json` prints the
 * result as it is (snake_case keys, like the plan's JSON).
 */
import type { RegistryWriteEnv } from '../bot-registry/writer.js';
import type { DesiredObject } from '../desired.js';
import type { LiveObject } from '../live.js';
import type { Action, Change, HeldDuplicate, PlanTargets, PruneScopeSummary, RequestUsage } from '../plan-model.js';

/** The central table of apply's refusal and step-failure codes: code -> what it means. */
export const APPLY_CODES = {
  stale_manifests: 'the documents of a manifest file changed since the saved plan was made (a file named; comments and formatting do not count)',
  stale_plan_stack: 'the saved plan was made for another stack',
  stale_plan_environment: 'the saved plan was made for another environment of gatehouse.yaml (--env)',
  stale_object: 'a live object changed since the saved plan recorded its fingerprint',
  prevent_destroy: 'a delete or replace of an object whose manifest or marker says lifecycle.prevent_destroy',
  delete_threshold: 'the plan deletes or replaces more than 30% of the top-level objects the stack owns (more than 10), or of one kind (more than 3)',
  not_owned: 'a delete of an object this stack does not own',
  api_failure: 'the API refused a request or could not be reached',
  dependency_failed: 'a change this one depends on failed, was stale or was not done',
  interrupted: 'apply was interrupted (Ctrl-C, SIGTERM) before this change began or finished',
} as const;
export type ApplyCode = keyof typeof APPLY_CODES;

/** Something apply will not do; `address` names the change, `message` says what to do. */
export interface Refusal {
  code: ApplyCode;
  address?: string;
  message: string;
}

/** Thrown by `applyPlan` when refusals stop the whole apply before anything is written. */
export class ApplyRefused extends Error {
  constructor(readonly refusals: Refusal[]) {
    super(`apply refused, nothing was written: ${refusals.map((r) => r.message).join('; ')}`);
    this.name = 'ApplyRefused';
  }
}

/**
 * `not_started`: apply was interrupted before the change began. `cancelled`: it was in flight
 * when apply stopped waiting after an interrupt; it may or may not have taken effect.
 */
export type StepStatus = 'done' | 'failed' | 'skipped' | 'cancelled' | 'not_started';

/** The outcome of one change of the plan (a replace is one step with two parts). */
export interface StepResult {
  address: string;
  kind: string;
  name: string;
  action: Action;
  /** Live id after the step (the new id of a create or replace), or before a delete. */
  id: string | null;
  status: StepStatus;
  /** Wall time of the step's requests, retries and look-ups included; 0 when skipped. */
  duration_ms: number;
  /** Why a step that the plan did not show was done (a re-point, a marker refresh). */
  note?: string;
  /** Why a step failed or was skipped (code and a sentence naming the cause). */
  reason?: { code: ApplyCode; message: string };
  /** API requests the step made (retries by the client not counted). */
  requests: number;
}

export interface ApplySummary {
  done: number;
  failed: number;
  skipped: number;
  /** In flight when an interrupted apply stopped waiting (outcome unknown). */
  cancelled: number;
  /** Not begun because apply was interrupted. */
  not_started: number;
  /** Deletes the plan has that were not done because `--prune` was not given. */
  not_pruned: number;
  /** Changes in the live state that the saved plan did not list (left alone). */
  not_in_plan: number;
  /** Changes of a saved plan skipped because their object already matched the planned result. */
  already_done: number;
}

export interface ApplyResult {
  stack: string;
  target: { url: string; embedded: boolean };
  /** True when every step is done. */
  ok: boolean;
  /** True when an interrupt (Ctrl-C, SIGTERM) stopped apply from starting what was left. */
  interrupted: boolean;
  steps: StepResult[];
  /** Deletes left undone without `--prune`, by address. */
  not_pruned: { address: string; kind: string; name: string; id: string | null }[];
  summary: ApplySummary;
  duration_ms: number;
  /** Duplicates left in place: objects gatehouse does not change reference them (plan/duplicate-holds.ts). */
  held_duplicates?: HeldDuplicate[];
  /** The targets of a targeted apply (`--target`, or a saved targeted plan); absent otherwise. */
  targets?: PlanTargets;
  /** The plan's prune scope when it left owned objects outside it, or was `--prune-all` (plan/prune-scope.ts). */
  prune_scope?: PruneScopeSummary;
  /** Every request of the apply (the listing, the lock's and the writes) and what it spent of the API's budget (the CLI fills it in). */
  api_requests?: RequestUsage;
}

export function summarize(steps: StepResult[], notPruned: number, notInPlan: number, alreadyDone = 0): ApplySummary {
  const count = (status: StepStatus) => steps.filter((s) => s.status === status).length;
  return {
    done: count('done'),
    failed: count('failed'),
    skipped: count('skipped'),
    cancelled: count('cancelled'),
    not_started: count('not_started'),
    not_pruned: notPruned,
    not_in_plan: notInPlan,
    already_done: alreadyDone,
  };
}

/** One change as apply runs it, with the objects behind it. */
export interface Subject {
  change: Change;
  desired?: DesiredObject;
  live?: LiveObject;
  /** Why this change will not run (stale), if so. */
  stale?: Refusal;
  /**
   * A write that belongs to no kind descriptor (the bot user registry): it runs after the
   * changes its `change.dependsOn` names, and does its own requests.
   */
  bookkeeping?: (env: RegistryWriteEnv) => Promise<{ id: string | null; requests: number }>;
}
