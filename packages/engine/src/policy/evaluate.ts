/**
 * Evaluating policy rules: every rule against every object of its kind, in normal form with
 * secrets masked (a message can never print a secret), a child with its parent.
 *
 * 1. `validate` evaluates the rules that do not read `change` on the desired objects.
 * 2. `plan` evaluates every rule on the desired objects, each with its change (`unchanged`
 *    when the plan leaves it alone), and the rules that read `change` also on the objects the
 *    plan deletes (as they are live).
 * 3. An object the rule applies to (`when` true or absent) fails when `require` is not true.
 *    An expression that cannot be evaluated (a field the object does not set: guard it with
 *    `has()`) fails too, with the evaluator's reason: a rule that cannot be checked is not met.
 * 4. Within a budget of time (budget.ts): a rule that runs past it is stopped and reported as a
 *    `policy_budget` problem at the rule's file:line, naming the object.
 */
import type { DesiredObject } from '../desired.js';
import type { KindDescriptor, Spec } from '../kinds/types.js';
import { descriptor } from '../kinds/index.js';
import type { Change } from '../plan-model.js';
import { compareLocations, formatLocation, type SourceLocation } from '../source.js';
import { mask } from '../identity/mask.js';
import { envFields, maskEnv } from '../identity/env-fields.js';
import { toCel } from './cel-types.js';
import { changeShape, kindEnvironment, kindShape } from './environment.js';
import type { CompiledExpression, PolicyResult, PolicyRule } from './model.js';
import { DEFAULT_POLICY_BUDGET, OutOfTime, withinTime, type PolicyBudget } from './budget.js';
import { problem, type Problem } from '../problems.js';

/** One object as rules see it. */
export interface PolicySubject {
  descriptor: KindDescriptor;
  address: string;
  name: string;
  /** Normal form, secrets masked. */
  normal: Spec;
  parent?: { descriptor: KindDescriptor; name: string; normal: Spec };
  source?: SourceLocation;
  change?: { action: Change['action'] | 'unchanged'; fields: string[] };
}

/** The normal form rules see: secrets masked, and the values of secret `${env:}` variables (identity/env-fields.ts). */
const masked = (d: DesiredObject): Spec => maskEnv(envFields(d, d.normal), null, mask(d.descriptor.sensitive, null, d.normal)[1])[1]!;

/** The desired objects as subjects, each child with its parent; `changes` by address in plans. */
export function desiredSubjects(desired: readonly DesiredObject[], changes?: ReadonlyMap<string, Change>): PolicySubject[] {
  const byAddress = new Map(desired.map((d) => [d.address, d]));
  return desired.map((d) => {
    const parent = d.parent !== undefined ? byAddress.get(d.parent) : undefined;
    const change = changes?.get(d.address);
    return {
      descriptor: d.descriptor,
      address: d.address,
      name: d.name,
      normal: masked(d),
      ...(parent ? { parent: { descriptor: parent.descriptor, name: parent.name, normal: masked(parent) } } : {}),
      source: d.source,
      ...(changes
        ? { change: change ? { action: change.action, fields: change.fields.map((f) => f.path) } : { action: 'unchanged' as const, fields: [] } }
        : {}),
    };
  });
}

/** The objects a plan deletes, as they are live (masked in the plan already). */
export function deletedSubjects(changes: readonly Change[], desired: readonly DesiredObject[]): PolicySubject[] {
  const byAddress = new Map(desired.map((d) => [d.address, d]));
  return changes
    .filter((c) => c.action === 'delete' && c.before !== null)
    .map((c) => {
      const d = descriptor(c.kind);
      const parentAddress = d.child ? `${d.child.parentKind}/${c.address.split('/')[1]}` : undefined;
      const parent = parentAddress !== undefined ? byAddress.get(parentAddress) : undefined;
      return {
        descriptor: d,
        address: c.address,
        name: c.name,
        normal: c.before!,
        ...(parent ? { parent: { descriptor: parent.descriptor, name: parent.name, normal: masked(parent) } } : {}),
        change: { action: 'delete' as const, fields: [] },
      };
    });
}

export interface EvaluateOptions {
  /** `validate` skips the rules that read `change`. */
  phase: 'validate' | 'plan';
  now?: Date;
  /** How long the rules may run (budget.ts); `DEFAULT_POLICY_BUDGET` when absent. */
  budget?: PolicyBudget;
}

export interface PolicyEvaluation {
  /** Failed rules, errors first, then in file order of the objects. */
  results: PolicyResult[];
  /** Rules stopped because they ran past the budget (`policy_budget`): nothing was checked in full. */
  problems: Problem[];
}

/** Objects evaluated under one time limit before each is given its own (a limit's start costs). */
const BATCH = 64;

/**
 * Every failed rule on every subject, within the budget: the objects are evaluated in batches,
 * each batch within the time one object may take; a batch that runs out is evaluated again one
 * object at a time, and the object whose rules run out is reported at the rule that was running,
 * which is then evaluated on no other object. Once the run's budget is spent, evaluation stops
 * there.
 */
export function evaluatePolicies(rules: readonly PolicyRule[], subjects: readonly PolicySubject[], options: EvaluateOptions): PolicyEvaluation {
  const now = options.now ?? new Date();
  const budget = options.budget ?? DEFAULT_POLICY_BUDGET;
  const active = rules.filter((rule) => options.phase === 'plan' || !rule.usesChange);
  const kinds = new Set(active.map((rule) => rule.kind));
  const checked = subjects.filter((subject) => kinds.has(subject.descriptor.kind));
  let running: { rule: PolicyRule; subject: PolicySubject } | undefined;
  /** Rules that ran out on an object: not evaluated again (one would spend the budget on each). */
  const stopped = new Set<PolicyRule>();
  const evaluate = (subject: PolicySubject): PolicyResult[] => {
    const out: PolicyResult[] = [];
    for (const rule of active) {
      if (subject.descriptor.kind !== rule.kind || stopped.has(rule)) continue;
      if (subject.change?.action === 'delete' && !rule.usesChange) continue;
      running = { rule, subject };
      const result = resultOf(rule, subject, now);
      if (result) out.push(result);
    }
    return out;
  };
  const started = performance.now();
  const left = () => budget.perRunMs - (performance.now() - started);
  const limit = () => Math.min(budget.perObjectMs, left());
  const results: PolicyResult[] = [];
  const problems: Problem[] = [];
  const runSpent = () => problems.push(overRun(budget, running));
  evaluation: for (let i = 0; i < checked.length; i += BATCH) {
    const batch = checked.slice(i, i + BATCH);
    if (left() <= 0) {
      runSpent();
      break;
    }
    try {
      results.push(...withinTime(limit(), () => batch.flatMap(evaluate)));
      continue;
    } catch (error) {
      if (!(error instanceof OutOfTime)) throw error;
    }
    for (const subject of batch) {
      if (left() <= 0) {
        runSpent();
        break evaluation;
      }
      try {
        results.push(...withinTime(limit(), () => evaluate(subject)));
      } catch (error) {
        if (!(error instanceof OutOfTime)) throw error;
        if (left() <= 0) {
          runSpent();
          break evaluation;
        }
        problems.push(overObject(budget, running!));
        stopped.add(running!.rule);
      }
    }
  }
  const rank = (r: PolicyResult) => (r.severity === 'error' ? 0 : 1);
  results.sort((a, b) => rank(a) - rank(b) || compareLocations(a.source, b.source));
  return { results, problems };
}

/** The result of one rule on one subject, or undefined when the rule is met (or does not apply). */
function resultOf(rule: PolicyRule, subject: PolicySubject, now: Date): PolicyResult | undefined {
  const context = activation(subject, now);
  const verdict = judge(rule, context);
  if (verdict === true) return undefined;
  return {
    rule: rule.name,
    severity: rule.severity,
    address: subject.address,
    kind: subject.descriptor.kind,
    name: subject.name,
    message:
      verdict === false
        ? fill(rule.message, context)
        : `${fill(rule.message, context)} (the rule could not be evaluated: ${verdict}; guard optional fields with has())`,
    ...(subject.source ? { source: subject.source } : {}),
    rule_source: rule.source,
  };
}

const where = (subject: PolicySubject) => `${subject.address}${subject.source ? ` (${formatLocation(subject.source)})` : ''}`;

function overObject(budget: PolicyBudget, running: { rule: PolicyRule; subject: PolicySubject }): Problem {
  return problem(
    'policy_budget',
    `policy rule "${running.rule.name}" ran longer than ${budget.perObjectMs} ms on ${where(running.subject)} and was stopped, and not evaluated on other objects; nothing was checked in full: make the rule cheaper (fewer nested comprehensions, no backtracking regular expression)`,
    running.rule.source,
  );
}

function overRun(budget: PolicyBudget, running: { rule: PolicyRule; subject: PolicySubject } | undefined): Problem {
  const at = running ? ` at rule "${running.rule.name}" on ${where(running.subject)}` : '';
  return problem(
    'policy_budget',
    `the policy rules ran longer than ${budget.perRunMs / 1000} s in all and were stopped${at}; nothing was checked in full: make the rules cheaper`,
    running?.rule.source,
  );
}

/** true: met or not applicable; false: not met; a string: could not be evaluated (why). */
function judge(rule: PolicyRule, context: Record<string, unknown>): true | false | string {
  try {
    if (rule.when && rule.when.evaluate(context) !== true) return true;
    return rule.require.evaluate(context) === true;
  } catch (error) {
    return String((error as Error).message ?? error)
      .split('\n')[0]!
      .trim();
  }
}

function activation(subject: PolicySubject, now: Date): Record<string, unknown> {
  const env = kindEnvironment(subject.descriptor.kind);
  const own = toCel({ ...subject.normal, name: subject.name }, kindShape(subject.descriptor));
  const context: Record<string, unknown> = { now };
  for (const name of env.objectNames) context[name] = own;
  if (subject.descriptor.child) {
    const parentDescriptor = descriptor(subject.descriptor.child.parentKind);
    const parent = toCel(subject.parent ? { ...subject.parent.normal, name: subject.parent.name } : {}, kindShape(parentDescriptor));
    for (const name of env.parentNames) context[name] = parent;
  }
  if (subject.change) context.change = toCel(subject.change, changeShape);
  return context;
}

/** The message with its placeholders evaluated; a placeholder that fails shows as `?`. */
function fill(parts: readonly (string | CompiledExpression)[], context: Record<string, unknown>): string {
  return parts
    .map((part) => {
      if (typeof part === 'string') return part;
      try {
        return display(part.evaluate(context));
      } catch {
        return '?';
      }
    })
    .join('');
}

function display(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'bigint' || typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value instanceof Date) return value.toISOString();
  if (value === undefined || value === null) return '';
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v));
}
