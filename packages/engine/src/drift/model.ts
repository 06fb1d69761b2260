/**
 * Drift as a value: what `detectDrift` finds and what the renderers print. Its JSON form
 * (`format_version` 1) is documented in docs/drift-json.md; alerting
 * pipelines read it, so fields are only ever added, never renamed or removed, within a version.
 * It never holds a secret: sensitive values are `SENSITIVE` / `SENSITIVE_CHANGED` markers.
 */
import type { Action, PlanTargets, RequestUsage, UnmanagedObject, UnreadableKind } from '../plan-model.js';
import type { LockInfo } from '../lock/record.js';
import type { SourceLocation } from '../source.js';

export const DRIFT_FORMAT_VERSION = 1;

/**
 * Why an object or field differs:
 * - `changed_in_manifests`: live still matches what gatehouse last applied (the marker's
 *   hash); the manifests changed since (edited, added by `adopt:`, or removed).
 * - `changed_outside`: live no longer matches what gatehouse last applied.
 * - `changed`: it differs, and there is no evidence of the cause (no marker hash, as on bot
 *   users; or only a secret differs, which hashes do not cover).
 * - `deleted_outside`: declared and missing, and evidence shows it was applied.
 * - `missing`: declared and missing, with no evidence: not applied yet or deleted outside.
 * - `unmanaged`: exists beside managed objects, undeclared and not owned (information only).
 */
export type DriftKind = 'changed_in_manifests' | 'changed_outside' | 'changed' | 'deleted_outside' | 'missing' | 'duplicate' | 'unmanaged';

/** Drift kinds that make `gatehouse drift` exit 2 (all but `unmanaged`). */
export const DRIFT_KINDS: readonly Exclude<DriftKind, 'unmanaged'>[] = [
  'changed_outside',
  'deleted_outside',
  'duplicate',
  'missing',
  'changed_in_manifests',
  'changed',
];

/** One field that differs: its dotted path, live and desired values (masked when secret). */
export interface DriftField {
  path: string;
  drift: Exclude<DriftKind, 'unmanaged' | 'deleted_outside' | 'missing' | 'duplicate'>;
  live: unknown;
  desired: unknown;
  sensitive: boolean;
}

export interface DriftedObject {
  /** Address as in plans: `IPPolicy/office`, `HTTPSEdgeRoute/api//v1`. */
  address: string;
  kind: string;
  name: string;
  /** Live id; null when the object is missing. */
  id: string | null;
  drift: Exclude<DriftKind, 'unmanaged'>;
  /** What `gatehouse apply` would do to end the drift. */
  action: Action;
  /** One sentence saying what differs and what shows it. */
  message: string;
  fields: DriftField[];
  /** Where the object is declared; absent for objects the manifests no longer declare. */
  source?: SourceLocation;
  /**
   * On `changed_outside` only: the manifests changed too since the last apply, so applying
   * writes their change as well as undoing the outside one. Absent otherwise.
   */
  manifests_changed?: true;
}

export type DriftSummary = Record<DriftKind | 'in_sync', number>;

export interface DriftReport {
  /** The stack's lock when an apply held it while drift was checked (lock/record.ts). */
  lock?: LockInfo;
  format_version: typeof DRIFT_FORMAT_VERSION;
  target: { url: string; embedded: boolean };
  stack: string;
  /** RFC 3339 time the live state was read. */
  checked_at: string;
  /** True when any object drifted (unmanaged objects alone do not count): exit 2. */
  drifted: boolean;
  summary: DriftSummary;
  /** Drifted objects, most alarming first (outside changes, deletions, missing, manifest changes). */
  objects: DriftedObject[];
  unmanaged: UnmanagedObject[];
  /** Kinds the account cannot list (as in plans): none of their objects was checked. Absent when none. */
  unreadable?: UnreadableKind[];
  /** API requests spent reading live state. */
  requests: number;
  /** Every request the command sent and what it spent of the API's budget (the CLI fills it in). */
  api_requests?: RequestUsage;
  /** Present when `drift --target` limited the report to some objects (their children included). */
  targets?: Pick<PlanTargets, 'requested' | 'unmatched'>;
}
