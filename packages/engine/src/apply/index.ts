/** Apply's public surface: prepare (plan and refusals, nothing written), then execute. */
export { applyPlan, executeApply, DEFAULT_PARALLELISM, INTERRUPT_GRACE_MS, type ApplyOptions, type RunOptions } from './apply.js';
export { planApply, prepareApply, readForApply, type ApplyRead, type PrepareOptions, type PreparedApply } from './prepare.js';
export { observe, type Observation } from '../plan/observe.js';
export {
  APPLY_CODES,
  ApplyRefused,
  type ApplyCode,
  type ApplyResult,
  type ApplySummary,
  type Refusal,
  type StepResult,
  type StepStatus,
  type Subject,
} from './model.js';
export { THRESHOLD_MIN_OWNED, THRESHOLD_MIN_OWNED_PER_KIND, THRESHOLD_SHARE } from './rails.js';
export { WalkError } from './walk.js';
