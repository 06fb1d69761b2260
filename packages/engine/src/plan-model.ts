/**
 * The plan as a value (types only: the planner is plan/plan.ts): computed by `plan`, printed by the CLI's renderers (text, json,
 * markdown), saved with `--out`, and consumed by `apply`. It never holds a secret: sensitive
 * values are replaced by `SENSITIVE` markers, so a saved plan is a proof of what was reviewed,
 * not a payload. Apply recomputes the desired objects from the manifests (whose checksum the
 * plan records) and refuses changes whose live object no longer has the recorded fingerprint.
 */
import type { PolicyResult } from './policy/model.js';
import type { LockInfo } from './lock/record.js';
import type { SourceLocation } from './source.js';

/** The version of the saved plan's format (`docs/plan-json.md`). */
export type PlanFormatVersion = 1;

export type Action = 'create' | 'update' | 'delete' | 'replace';

/** Why a live object is a duplicate (plan/duplicates.ts). */
export type DuplicateCause = 'duplicate' | 'interrupted_replace';

/** An object that references a duplicate and that this run does not change. */
export interface DuplicateReferrer {
  kind: string;
  id: string;
  /** `stack "name"`, `not managed by gatehouse`, or this stack's, `no longer declared`. */
  owner: string;
}

/** A duplicate that is not deleted, and why (plan/duplicate-holds.ts). */
export interface HeldDuplicate {
  /** Its address in plans: `<Kind>/<name>#<id>`. */
  address: string;
  kind: string;
  id: string;
  /** The object kept in its place. */
  keep: string;
  cause: DuplicateCause;
  referenced_by: DuplicateReferrer[];
  /** One sentence: what references it and what to do. */
  message: string;
}

/** One field of an update: its dotted path (`routes[0].oidc.scopes`), old and new value. */
export interface FieldChange {
  path: string;
  before: unknown;
  after: unknown;
  sensitive: boolean;
}

/** RFC 6902 operation, as in the JSON plan's `patch`. */
export interface PatchOperation {
  op: 'add' | 'remove' | 'replace';
  path: string;
  value?: unknown;
}

export interface Change {
  /** Stable address of the object: `IPPolicy/office`, `IPPolicyRule/office/10.0.0.0/8`. */
  address: string;
  action: Action;
  /** Kind of the API object (`IPPolicy`, `IPPolicyRule`, `HTTPSEdge`, `HTTPSEdgeRoute`...). */
  kind: string;
  /** Name shown to people (`office`, `api path_prefix:/`). */
  name: string;
  /** Live id; null for a create. */
  id: string | null;
  /** Live object before the change, normalized and masked; null for a create. */
  before: Record<string, unknown> | null;
  /** Desired object after the change, normalized and masked; null for a delete. */
  after: Record<string, unknown> | null;
  /** Changed fields of an update or replace (empty for create and delete). */
  fields: FieldChange[];
  /** RFC 6902 patch from `before` to `after` (masked values). */
  patch: PatchOperation[];
  /** Addresses of the changes that must finish before this one starts. */
  dependsOn: string[];
  /** Why an object is replaced rather than updated (`type cannot be updated`). */
  reason?: string;
  /** Where the desired object is declared; absent for deletes. */
  source?: SourceLocation;
  /**
   * Why apply writes an object whose fields do not change: `marker` (the ownership marker is
   * refreshed), `repoint` (it references an object that is replaced, and is pointed at the new
   * one), `adopt` (it is taken into this stack), `registry` (the stack's bot user registry,
   * `BotUserRegistry/<stack>`, records which bot users it manages: bot-registry/registry.ts).
   * Absent for ordinary changes.
   */
  cause?: 'marker' | 'repoint' | 'adopt' | 'registry';
  /** A delete that runs only with `--prune` (the plan was made without it): shown, not counted. */
  needsPrune?: boolean;
  /**
   * On the delete of a duplicate (same stack and address as `keep`, plan/duplicates.ts):
   * apply runs it without --prune, after re-pointing references to `keep`.
   */
  duplicate?: { keep: string; cause: DuplicateCause };
}

/**
 * A declared object whose live value differs in fields an ignore rule names
 * (`lifecycle.ignore_changes`, gatehouse.yaml `ignore:`; plan/ignore.ts): those fields are
 * left as they are live, never changed, never drift.
 */
export interface IgnoredObject {
  address: string;
  kind: string;
  name: string;
  id: string;
  /** The ignored fields that differ, by dotted path (`description`, `circuit_breaker.tripped_duration`). */
  fields: string[];
}

/**
 * A collection the API would not list for this account (plan/unreadable.ts): 404 (not served)
 * or 403 (the account's plan lacks it). Its objects were not read: none is compared, listed as
 * unmanaged or deleted.
 */
export interface UnreadableKind {
  kind: string;
  /** The list path that failed (`/backends/static`). */
  path: string;
  status: number;
  /** The API's `error_code`, when it gave one. */
  code?: string;
  /** Kinds read inline from it, unread with it (an HTTPS edge's routes). */
  with?: string[];
}

/** An object whose write-only secrets a plan cannot compare with what was last sent. */
export interface SecretsNotCompared {
  address: string;
  /** Dotted paths of the secrets (`target.kinesis.auth.creds.aws_secret_access_key`). */
  fields: string[];
  /** Why, and what to do. */
  why: string;
}

/** A live object that no manifest declares and this stack does not own: listed, never touched. */
export interface UnmanagedObject {
  kind: string;
  id: string;
  /** A human hint: its name, description or natural key. */
  label: string;
}

export interface PlanSummary {
  create: number;
  update: number;
  delete: number;
  replace: number;
  unchanged: number;
  /**
   * Deletes that run only with `--prune` (not counted in `delete`). Optional: plans saved
   * before it was added have none.
   */
  not_pruned?: number;
}

export interface Plan {
  /** The stack's lock when an apply held it while the plan was made (lock/record.ts). */
  lock?: LockInfo;
  format_version: PlanFormatVersion;
  target: { url: string; embedded: boolean };
  stack: string;
  /**
   * `--from-stack`: the stack this plan moves objects from (plan/stacks.ts). Absent without
   * it; `apply --plan` applies a saved plan with the same one.
   */
  from_stack?: string;
  /** RFC 3339 time the live state was read. */
  created_at: string;
  summary: PlanSummary;
  /** In an order that respects `dependsOn` (parents first for creates, children first for deletes). */
  changes: Change[];
  /**
   * Duplicates that are not deleted because an object of another stack, or one gatehouse does
   * not manage, references them (plan/duplicate-holds.ts): what references each, what to do.
   */
  held_duplicates?: HeldDuplicate[];
  unmanaged: UnmanagedObject[];
  /**
   * Kinds the account cannot list (plan/unreadable.ts): the plan went on without them, so it
   * neither changes nor prunes any of their objects. Absent when every list was read.
   */
  unreadable?: UnreadableKind[];
  /**
   * Declared objects whose live value differs only where, or also where, an ignore rule says to
   * leave it: each with the fields left alone. Absent when there are none.
   */
  ignored?: IgnoredObject[];
  /**
   * Write-only secrets of objects this plan does not write that it cannot compare (their digest
   * is not in the ownership marker: plan/write-only-secrets.ts), each object with the fields and
   * why. Absent when there are none.
   */
  secrets_not_compared?: SecretsNotCompared[];
  /** Fingerprint of each live object a change affects, as read: id -> sha256 of its content. */
  fingerprints: Record<string, string>;
  /** sha256 over the manifests' files, in path order, that the plan was computed from. */
  manifest_checksum: string;
  /**
   * Each manifest file the plan was computed from (as problems name it), with the sha256 of its
   * documents as parsed, and with `--env` the environment's variables: apply names the files
   * whose documents changed since (comments and formatting do not count). Optional: plans
   * saved before it was recorded are judged by `manifest_checksum`.
   */
  manifest_files?: Record<string, string>;
  /** API requests spent reading live state. */
  requests: number;
  /** Every request the command sent and what it spent of the API's budget (the CLI's client counts them). */
  api_requests?: RequestUsage;
  /**
   * The manifest paths (files or directories, as given, relative to the working directory)
   * the plan was computed from, so `apply --plan FILE` can read them again. Optional: plans
   * saved before it was added have none (apply then needs the paths on its command line).
   */
  manifest_paths?: string[];
  /**
   * Policy rules the plan's objects do not meet (policy files, `--policy`), errors first. Absent
   * when no rule was evaluated. A plan with an error here fails `gatehouse plan` (exit 1).
   */
  policy_results?: PolicyResult[];
  /** The environment of gatehouse.yaml the plan was computed for (`--env`), if any. */
  environment?: string;
  /**
   * Present on a targeted plan (`--target`, plan/targets.ts): only the targets' changes and
   * what they depend on, never a delete. `apply --plan` applies it with the same targets.
   */
  targets?: PlanTargets;
  /**
   * The prune scope (plan/prune-scope.ts), present when the plan was made with `--prune-all`
   * or when owned objects the manifests do not declare lay outside the PATHs read. Absent:
   * scoped to the PATHs, nothing left outside (or a plan saved before scopes existed).
   */
  prune_scope?: PruneScopeSummary;
}

/** The `--target` values of a targeted plan and what they matched (plan/targets.ts). */
export interface PlanTargets {
  /** As given, in order, without repeats. */
  requested: string[];
  /** Targets that matched no declared object and no live object this stack owns. */
  unmatched: string[];
  /**
   * Targets that matched only owned live objects the manifests no longer declare: deletes,
   * which a targeted plan never makes. Absent in drift reports (drift lists those objects).
   */
  undeclared?: string[];
}

/** What a plan's prune scope was and what it left alone. */
export interface PruneScopeSummary {
  /** `paths`: deletes only of objects applied from the PATHs read; `all`: `--prune-all`. */
  mode: 'paths' | 'all';
  /** The PATHs as the ownership markers record paths (relative to the repository root; directories end with `/`). */
  paths: string[];
  /** Owned objects not declared in what was read and outside the scope: not deleted, not listed as changes. */
  outside: number;
  /** `outside` per kind. */
  outside_kinds: Record<string, number>;
  /** Of `outside`, the objects whose marker records no manifest path (applied before gatehouse recorded it). */
  outside_without_path: number;
  /** Standard input was read: its manifests have no file, so they widen no scope. */
  stdin?: boolean;
}

/**
 * What a command spent of the API's request budget, as its client counted (the engine never
 * counts: the CLI fills it in). In the plan, apply and drift JSON (`api_requests`).
 */
export interface RequestUsage {
  /** Attempts sent, retries, look-ups and the lock's requests included. */
  total: number;
  by_method: { GET: number; POST: number; PATCH: number; PUT: number; DELETE: number };
  /** Of `total`, the attempts the API refused with 429. */
  rate_limited: number;
  /** The budget the requests were paced to; null when not paced (the embedded server, `--rate-limit off`). */
  budget: { requests: number; window_seconds: number } | null;
  /** `total` over the budget's requests: the share of one window's budget spent (1.5: a window and a half); null without a budget. */
  budget_share: number | null;
}
