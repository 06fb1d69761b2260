/**
 * The orchestrator: the pipeline steps in order (docs/architecture.md, "The pipeline"). Each step is a module with one
 * job; this file only sequences them and turns collected problems into `ManifestProblems`.
 */
import { resolve as resolvePath } from 'node:path';
import type { DesiredObject } from './desired.js';
import { ManifestProblems, sortProblems, type Problem } from './problems.js';
import type { Plan } from './plan-model.js';
import type { LiveApi } from './ports.js';
import { check } from './load/check.js';
import { environmentDocuments, type EnvironmentInput } from './environments/documents.js';
import { attributeVariables, interpolate, withoutUnsetEcho } from './load/interpolate.js';
import { readRegistry } from './bot-registry/records.js';
import { match } from './plan/match.js';
import { type Matching } from './plan/matching.js';
import { fromStackWarning } from './plan/stacks.js';
import { observe, type Observation } from './plan/observe.js';
import { lockOf, type LockInfo } from './lock/record.js';
import { plan } from './plan/plan.js';
import { unreadableProblems } from './plan/unreadable.js';
import { manifestPaths, recordedPath, type ManifestPaths } from './load/manifest-paths.js';
import { limitPrune } from './plan/prune-scope.js';
import { applyIgnoreRules, attachIgnoreRules, type ProjectIgnoreRule } from './plan/ignore.js';
import { ignorePathProblems } from './load/ignore-paths.js';
import type { ExcludeRules } from './load/exclude.js';
import type { Credentials, EnvVariable } from './load/env-policy.js';
import { redactProblems, secretRedactor, type Redact } from './load/redact.js';
import { secretIdentityProblems } from './load/secret-identity.js';
import { targetPlan, targetPatterns } from './plan/targets.js';
import { resolve } from './plan/resolve.js';
import { loadValidators, validate } from './load/validate.js';
import {
  deletedSubjects,
  desiredSubjects,
  evaluatePolicies,
  loadPolicies,
  PolicyFailed,
  policyErrors,
  type PolicyBudget,
  type PolicyResult,
  type PolicyRule,
} from './policy/index.js';

export const DEFAULT_STACK = 'default';

export interface EngineOptions {
  /** Manifest files or directories (searched recursively for *.yaml and *.yml). */
  paths: string[];
  /** Variables for `${env:NAME}`; `process.env` when absent. */
  env?: Record<string, string | undefined>;
  /**
   * Stack whose ownership marker the metadata byte limit accounts for (addition to the
   * brief's signature; `computePlan`'s `stack` wins). Default `default`.
   */
  stack?: string;
  /** The environment whose overlays and `${var:}` values apply (gatehouse.yaml, `--env`). */
  environment?: EnvironmentInput | undefined;
  /**
   * Policy files or directories (policy/files.ts). Their files are never read as manifests,
   * even when a manifest path holds them (`policies/` under `.`).
   */
  policies?: string[];
  /** Time policy rules see as `now` (tests); the current time when absent. */
  now?: Date;
  /** How long policy rules may run, per object and per run (policy/budget.ts); the defaults when absent. */
  policyBudget?: PolicyBudget;
  /** Manifest files larger than this many bytes are refused before parsing (default 10 MiB). */
  maxFileSize?: number;
  /** Told of what does not stop the run (a symbolic link loop); nothing is printed without it. */
  onWarning?: (warning: Problem) => void;
  /**
   * What an unset `${env:NAME}` is: an `error` (plan, apply: the value is needed) or, for
   * offline validation, a `warn`ing told to `onWarning`, with a stand-in value so that the
   * rest of the document is still checked (problems at the same place are not reported).
   */
  unsetEnv?: 'error' | 'warn';
  /** Told of what was passed over on purpose (a skipped directory or file), for `--verbose`. */
  onNote?: (note: string) => void;
  /** `--from-stack`: the other stack whose objects plan and apply may move into this one (plan/stacks.ts). */
  fromStack?: string | undefined;
  /**
   * gatehouse.yaml's `ignore:` rules (checked when the project file was read): fields of every
   * object of a kind that plan, apply and drift leave alone (plan/ignore.ts).
   */
  ignore?: readonly ProjectIgnoreRule[] | undefined;
  /** gatehouse.yaml's `exclude:` globs: files of other tools a directory search leaves out (load/exclude.ts). */
  excludeFiles?: ExcludeRules | undefined;
  /**
   * Files and directories that hold no manifests, which a directory search never reads as
   * manifests: the project file, policy directories (`policies` are added to them).
   */
  notManifests?: readonly string[] | undefined;
  /** gatehouse.yaml's `variables:`: where each `${env:NAME}` is read from and whether it is secret (load/env-policy.ts). */
  envVariables?: Readonly<Record<string, EnvVariable>> | undefined;
  /** The credentials the command connects with: no `${env:}` may read them (`GATEHOUSE_API_KEY` always). */
  credentials?: Credentials | undefined;
}

/** What an unset `${env:}` stands for in offline validation: non-empty, like a real secret. */
const UNSET_ENV_STAND_IN = 'gatehouse-validate-unset-variable-0123456789';

export interface Desired {
  desired: DesiredObject[];
  problems: Problem[];
  checksum: string;
  /** Each manifest file's document checksum (load/documents.ts): what a saved plan's staleness is told by. */
  files: Record<string, string>;
  /** Where the manifests sit: the root their recorded paths are relative to, and the PATHs (prune scope). */
  where?: ManifestPaths;
  /** Replaces the values of secret `${env:}` variables in a text (an error that may quote one). */
  redact?: Redact;
}

/** Steps 1-3: load, validate, resolve (and the service's rules). No network. */
export async function readManifests(options: EngineOptions & { exclude?: readonly string[] }): Promise<Desired> {
  const stack = options.stack ?? DEFAULT_STACK;
  const loaded = await environmentDocuments(options.paths, options.environment, {
    ...(options.maxFileSize !== undefined ? { maxFileSize: options.maxFileSize } : {}),
    exclude: options.excludeFiles,
    notManifests: [...(options.notManifests ?? []), ...(options.policies ?? [])],
  });
  for (const warning of loaded.warnings) options.onWarning?.(warning);
  if (options.exclude && options.exclude.length > 0) {
    const excluded = new Set(options.exclude.map((file) => resolvePath(file)));
    loaded.documents = loaded.documents.filter((doc) => !excluded.has(resolvePath(doc.file)));
  }
  for (const note of loaded.notes) options.onNote?.(note);
  const vars = options.environment?.vars;
  const interpolated = interpolate(loaded.documents, options.env ?? process.env, {
    vars,
    envVariables: options.envVariables,
    credentials: options.credentials,
    ...(options.unsetEnv === 'warn' ? { unsetEnvStandIn: UNSET_ENV_STAND_IN } : {}),
  });
  for (const warning of interpolated.unsetEnv) options.onWarning?.(warning);
  await loadValidators(interpolated.documents);
  const validated = validate(interpolated.documents);
  const ignoreProblems = await ignorePathProblems(validated.valid);
  const resolved = resolve(validated.valid, validated.declared);
  attachIgnoreRules(resolved.desired, options.ignore);
  // The manifest path each object's marker records (the prune scope), before check counts its bytes.
  const where = manifestPaths([...options.paths, ...(options.environment?.overlays ?? [])]);
  const pathOf = new Map<string, string | undefined>(); // per file: a manifest may hold 100,000 rules
  for (const d of resolved.desired) {
    if (!pathOf.has(d.doc.file)) pathOf.set(d.doc.file, recordedPath(where, d.doc.file));
    const path = pathOf.get(d.doc.file);
    if (path !== undefined) d.manifestPath = path;
  }
  const later = attributeVariables(
    [...validated.problems, ...ignoreProblems, ...resolved.problems, ...secretIdentityProblems(resolved.desired), ...check(resolved.desired, stack)],
    interpolated.variableUses,
    vars,
  );
  const problems = [...loaded.problems, ...interpolated.problems, ...later];
  // Documents that failed their schema were checked in their valid parts only: never planned.
  const desired = resolved.desired.filter((d) => !(d.doc as { partial?: unknown }).partial);
  // An unset variable's stand-in may itself fail a check there (a pattern): not reported.
  const unsetAt = new Set(interpolated.unsetEnv);
  const reported = withoutUnsetEcho([...interpolated.unsetEnv, ...problems]).filter((p) => !unsetAt.has(p));
  // No problem quotes the value of a secret variable (a hostport used twice, a broken reference).
  const redact = secretRedactor(interpolated.documents.flatMap((doc) => doc.secrets ?? []));
  return { desired, problems: sortProblems(redactProblems(reported, redact)), checksum: loaded.checksum, files: loaded.files, where, redact };
}

/** Every problem of the manifests, all together; `[]` when they are valid. */
export async function validateManifests(options: EngineOptions): Promise<Problem[]> {
  return (await checkManifests(options)).problems;
}

export interface ManifestCheck {
  /** Problems of the manifests and of the policy files. */
  problems: Problem[];
  /** Failed policy rules (those that need no live state), errors first. */
  policy: PolicyResult[];
}

/** `validate`: the manifests' problems, and the policy rules evaluated on them. No network. */
export async function checkManifests(options: EngineOptions): Promise<ManifestCheck> {
  const policies = await loadPolicies(options.policies ?? []);
  for (const warning of policies.warnings) options.onWarning?.(warning);
  const { desired, problems } = await readManifests({ ...options, exclude: policies.files });
  const all = sortProblems([...policies.problems, ...problems]);
  // No rule, no subjects: building them locates and copies every object (a large manifest's
  // peak memory).
  if (policies.problems.length > 0 || policies.rules.length === 0) return { problems: all, policy: [] };
  const evaluation = evaluatePolicies(policies.rules, desiredSubjects(desired), { phase: 'validate', ...policyTime(options) });
  return { problems: sortProblems([...all, ...evaluation.problems]), policy: evaluation.results };
}

export interface Matched {
  matching: Matching;
  /** List requests the observation took. */
  requests: number;
  /** The stack's lock as the observation saw it, when one is held. */
  lock?: LockInfo;
}

/**
 * Step 5 on an observation already made: matches valid manifests with live objects, limits
 * deletes to the prune scope (plan/prune-scope.ts) and throws `ManifestProblems` for matching
 * problems (an adoption required, a collision with another stack, an object of a kind the
 * account cannot list: plan/unreadable.ts).
 */
export function matchObservation(
  read: Desired,
  observation: Observation,
  stack: string,
  options: Pick<EngineOptions, 'paths' | 'fromStack' | 'onWarning'> & { pruneAll?: boolean },
): Matched {
  const fromStack = options.fromStack;
  const fromRegistry = fromStack !== undefined && fromStack !== stack ? readRegistry(fromStack, observation.registryObjects) : undefined;
  const matched = withUnreadable(
    match(read.desired, observation.live, stack, {
      fromStack,
      registry: readRegistry(stack, observation.registryObjects),
      ...(fromRegistry ? { fromRegistry } : {}),
    }),
    observation,
  );
  // Ignore rules last: the views they make are what plan, drift and apply compare and write.
  const matching = applyIgnoreRules(limitPrune(matched, read.where ?? manifestPaths(options.paths), read.desired, options.pruneAll === true));
  const nothingToMove = fromStackWarning(observation.live, { stack, fromStack });
  if (nothingToMove) options.onWarning?.(nothingToMove);
  if (matching.problems.length > 0) throw new ManifestProblems(sortProblems(read.redact ? redactProblems(matching.problems, read.redact) : matching.problems));
  const lock = lockOf(stack, observation.lockObjects.bots, observation.lockObjects.policies);
  return { matching, requests: observation.requests, ...(lock ? { lock } : {}) };
}

/** The matching with the collections the observation could not read, and a problem per object declared in one. */
function withUnreadable(matching: Matching, observation: Observation): Matching {
  if (observation.unreadable.length === 0) return matching;
  const desired = [...matching.pairs.map((p) => p.desired), ...matching.creates];
  return { ...matching, unreadable: observation.unreadable, problems: [...matching.problems, ...unreadableProblems(desired, observation.unreadable)] };
}

/** What a plan reads before its first request: the manifests, and the policy rules to evaluate once live state is read. */
export interface PlanRead {
  read: Desired;
  rules: PolicyRule[];
}

/**
 * Steps 1-3 of a plan, and the policy rules that need no live state: everything that can fail
 * without the API, checked before its first request. Throws `ManifestProblems` for the manifests'
 * and the policy files' problems (all at once), and `PolicyFailed` when the manifests alone break
 * a rule of severity error.
 */
export async function readForPlan(options: EngineOptions): Promise<PlanRead> {
  const policies = await loadPolicies(options.policies ?? []);
  for (const warning of policies.warnings) options.onWarning?.(warning);
  const read = await readManifests({ ...options, exclude: policies.files });
  const problems = [...policies.problems, ...read.problems];
  if (problems.length > 0) throw new ManifestProblems(sortProblems(problems));
  if (policies.rules.length > 0) {
    const early = evaluatePolicies(policies.rules, desiredSubjects(read.desired), { phase: 'validate', ...policyTime(options) });
    // A rule stopped by its budget checked nothing in full: nothing is planned.
    if (early.problems.length > 0) throw new ManifestProblems(early.problems);
    if (policyErrors(early.results).length > 0) throw new PolicyFailed(early.results);
  }
  return { read, rules: policies.rules };
}

export type PlanOptions = EngineOptions & { api: LiveApi; stack: string; prune?: boolean; pruneAll?: boolean; targets?: readonly string[] };

/** Steps 4-7 on what `readForPlan` read: the live API is listed, matched and planned, the policy rules evaluated. */
export async function planFromRead({ read, rules }: PlanRead, options: PlanOptions): Promise<Plan> {
  const prune = options.prune === true || options.pruneAll === true;
  const targets = targetPatterns(options.targets, { prune });
  const { matching, requests, lock } = matchObservation(read, await observe(options.api), options.stack, options);
  const full = plan({
    matching,
    stack: options.stack,
    fromStack: options.fromStack,
    target: options.api.target,
    checksum: read.checksum,
    files: read.files,
    requests,
    prune,
  });
  const computed = targets ? targetPlan(full, matching, targets) : full;
  // Plan does not lock; it says when an apply holds the lock (its plan may be outdated soon).
  const planned = lock ? { ...computed, lock } : computed;
  if (rules.length === 0) return planned;
  // Policy results travel with the plan, so every format shows them.
  const changes = new Map(planned.changes.map((c) => [c.address, c]));
  const subjects = [...desiredSubjects(read.desired, changes), ...deletedSubjects(planned.changes, read.desired)];
  const evaluation = evaluatePolicies(rules, subjects, { phase: 'plan', ...policyTime(options) });
  if (evaluation.problems.length > 0) throw new ManifestProblems(evaluation.problems);
  return { ...planned, policy_results: evaluation.results };
}

/** The time options of policy evaluation. */
const policyTime = (options: EngineOptions) => ({
  ...(options.now ? { now: options.now } : {}),
  ...(options.policyBudget ? { budget: options.policyBudget } : {}),
});

/** The plan of the manifests against the live API; throws `ManifestProblems` when invalid, `PolicyFailed` as `readForPlan` does. */
export async function computePlan(options: PlanOptions): Promise<Plan> {
  // --target is checked first: a bad pattern costs nothing either.
  targetPatterns(options.targets, { prune: options.prune === true || options.pruneAll === true });
  return planFromRead(await readForPlan(options), options);
}
