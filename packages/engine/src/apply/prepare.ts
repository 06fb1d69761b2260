/**
 * Apply, before anything is written: the plan (fresh, or a saved one checked against a fresh
 * one), the objects behind each change, and every refusal. Nothing here writes to the API.
 *
 * 1. Read the manifests (the same pipeline as plan), before any request (`readForApply`).
 * 2. Observe and match, then plan afresh (`planApply`, on the observation the CLI makes under the
 *    stack's lock); a saved plan whose manifests changed (stale-manifests.ts) is refused whole,
 *    one made for another stack or environment already in step 1.
 * 3. With a saved plan: keep only its changes; a change whose live object no longer has the
 *    recorded fingerprint (or that the fresh plan no longer has in the same form) is stale:
 *    it will not run and its dependents are skipped.
 * 4. Without `--prune`, deletes are set aside (reported as not pruned).
 * 5. Safety rails (`rails.ts`): ownership of deletes, prevent_destroy, the delete threshold.
 * Marker refreshes and re-points are changes of the plan itself (`plan/plan.ts`), so what
 * apply writes is what the plan shows. With `--target` (or a saved targeted plan) the fresh
 * plan is the targeted one (`plan/targets.ts`).
 */
import type { DesiredObject } from '../desired.js';
import { matchObservation, readManifests, type Desired, type EngineOptions } from '../engine.js';
import type { Redact } from '../load/redact.js';
import type { Change, Plan } from '../plan-model.js';
import type { LiveApi } from '../ports.js';
import { ManifestProblems } from '../problems.js';
import type { Matching } from '../plan/matching.js';
import { metadataWriter } from '../plan/metadata.js';
import { observe, type Observation } from '../plan/observe.js';
import { plan as makePlan } from '../plan/plan.js';
import { TargetError, targetMatching, targetPatterns, targetPlan, targetRegistryMatching } from '../plan/targets.js';
import { ApplyRefused, type Refusal, type Subject } from './model.js';
import { railRefusals } from './rails.js';
import { changedManifests, staleManifestsMessage } from './stale-manifests.js';
import { movedRegistryWriter, registryWriter } from '../bot-registry/writer.js';

/** What apply reads the manifests with, as `readManifests` does (see `EngineOptions`). */
type ReadOptions = Pick<
  EngineOptions,
  'env' | 'environment' | 'ignore' | 'excludeFiles' | 'notManifests' | 'envVariables' | 'credentials' | 'maxFileSize' | 'onWarning'
>;

export interface PrepareOptions extends ReadOptions {
  api: LiveApi;
  stack: string;
  /** Manifest files or directories; with a saved plan, default its `manifest_paths`. */
  paths?: string[];
  /** A saved plan (`apply --plan FILE`), as `parsePlanJson` read it. */
  saved?: Plan;
  prune?: boolean;
  /** `--prune-all`: deletes outside the PATHs' scope too (plan/prune-scope.ts); implies `prune`. */
  pruneAll?: boolean;
  force?: boolean;
  /** `--target` addresses (plan/targets.ts): apply only the targeted plan. A saved plan brings its own. */
  targets?: readonly string[];
  /** `--from-stack` (plan/stacks.ts); with a saved plan, default the plan's own. */
  fromStack?: string | undefined;
}

export interface PreparedApply {
  /** The plan shown to the user: the fresh plan, or the saved one. */
  plan: Plan;
  stack: string;
  /** Changes to run, stale ones included (they fail as stale without writing). */
  subjects: Subject[];
  /** Refusals that stop the whole apply; empty when it may run. */
  refusals: Refusal[];
  /** Deletes set aside because `--prune` was not given. */
  notPruned: Change[];
  /** Changes of a saved plan whose object already matches the planned result (skipped). */
  alreadyDone: Change[];
  /** Fresh changes a saved plan did not list (left alone). */
  notInPlan: Change[];
  /** Desired address -> live id, for every paired object (creates add theirs as they run). */
  ids: Map<string, string>;
  /** Addresses of every desired object (tokens that must resolve to a live id). */
  addresses: Set<string>;
  /** The metadata apply writes on a desired object: user metadata plus this stack's marker. */
  metadataFor(d: DesiredObject): string | undefined;
  matching: Matching;
  /** Replaces the values of secret `${env:}` variables in an error the API answered (load/redact.ts). */
  redact?: Redact | undefined;
}

/** The manifest paths apply reads: the given ones, else a saved plan's, else the current directory. */
const pathsToRead = (options: Pick<PrepareOptions, 'paths' | 'saved'>): string[] =>
  options.paths && options.paths.length > 0 ? options.paths : (options.saved?.manifest_paths ?? ['.']);

/** What apply read before any request: the manifests, and what it was asked to do with them. */
export interface ApplyRead {
  read: Desired;
  /** The manifest paths read (given, or a saved plan's). */
  paths: string[];
}

/**
 * Step 1, before any request and before the lock: the manifests (a saved plan's paths when none
 * are given). Throws `ManifestProblems` when they are invalid, and `TargetError` for `--target`
 * with a saved plan.
 */
export async function readForApply(options: Omit<PrepareOptions, 'api'>): Promise<ApplyRead> {
  if (options.saved && options.targets && options.targets.length > 0) {
    throw new TargetError(
      'target_conflict',
      '--target cannot be combined with --plan: a saved plan applies exactly the targets it was made with; plan again with --target and --out',
    );
  }
  // A saved plan made for another stack or environment is refused whole, before anything is
  // read: matched against the live objects of another stack, its manifests would only collide.
  const refused = options.saved ? savedPlanRefusals(options.saved, options) : [];
  if (refused.length > 0) throw new ApplyRefused(refused);
  const paths = pathsToRead(options);
  const read = await readManifests({ ...options, paths });
  if (read.problems.length > 0) throw new ManifestProblems(read.problems);
  return { read, paths };
}

/** A saved plan's stack, `--from-stack` and environment against this apply's: a refusal each that differs. */
function savedPlanRefusals(saved: Plan, options: Pick<PrepareOptions, 'stack' | 'fromStack' | 'environment'>): Refusal[] {
  const refusals: Refusal[] = [];
  if ((saved.environment ?? undefined) !== options.environment?.name) {
    const named = (e: string | undefined) => (e === undefined ? 'no environment' : `environment ${e}`);
    refusals.push({
      code: 'stale_plan_environment',
      message: `the saved plan is for ${named(saved.environment)}, not ${named(options.environment?.name)}; apply it with ${saved.environment === undefined ? 'no --env' : `--env ${saved.environment}`}, or plan again`,
    });
  }
  if (saved.stack !== options.stack) {
    refusals.push({
      code: 'stale_plan_stack',
      message: `the saved plan is for stack "${saved.stack}", not "${options.stack}"; pass --stack ${saved.stack} or plan again`,
    });
  }
  const fromStack = options.fromStack ?? saved.from_stack;
  if (saved.from_stack !== fromStack) {
    const moving = (s: string | undefined) => (s === undefined ? 'without --from-stack' : `with --from-stack ${s}`);
    refusals.push({
      code: 'stale_plan_stack',
      message: `the saved plan was made ${moving(saved.from_stack)}, not ${moving(fromStack)}; apply it ${moving(saved.from_stack)}, or plan again`,
    });
  }
  return refusals;
}

/** `readForApply`, the listing and `planApply` in one, with no lock (tests, `applyPlan`). */
export async function prepareApply(options: PrepareOptions): Promise<PreparedApply> {
  const read = await readForApply(options);
  return planApply(options, read, await observe(options.api));
}

/** Steps 2-5 on the manifests read and the live state observed (under the lock, in the CLI). */
export function planApply(options: PrepareOptions, { read, paths }: ApplyRead, observation: Observation): PreparedApply {
  const { api, stack, saved } = options;
  // A saved plan carries its scope: the fresh plan it is checked against uses the same, and only
  // the saved plan's changes run, so apply never deletes more than the plan shows.
  const pruneAll = saved ? saved.prune_scope?.mode === 'all' : options.pruneAll === true;
  const prune = options.prune === true || options.pruneAll === true;
  // A saved targeted plan holds no delete, so `--prune` with it prunes nothing (CI recipes pass it always).
  const targets = targetPatterns(options.targets ?? saved?.targets?.requested, { prune: prune && !saved });
  const fromStack = options.fromStack ?? saved?.from_stack;
  const { matching, requests } = matchObservation(read, observation, stack, {
    paths,
    fromStack,
    pruneAll,
    ...(options.onWarning ? { onWarning: options.onWarning } : {}),
  });
  const full = makePlan({ matching, stack, fromStack, target: api.target, checksum: read.checksum, files: read.files, requests, prune });
  const fresh = targets ? targetPlan(full, matching, targets) : full;
  fresh.manifest_paths = paths;
  if (options.environment) fresh.environment = options.environment.name;

  const refusals: Refusal[] = [];
  const changed = saved ? changedManifests(saved, read) : [];
  if (changed.length > 0) refusals.push({ code: 'stale_manifests', message: staleManifestsMessage(changed, paths) });

  // A paired object as the matching holds it: with its ignore rules applied (plan/ignore.ts).
  const desiredByAddress = new Map(read.desired.map((d) => [d.address, d]));
  for (const { desired } of matching.pairs) desiredByAddress.set(desired.address, desired);
  // A targeted apply records only the targeted bot users in the registry (plan/targets.ts).
  const registryMatching = targets ? targetRegistryMatching(matching, full, targets) : matching;
  const liveById = new Map([...matching.pairs.map((p) => p.live), ...matching.deletes, ...matching.duplicates.map((d) => d.live)].map((o) => [o.id, o]));
  const subjectOf = (change: Change): Subject => {
    const desired = desiredByAddress.get(change.address);
    const live = change.id !== null ? liveById.get(change.id) : undefined;
    return {
      change,
      ...(desired && change.action !== 'delete' ? { desired } : {}),
      ...(live ? { live } : {}),
      ...(change.cause === 'registry'
        ? { bookkeeping: change.name === stack ? registryWriter(registryMatching, stack) : movedRegistryWriter(registryMatching) }
        : {}),
    };
  };

  let chosen = fresh.changes.map(subjectOf);
  let notInPlan: Change[] = [];
  const alreadyDone: Change[] = [];
  if (saved) {
    const freshByAddress = new Map(fresh.changes.map((c) => [c.address, c]));
    const savedAddresses = new Set(saved.changes.map((c) => c.address));
    notInPlan = fresh.changes.filter((c) => !savedAddresses.has(c.address));
    chosen = saved.changes.flatMap((old) => {
      const now = freshByAddress.get(old.address);
      // The same manifests (checksum) need no change there now: its object already matches
      // the planned result (an earlier run of this plan did it). Skipped, not stale.
      if (!now && changed.length === 0) {
        alreadyDone.push(old);
        return [];
      }
      const why = staleness(old, now, saved, fresh);
      if (why === 'fresh') return [subjectOf(now!)];
      const message = `${old.address} is stale: ${why}; nothing of it was written, run gatehouse plan again`;
      return [{ ...subjectOf(old), stale: { code: 'stale_object', address: old.address, message } }];
    });
  }

  // Duplicates are deleted without --prune: their address stays declared (plan/duplicates.ts).
  const prunable = (s: Subject) => s.change.action === 'delete' && !s.change.duplicate;
  const notPruned = prune ? [] : chosen.filter(prunable).map((s) => s.change);
  const subjects = prune ? chosen : chosen.filter((s) => !prunable(s));
  refusals.push(...railRefusals({ subjects, matching, stack, force: options.force === true }));

  // A targeted apply's markers record only the children it makes (plan/targets.ts).
  const metadataFor = metadataWriter(targets ? targetMatching(matching, fresh) : matching, stack);

  const ids = new Map(matching.pairs.map((p) => [p.desired.address, p.live.id]));
  const shown: Plan = saved ?? fresh;
  return {
    plan: shown,
    stack,
    subjects,
    refusals,
    notPruned,
    notInPlan,
    alreadyDone,
    ids,
    addresses: new Set(desiredByAddress.keys()),
    metadataFor,
    matching,
    redact: read.redact,
  };
}

/**
 * 'fresh' when the fresh plan has the saved change unchanged (same action and id, the same
 * live fingerprint); otherwise a sentence saying what changed.
 */
function staleness(old: Change, now: Change | undefined, saved: Plan, fresh: Plan): string {
  if (!now) return old.action === 'create' ? 'it exists now although the plan would create it' : 'it changed since the plan and needs no such change now';
  if (now.action !== old.action) return `the plan said ${old.action}, it needs ${now.action} now`;
  if (old.id !== now.id) return `its live object is ${now.id ?? 'gone'} now, not ${old.id ?? 'absent'}`;
  if (old.id !== null && saved.fingerprints[old.id] !== fresh.fingerprints[old.id]) return `live object ${old.id} changed since the plan (fingerprint differs)`;
  return 'fresh';
}
