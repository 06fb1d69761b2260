/**
 * The engine's core entry point (`@gatehouse/engine/core`): reading, checking and planning
 * manifests, the problems, targets, markers, lock and policy rules they involve, and the few
 * formatting helpers every command prints with. It is what `gatehouse validate` loads, and
 * `plan` adds only `/render` and `/environments` to it.
 *
 * The other areas are entry points of their own (`/render`, `/apply`, `/drift`, `/export`,
 * `/environments`), so that a command loads only the modules it uses: the main entry point
 * (`@gatehouse/engine`, everything) is about 100 files, this one about 65, and each module
 * costs start-up time to resolve and compile (issue 13). Everything is also exported from
 * the main entry point, for tests and other users.
 */
export * from './ports.js';
export * from './plan-model.js';
export * from './source.js';
export { PROBLEM_CODES, ManifestProblems, type Problem, type ProblemCode } from './problems.js';
export {
  computePlan,
  readForPlan,
  planFromRead,
  type PlanRead,
  type PlanOptions,
  validateManifests,
  checkManifests,
  type ManifestCheck,
  readManifests,
  matchObservation,
  DEFAULT_STACK,
  type EngineOptions,
  type Desired,
} from './engine.js';
export { DependencyCycleError, type Edge } from './plan/order.js';
export { TARGET_CODES, TargetError, checkTargetsMatched, parseTargets, targetPatterns, type TargetCode, type TargetPattern } from './plan/targets.js';
export { DEFAULT_MAX_FILE_SIZE, readUpTo } from './load/files.js';
export { KINDS, descriptor } from './kinds/index.js';
export type { KindDescriptor, ApiCall, CallContext, Spec } from './kinds/types.js';
export type { DesiredObject } from './desired.js';
export type { LiveObject } from './live.js';
export type { Matching } from './plan/matching.js';
export type { ProjectIgnoreRule } from './plan/ignore.js';
export type { ExcludeRules } from './load/exclude.js';
export { API_KEY_VARIABLE, type Credentials, type EnvVariable } from './load/env-policy.js';
export { MARKER_PREFIX, composeMetadata, parseMarker, formatMarker, type Marker } from './identity/marker.js';
export { desiredHash } from './identity/hash.js';
export { liveNormal } from './identity/normal-form.js';
export * from './policy/index.js';
export { acquireLock, lockWhileReading, type HeldLock, type AcquireOptions } from './lock/protocol.js';
export { breakLock, readLock } from './lock/storage.js';
export { describeLock, isLockObject, lockIsActive, lockName, lockOf, LockHeld, LockLost, DEFAULT_LEASE_SECONDS, type LockInfo } from './lock/record.js';
export type { Variables } from './load/interpolate.js';
// An error every command's --json output may report (apply/model.ts imports types only).
export { ApplyRefused } from './apply/model.js';
// Used by every command's output; the rest of render/ is `/render`.
export { sanitize, hasUnsafeCharacters, terminalSafeJson, type SanitizeOptions } from './render/sanitize.js';
export { listSome, LIST_SHOWN } from './render/list-some.js';
export { unreadableLine } from './render/unreadable.js';
export { plainStyle, type Style, type Paint } from './render/style.js';
export { policyTextLines, policyMarkdown, formatPolicyResult, policyCounts } from './render/policy.js';
// gatehouse.yaml, read by every command; the rest of environments/ is `/environments`.
export { environmentDocuments, type EnvironmentInput } from './environments/documents.js';
export {
  findProjectFile,
  readProject,
  expandSetting,
  ProjectSettingError,
  PROJECT_FILE_NAME,
  type Project,
  type ProjectEnvironment,
} from './environments/project.js';
