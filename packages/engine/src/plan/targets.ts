/**
 * `--target ADDRESS` (plan, apply, drift): a partial plan for an emergency change to a few
 * objects, as Terraform's `-target` is, and a check of only those objects for drift.
 *
 * The contract:
 * - A target is `Kind/NAME-PATTERN`: a known kind (exactly as in plans: `IPPolicy`, `HTTPSEdge`,
 *   `IPPolicyRule`...) and a glob over the rest of the address (picomatch: `*`, `?`, `[...]`,
 *   `{a,b}`; `\` escapes). Names hold `/` as data (a rule's CIDR `office/10.0.0.0/8`, a
 *   route's path `api//v1`), so the name is matched as one string: `*` and `?` match `/` too,
 *   and `HTTPSEdgeRoute/api/*` is every route of the edge `api`. `parseTargets` refuses
 *   anything else (empty, no `/`, an unknown kind with the closest one offered, control
 *   characters) with a `TargetError`, before anything is read.
 * - A target covers the objects whose address it matches and their children (a policy's
 *   rules, an edge's routes with their modules), declared or live.
 * - `targetPlan` keeps, of the full plan, the changes of covered objects and, transitively,
 *   the creates, updates and replaces of what they depend on (a route's new backend), plus the
 *   changes of the objects that still reference a kept replace (they are re-pointed to the new
 *   object: apply/graph.ts writes them, so the plan shows them); nothing else. It never keeps a delete:
 *   no prune, no duplicate or interrupted-replace clean-up (a targeted change must not remove
 *   what nobody targeted). A marker refresh of a dependency is left out (nothing waits for it).
 * - It says which targets matched nothing (no declared object and no live object this stack
 *   owns) and which matched only owned objects the manifests no longer declare (deletes, which
 *   a targeted plan never makes). `checkTargetsMatched` fails when every target matched
 *   nothing: a typo in a CI script is an error, not an empty success.
 * - `targetMatching` is what apply's marker writer must see: the creates a targeted plan does
 *   not make are left out, so a parent's `children` evidence never claims a child that was not
 *   created (drift would call it "deleted outside gatehouse").
 * - The bot user registry (bot-registry/registry.ts) follows a targeted plan: when the targets
 *   cover a bot user, the registry change records the covered bot users as the plan leaves them
 *   and keeps every other entry as recorded (`targetRegistryMatching`; apply's registry writer
 *   sees the same), so a targeted create is recorded (a later targeted rename of `spec.name`
 *   updates it in place) and an update that was not applied is never recorded as applied;
 *   with `--from-stack OLD`, OLD's registry drops only the covered bot users that moved.
 * - `targetDrift` keeps the drifted objects covered by the targets (no dependencies: drift
 *   reports, it does not write).
 */
import picomatch from 'picomatch';
import { closest, distance } from 'fastest-levenshtein';
import type { DriftReport } from '../drift/model.js';
import { KINDS } from '../kinds/index.js';
import type { LiveObject } from '../live.js';
import type { Change, Plan, PlanTargets } from '../plan-model.js';
import { sanitize } from '../render/sanitize.js';
import type { Matching } from './matching.js';
import { registryChanges, type RegistryMatching } from '../bot-registry/changes.js';
import { liveReferences } from './reference-tokens.js';
import { append } from '../append.js';

export const TARGET_CODES = {
  target_invalid: 'a --target is not Kind/NAME with a known kind (or is empty, or holds control characters)',
  target_unmatched: 'no --target matched a declared object or an object this stack owns',
  target_conflict: '--target was given with a flag that cannot be targeted (--prune, --prune-all, --plan)',
} as const;
export type TargetCode = keyof typeof TARGET_CODES;

export class TargetError extends Error {
  constructor(
    readonly code: TargetCode,
    message: string,
  ) {
    super(message);
    this.name = 'TargetError';
  }
}

/** A parsed `--target`: matches an address (`Kind/name`) by its kind and name glob. */
export interface TargetPattern {
  /** As given. */
  text: string;
  kind: string;
  matches(address: string): boolean;
}

/** Stands for `/` while matching, so that the glob sees a name as one segment (`*` spans `/`). */
const SLASH = '\uE000';
const oneSegment = (text: string) => text.split('/').join(SLASH);
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** Parses and checks every `--target` value; throws `TargetError` (`target_invalid`) on the first bad one. */
export function parseTargets(texts: readonly string[]): TargetPattern[] {
  const kinds = KINDS.map((k) => k.kind);
  const known = `known kinds: ${kinds.join(', ')}`;
  return texts.map((text) => {
    const shown = JSON.stringify(sanitize(text));
    const fail = (why: string): never => {
      throw new TargetError('target_invalid', `--target ${shown} ${why}`);
    };
    if (text.trim() === '') fail('is empty; give an address such as IPPolicy/office or Backend/* (as plan prints them)');
    if (CONTROL.test(text)) fail('holds control characters; give an address such as IPPolicy/office');
    const cut = text.indexOf('/');
    const kind = cut < 0 ? text : text.slice(0, cut);
    const name = cut < 0 ? '' : text.slice(cut + 1);
    if (!kinds.includes(kind)) {
      const guess = kinds.find((k) => k.toLowerCase() === kind.toLowerCase()) ?? nearKind(kind, kinds);
      const suggestion = guess ? `did you mean ${guess}/${cut < 0 ? '*' : name}? ` : '';
      fail(`does not start with a known kind: ${suggestion}A target is Kind/NAME (${known})`);
    }
    if (cut < 0 || name === '') fail(`names a kind but no object: give ${kind}/NAME, or ${kind}/* for every ${kind}`);
    const test = picomatch(oneSegment(name), { dot: true, nonegate: true, posix: true });
    const prefix = `${kind}/`;
    return { text, kind, matches: (address: string) => address.startsWith(prefix) && test(oneSegment(address.slice(prefix.length))) };
  });
}

/**
 * The parsed targets of an engine call, or undefined when none were given (a full plan).
 * A targeted plan never prunes, so `prune` with targets is refused (`target_conflict`).
 */
export function targetPatterns(texts: readonly string[] | undefined, options: { prune?: boolean } = {}): TargetPattern[] | undefined {
  if (texts === undefined || texts.length === 0) return undefined;
  if (options.prune)
    throw new TargetError('target_conflict', '--target cannot be combined with --prune: a targeted plan never deletes; prune with a full plan (no --target)');
  return parseTargets(texts);
}

/** The closest kind when it is close enough to be a typo (a third of the length, at least 2 edits). */
function nearKind(kind: string, kinds: string[]): string | undefined {
  if (kind === '') return undefined;
  const guess = closest(kind, kinds);
  const edits = distance(kind.toLowerCase(), guess.toLowerCase());
  return edits <= Math.max(2, Math.floor(guess.length / 3)) ? guess : undefined;
}

/** What the targets cover in one plan: the objects they match, with children, and their report. */
interface TargetScope {
  /** Whether the object at `address` (declared, or live as the plan addresses it) or one of its ancestors matches a target. */
  covers(address: string): boolean;
  targets: PlanTargets;
}

/**
 * Scope of `patterns` over the objects of a matching (declared objects, and live objects at
 * the addresses `changes` gives them). Pure.
 */
function targetScope(patterns: readonly TargetPattern[], matching: Matching, changes: readonly Change[]): TargetScope {
  const parentOf = new Map<string, string>(); // address -> parent address
  const declared = [...matching.pairs.map((p) => p.desired), ...matching.creates];
  for (const d of declared) if (d.parent !== undefined) parentOf.set(d.address, d.parent);
  const addressOfId = new Map<string, string>();
  for (const p of matching.pairs) addressOfId.set(p.live.id, p.desired.address);
  for (const c of changes) if (c.id !== null && !addressOfId.has(c.id)) addressOfId.set(c.id, c.address);
  const liveById = new Map<string, LiveObject>([...matching.deletes, ...matching.pairs.map((p) => p.live)].map((o) => [o.id, o]));
  // Live objects the manifests no longer declare, at their plan address (never duplicates: their address is another's).
  const undeclared: string[] = [];
  for (const c of changes) {
    if (c.action !== 'delete' || c.duplicate || c.id === null) continue;
    undeclared.push(c.address);
    const parentId = liveById.get(c.id)?.parentId;
    const parent = parentId !== undefined ? addressOfId.get(parentId) : undefined;
    if (parent !== undefined) parentOf.set(c.address, parent);
  }

  const memo = new Map<string, boolean>();
  const covers = (address: string): boolean => {
    let known = memo.get(address);
    if (known === undefined) {
      const parent = parentOf.get(address);
      known = patterns.some((p) => p.matches(address)) || (parent !== undefined && parent !== address && covers(parent));
      memo.set(address, known);
    }
    return known;
  };
  const unmatched: string[] = [];
  const onlyUndeclared: string[] = [];
  for (const p of patterns) {
    if (declared.some((d) => p.matches(d.address))) continue;
    if (undeclared.some((a) => p.matches(a))) onlyUndeclared.push(p.text);
    else unmatched.push(p.text);
  }
  const unique = (list: string[]) => [...new Set(list)];
  return { covers, targets: { requested: unique(patterns.map((p) => p.text)), unmatched: unique(unmatched), undeclared: unique(onlyUndeclared) } };
}

/**
 * The targeted plan: of `plan` (the full plan of `matching`), the changes the targets cover
 * and what they depend on that also changes (see the module comment), counted again. The
 * plan records `targets`, so a saved targeted plan says what it was made for.
 */
export function targetPlan(plan: Plan, matching: Matching, patterns: readonly TargetPattern[]): Plan {
  const scope = targetScope(patterns, matching, plan.changes);
  const byAddress = new Map(plan.changes.map((c) => [c.address, c]));
  const writes = (c: Change | undefined): c is Change => c !== undefined && c.action !== 'delete';
  const kept = new Set<string>();
  const queue: Change[] = [];
  const keep = (c: Change) => {
    if (kept.has(c.address)) return;
    kept.add(c.address);
    queue.push(c);
  };
  for (const c of plan.changes) if (writes(c) && scope.covers(c.address)) keep(c);
  // A replace re-points the live objects that reference it (apply/graph.ts writes them with
  // their other changes): their changes come with it, so the plan shows every write.
  let referrersById: Map<string, Matching['pairs']> | undefined; // live id -> pairs whose live object references it, built once when needed
  const referrers = (replaced: Change): Change[] => {
    if (!referrersById) {
      referrersById = new Map();
      for (const p of matching.pairs) for (const id of liveReferences(p.live)) append(referrersById, id, p);
    }
    return (replaced.id === null ? [] : (referrersById.get(replaced.id) ?? []))
      .filter((p) => p.desired.references.includes(replaced.address))
      .map((p) => byAddress.get(p.desired.address))
      .filter(writes);
  };
  while (queue.length > 0) {
    const change = queue.pop()!;
    for (const address of change.dependsOn) {
      const dep = byAddress.get(address);
      if (writes(dep) && dep.cause !== 'marker' && dep.cause !== 'repoint') keep(dep);
    }
    if (change.action === 'replace') for (const r of referrers(change)) keep(r);
  }

  const changes = plan.changes.filter((c) => kept.has(c.address));
  const fingerprints = Object.entries(plan.fingerprints);
  // The registry changes only when a bot user is targeted; with --from-stack, the old stack's
  // registry drops the targeted bot users that moved.
  const narrowed = registryMatchingOf(matching, scope.covers);
  const targetsBots = narrowed.pairs.length > 0 || narrowed.creates.length > 0;
  for (const registry of targetsBots ? registryChanges(narrowed, plan.stack, changes) : []) {
    changes.push(registry.change);
    if (registry.fingerprint) fingerprints.push([registry.fingerprint.id, registry.fingerprint.value]);
  }
  const count = (action: Change['action']) => changes.filter((c) => c.action === action).length;
  const declared = [...matching.pairs.map((p) => p.desired.address), ...matching.creates.map((d) => d.address)];
  const unchanged = declared.filter((a) => scope.covers(a) && !byAddress.has(a)).length;
  const ids = new Set(changes.map((c) => c.id).filter((id): id is string => id !== null));
  const { not_pruned: _notPruned, ...summary } = plan.summary;
  return {
    ...plan,
    summary: { ...summary, create: count('create'), update: count('update'), delete: 0, replace: count('replace'), unchanged },
    changes,
    fingerprints: Object.fromEntries(fingerprints.filter(([id]) => ids.has(id))),
    targets: scope.targets,
  };
}

/** The registry's matching when `covers` says what is targeted: only the targeted bot users. */
function registryMatchingOf(matching: Matching, covers: (address: string) => boolean): RegistryMatching {
  const bot = (d: { descriptor: { kind: string }; address: string }) => d.descriptor.kind === 'BotUser' && covers(d.address);
  // Every recorded entry of a bot user not covered stays as recorded (as outside a prune scope).
  return {
    pairs: matching.pairs.filter((p) => bot(p.desired)),
    creates: matching.creates.filter(bot),
    ...(matching.registry ? { registry: matching.registry } : {}),
    ...(matching.fromRegistry ? { fromRegistry: matching.fromRegistry } : {}),
    pruneScope: { covers: () => false },
  };
}

/**
 * The matching apply's registry writer sees for a targeted plan (of the full plan `full`):
 * the bot users the targets cover, every other entry as recorded (see the module comment).
 */
export function targetRegistryMatching(matching: Matching, full: Plan, patterns: readonly TargetPattern[]): RegistryMatching {
  return registryMatchingOf(matching, targetScope(patterns, matching, full.changes).covers);
}

/**
 * The matching apply's marker writer sees for a targeted plan: the creates the plan does not
 * make are left out, so a parent's `children` evidence records only children that exist.
 */
export function targetMatching(matching: Matching, targeted: Plan): Matching {
  const made = new Set(targeted.changes.filter((c) => c.action === 'create').map((c) => c.address));
  return { ...matching, creates: matching.creates.filter((d) => made.has(d.address)) };
}

/**
 * Fails (`target_unmatched`) when every requested target matched nothing in every one of the
 * `reports` (one per environment): the run would be an empty success for a typo.
 */
export function checkTargetsMatched(reports: readonly (PlanTargets | undefined)[]): void {
  const given = reports.filter((t): t is PlanTargets => t !== undefined && t.requested.length > 0);
  if (given.length === 0) return;
  if (!given.every((t) => t.unmatched.length === t.requested.length)) return;
  const list = given[0]!.requested.map((t) => sanitize(t)).join(', ');
  throw new TargetError(
    'target_unmatched',
    `no object matches --target ${list}: no declared object and no live object this stack owns has such an address. ` +
      'Addresses are as plan prints them (IPPolicy/office, HTTPSEdgeRoute/api//v1); check the spelling, the stack and the manifest paths',
  );
}

/** The drift report of the objects the targets cover only; `drifted` (exit 2) counts only them. */
export function targetDrift(report: DriftReport, matching: Matching, plan: Plan, patterns: readonly TargetPattern[]): DriftReport {
  const scope = targetScope(patterns, matching, plan.changes);
  const objects = report.objects.filter((o) => scope.covers(o.address));
  const summary = { ...report.summary };
  for (const key of Object.keys(summary) as (keyof typeof summary)[]) if (key !== 'unmanaged') summary[key] = 0;
  for (const o of objects) summary[o.drift] += 1;
  const drifted = new Set(objects.map((o) => o.address));
  const declared = [...matching.pairs.map((p) => p.desired.address), ...matching.creates.map((d) => d.address)];
  summary.in_sync = declared.filter((a) => scope.covers(a) && !drifted.has(a)).length;
  const { unmatched, requested } = scope.targets;
  return { ...report, objects, summary, drifted: objects.length > 0, targets: { requested, unmatched } };
}
