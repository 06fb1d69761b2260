/**
 * The plan as JSON, format_version 1 (documented in docs/plan-json.md): what
 * scripts read, what `--out` saves and what `apply --plan` consumes. `parsePlanJson` is its
 * inverse and refuses other versions. Keys are snake_case like the API's.
 */
import type { Change, Plan, PlanFormatVersion } from '../plan-model.js';
import { renderJsonDocument } from './values.js';

/** The saved plan's format version this gatehouse writes and reads (`docs/plan-json.md`). */
export const PLAN_FORMAT_VERSION: PlanFormatVersion = 1;

export interface JsonChange {
  address: string;
  action: Change['action'];
  kind: string;
  name: string;
  id: string | null;
  before: Change['before'];
  after: Change['after'];
  patch: Change['patch'];
  fields: Change['fields'];
  depends_on: string[];
  reason?: string;
  source?: Change['source'];
  cause?: Change['cause'];
  needs_prune?: boolean;
  duplicate?: Change['duplicate'];
}

export type JsonPlan = Omit<Plan, 'changes'> & { changes: JsonChange[] };

export function toJsonPlan(plan: Plan): JsonPlan {
  return {
    format_version: plan.format_version,
    target: plan.target,
    stack: plan.stack,
    ...(plan.from_stack !== undefined ? { from_stack: plan.from_stack } : {}),
    created_at: plan.created_at,
    summary: plan.summary,
    changes: plan.changes.map((c) => ({
      address: c.address,
      action: c.action,
      kind: c.kind,
      name: c.name,
      id: c.id,
      before: c.before,
      after: c.after,
      patch: c.patch,
      fields: c.fields,
      depends_on: c.dependsOn,
      ...(c.reason !== undefined ? { reason: c.reason } : {}),
      ...(c.source !== undefined ? { source: c.source } : {}),
      ...(c.cause !== undefined ? { cause: c.cause } : {}),
      ...(c.needsPrune ? { needs_prune: true } : {}),
      ...(c.duplicate !== undefined ? { duplicate: c.duplicate } : {}),
    })),
    ...(plan.held_duplicates !== undefined ? { held_duplicates: plan.held_duplicates } : {}),
    unmanaged: plan.unmanaged,
    ...(plan.unreadable !== undefined ? { unreadable: plan.unreadable } : {}),
    ...(plan.ignored !== undefined ? { ignored: plan.ignored } : {}),
    ...(plan.secrets_not_compared !== undefined ? { secrets_not_compared: plan.secrets_not_compared } : {}),
    fingerprints: plan.fingerprints,
    manifest_checksum: plan.manifest_checksum,
    ...(plan.manifest_files !== undefined ? { manifest_files: plan.manifest_files } : {}),
    requests: plan.requests,
    ...(plan.api_requests !== undefined ? { api_requests: plan.api_requests } : {}),
    ...(plan.manifest_paths !== undefined ? { manifest_paths: plan.manifest_paths } : {}),
    ...(plan.policy_results !== undefined ? { policy_results: plan.policy_results } : {}),
    ...(plan.environment !== undefined ? { environment: plan.environment } : {}),
    ...(plan.lock !== undefined ? { lock: plan.lock } : {}),
    ...(plan.targets !== undefined ? { targets: plan.targets } : {}),
    ...(plan.prune_scope !== undefined ? { prune_scope: plan.prune_scope } : {}),
  };
}

/**
 * Pretty-printed, with a final newline; `format_version` and `target` come first, after a
 * `notice` when the plan was made against the embedded server.
 */
export function renderJson(plan: Plan): string {
  return renderJsonDocument(toJsonPlan(plan), plan.target);
}

/**
 * Whether a file's first two lines are those of a saved plan (`renderJson`'s: `format_version`
 * first, after a `notice` line for the embedded server): `plan --out` replaces such a file and
 * nothing else.
 */
export function isSavedPlanText(beginning: string): boolean {
  return /^\{\s*(?:"notice": [^\n]*\n\s*)?"format_version": /.test(beginning);
}

export class PlanFormatError extends Error {
  override name = 'PlanFormatError';
}

/** Reads a saved plan back; throws `PlanFormatError` saying what is wrong. */
export function parsePlanJson(text: string): Plan {
  let data: Partial<JsonPlan>;
  try {
    data = JSON.parse(text) as Partial<JsonPlan>;
  } catch (error) {
    throw new PlanFormatError(`not JSON: ${(error as Error).message}`);
  }
  if (data === null || typeof data !== 'object') throw new PlanFormatError('a plan is a JSON object');
  if (data.format_version !== PLAN_FORMAT_VERSION) {
    throw new PlanFormatError(`format_version ${String(data.format_version)} is not supported; this gatehouse reads version ${PLAN_FORMAT_VERSION}`);
  }
  for (const key of ['target', 'stack', 'summary', 'changes', 'unmanaged', 'fingerprints', 'manifest_checksum'] as const) {
    if (data[key] === undefined) throw new PlanFormatError(`the plan has no '${key}'`);
  }
  if (!Array.isArray(data.changes)) throw new PlanFormatError("'changes' must be an array");
  if (data.targets !== undefined && !(Array.isArray(data.targets?.requested) && data.targets.requested.every((t) => typeof t === 'string'))) {
    throw new PlanFormatError("'targets.requested' must be an array of strings");
  }
  if (data.from_stack !== undefined && typeof data.from_stack !== 'string') throw new PlanFormatError("'from_stack' must be a string");
  const files = data.manifest_files as unknown;
  if (files !== undefined && (files === null || typeof files !== 'object' || Array.isArray(files) || Object.values(files).some((v) => typeof v !== 'string'))) {
    throw new PlanFormatError("'manifest_files' must map each file to its checksum");
  }
  const { changes, notice: _notice, ...rest } = data as JsonPlan & { notice?: unknown };
  return {
    ...rest,
    requests: rest.requests ?? 0,
    changes: changes.map(({ depends_on, needs_prune, ...c }) => ({ ...c, dependsOn: depends_on ?? [], ...(needs_prune ? { needsPrune: true } : {}) })),
  };
}
