/** Policies in CEL: policy files, their evaluation in validate and plan. */
export { loadPolicies, type LoadedPolicies } from './files.js';
export { evaluatePolicies, desiredSubjects, deletedSubjects, type PolicySubject, type EvaluateOptions, type PolicyEvaluation } from './evaluate.js';
export { DEFAULT_POLICY_BUDGET, type PolicyBudget } from './budget.js';
export { policyErrors, PolicyFailed, type PolicyResult, type PolicyRule, type PolicySeverity } from './model.js';
