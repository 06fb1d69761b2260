/**
 * Drift: the plan's differences, each explained by the evidence in ownership markers.
 *
 * 1. Plan the manifests against live state (the same normal forms and diff as `plan`, so drift
 *    and plan never disagree on whether something differs).
 * 2. For a differing pair, compare three hashes: the marker's (what was last applied), the live
 *    object's and the desired object's. Live off the marker's hash: changed outside gatehouse.
 *    Live on it and desired off it: changed in the manifests. No hash, or only a secret differs:
 *    changed, cause unknown. A pair without this stack's marker is an adoption not applied yet.
 * 3. A declared object that is missing was deleted outside gatehouse when evidence shows it
 *    was applied: an owned object still as last applied references it (apply writes a
 *    referencing object only after what it references exists), its owned parent's marker
 *    records the same set of children, or its parent was itself deleted outside. Otherwise it
 *    is "missing: not applied yet or deleted outside gatehouse".
 * 4. Owned objects the manifests no longer declare: changed in the manifests (removed).
 * 5. Unmanaged objects are information; they never make `drifted` true.
 */
import type { DesiredObject } from '../desired.js';
import type { LiveObject } from '../live.js';
import { matchObservation, readManifests, type Desired, type EngineOptions } from '../engine.js';
import { observe } from '../plan/observe.js';
import { ManifestProblems } from '../problems.js';
import type { Change, FieldChange } from '../plan-model.js';
import type { LiveApi, Target } from '../ports.js';
import type { Matching } from '../plan/matching.js';
import { desiredHash } from '../identity/hash.js';
import { plan } from '../plan/plan.js';
import { recordedHash } from '../bot-registry/records.js';
import { targetDrift, targetPatterns } from '../plan/targets.js';
import { childrenHash, liveHash } from '../identity/hash.js';
import { referenceTokens } from '../plan/reference-tokens.js';
import { DRIFT_FORMAT_VERSION, DRIFT_KINDS, type DriftField, type DriftReport, type DriftedObject } from './model.js';
import { append } from '../append.js';
import { withArticle } from '../article.js';

export interface DriftInput {
  matching: Matching;
  /** Every desired object (children's parents and the references between them). */
  desired: readonly DesiredObject[];
  stack: string;
  target: Target;
  requests: number;
  now?: Date;
  /**
   * Addresses a long-running caller (`gatehouse watch`) saw live, matched to their manifests, at
   * its previous reading: one of them missing now was deleted outside gatehouse, whatever else
   * shows it (a top-level object nothing references leaves no other evidence).
   */
  seenLive?: ReadonlySet<string>;
}

type Verdict = { drift: DriftedObject['drift']; message: string; manifestsChanged?: true };

/** The drift report of a matching (pure: no I/O). */
export function classifyDrift(input: DriftInput): DriftReport {
  const { matching, desired, stack } = input;
  const planned = plan({ matching, stack, target: input.target, checksum: '', requests: input.requests, ...(input.now ? { now: input.now } : {}) });
  const tokens = referenceTokens(matching);
  const pairs = new Map(matching.pairs.map((p) => [p.desired.address, p]));
  const applied = appliedEvidence(input, tokens);
  const deletedOutside = new Set<string>();
  const byAddress = new Map(desired.map((d) => [d.address, d]));

  const objects: DriftedObject[] = [];
  // A marker refresh or a re-point writes bookkeeping, not configuration: in sync for drift.
  // So does the bot user registry's write (no object of the manifests: not counted).
  const isBookkeeping = (c: Change) => c.cause === 'marker' || c.cause === 'repoint' || c.cause === 'registry';
  const bookkeeping = planned.changes.filter((c) => c.cause === 'marker' || c.cause === 'repoint').length;
  for (const change of planned.changes) {
    if (isBookkeeping(change)) continue;
    let verdict: Verdict;
    if (change.action === 'create') {
      const d = byAddress.get(change.address)!;
      verdict = missingVerdict(d, applied, deletedOutside, input.seenLive);
      if (verdict.drift === 'deleted_outside') deletedOutside.add(d.address);
    } else if (change.duplicate) {
      verdict = {
        drift: 'duplicate',
        message:
          change.duplicate.cause === 'interrupted_replace'
            ? `left by an interrupted replace: ${change.duplicate.keep} replaced it; apply deletes it (no --prune needed)`
            : `a duplicate of ${change.duplicate.keep} (same stack and address); apply keeps ${change.duplicate.keep}, re-points references to it and deletes this one`,
      };
    } else if (change.action === 'delete') {
      verdict = {
        drift: 'changed_in_manifests',
        message: `owned by stack "${stack}" and no longer declared in the manifests (removed since the last apply); apply --prune deletes it`,
      };
    } else {
      const pair = pairs.get(change.address)!;
      verdict = pairVerdict(pair, change, tokens, stack, recordedHash(matching.registry, pair.desired, pair.live));
    }
    objects.push(toDrifted(change, verdict));
  }
  // A duplicate that objects gatehouse does not change reference: drift until they are re-pointed.
  for (const held of planned.held_duplicates ?? []) {
    objects.push({
      address: held.address,
      kind: held.kind,
      name: held.address.slice(held.kind.length + 1),
      id: held.id,
      drift: 'duplicate',
      action: 'delete',
      message: held.message,
      fields: [],
    });
  }
  const rank = (o: DriftedObject) => DRIFT_KINDS.indexOf(o.drift);
  objects.sort((a, b) => rank(a) - rank(b));

  const summary = {
    duplicate: 0,
    changed_in_manifests: 0,
    changed_outside: 0,
    changed: 0,
    deleted_outside: 0,
    missing: 0,
    unmanaged: planned.unmanaged.length,
    in_sync: planned.summary.unchanged + bookkeeping,
  };
  for (const o of objects) summary[o.drift] += 1;
  return {
    format_version: DRIFT_FORMAT_VERSION,
    target: planned.target,
    stack,
    checked_at: planned.created_at,
    drifted: objects.length > 0,
    summary,
    objects,
    unmanaged: planned.unmanaged,
    ...(planned.unreadable ? { unreadable: planned.unreadable } : {}),
    requests: planned.requests,
  };
}

/** Addresses of desired objects that evidence shows were applied (step 3). */
function appliedEvidence(input: DriftInput, tokens: Map<string, string>): Set<string> {
  const applied = new Set<string>();
  const children = new Map<string, DesiredObject[]>();
  for (const d of input.desired) if (d.parent !== undefined) append(children, d.parent, d);
  // A bot user the registry records under its manifest name was applied (its entry is written
  // only after its create succeeded).
  for (const d of input.matching.creates) if (input.matching.registry?.entries.has(d.name) && d.descriptor.kind === 'BotUser') applied.add(d.address);
  for (const { desired: d, live: o } of input.matching.pairs) {
    const marker = o.marker?.stack === input.stack ? o.marker : undefined;
    if (!marker) continue;
    if (marker.hash !== '' && marker.hash === desiredHash(d, tokens)) for (const ref of d.references) applied.add(ref);
    const declared = children.get(d.address) ?? [];
    if (marker.children !== undefined && marker.children === childrenHash(declared.map((c) => c.descriptor.naturalKey!(c.normal)))) {
      for (const child of declared) applied.add(child.address);
    }
  }
  return applied;
}

function missingVerdict(d: DesiredObject, applied: Set<string>, deletedOutside: Set<string>, seenLive?: ReadonlySet<string>): Verdict {
  if (d.parent !== undefined && deletedOutside.has(d.parent)) {
    return { drift: 'deleted_outside', message: `deleted outside gatehouse together with its parent ${d.parent}` };
  }
  if (seenLive?.has(d.address)) return { drift: 'deleted_outside', message: 'deleted outside gatehouse: it was live at the previous reading' };
  if (applied.has(d.address)) {
    const why =
      d.parent !== undefined
        ? `its parent's marker records it among the children last applied`
        : !d.descriptor.metadata
          ? "the stack's bot user registry records it as applied"
          : 'an object this stack applied as it is declared now references it';
    return { drift: 'deleted_outside', message: `deleted outside gatehouse: ${why}` };
  }
  return { drift: 'missing', message: 'missing: not applied yet or deleted outside gatehouse' };
}

/**
 * `recorded`: for a kind without metadata (a bot user), the hash its stack's registry recorded
 * when it was last applied (bot-registry/registry.ts); it stands in for the marker's.
 */
function pairVerdict(
  pair: { desired: DesiredObject; live: LiveObject },
  change: Change,
  tokens: Map<string, string>,
  stack: string,
  recorded?: string,
): Verdict {
  const { desired: d, live: o } = pair;
  let applied: string;
  if (!o.descriptor.metadata) {
    if (recorded === undefined) {
      return {
        drift: 'changed',
        message: `differs from the manifests; ${withArticle(d.descriptor.title)} carries no ownership marker and the stack's bot user registry records no hash of it, so whether it changed in the manifests or outside gatehouse is unknown`,
      };
    }
    applied = recorded;
  } else {
    if (o.marker?.stack !== stack) {
      const from = o.marker ? `owned by stack "${o.marker.stack}"` : 'not managed by gatehouse';
      return { drift: 'changed_in_manifests', message: `adopted by the manifests and not applied yet (the live object is ${from})` };
    }
    if (o.marker.hash === '') {
      return { drift: 'changed', message: 'differs from the manifests; its marker records no hash of the last apply, so the cause is unknown' };
    }
    applied = o.marker.hash;
  }
  const outside = liveHash(o, d, tokens) !== applied;
  const inManifests = desiredHash(d, tokens) !== applied;
  if (outside) {
    return {
      drift: 'changed_outside',
      message: `changed outside gatehouse since the last apply${inManifests ? ', and the manifests changed too' : ''}; apply would overwrite it with the manifests' values`,
      ...(inManifests ? { manifestsChanged: true as const } : {}),
    };
  }
  if (inManifests) return { drift: 'changed_in_manifests', message: 'changed in the manifests since the last apply; live is as last applied' };
  const secrets = change.fields.filter((f) => f.sensitive).map((f) => f.path);
  return {
    drift: 'changed',
    message: `a secret differs (${secrets.join(', ') || 'a field the hashes do not cover'}); markers record no secret values, so whether it changed in the manifests' environment or outside gatehouse is unknown`,
  };
}

function toDrifted(change: Change, verdict: Verdict): DriftedObject {
  const fieldDrift = (f: FieldChange): DriftField['drift'] =>
    f.sensitive || verdict.drift === 'deleted_outside' || verdict.drift === 'missing' || verdict.drift === 'duplicate' ? 'changed' : verdict.drift;
  return {
    address: change.address,
    kind: change.kind,
    name: change.name,
    id: change.id,
    drift: verdict.drift,
    action: change.action,
    message: verdict.message,
    fields: change.fields.map((f) => ({ path: f.path, drift: fieldDrift(f), live: f.before, desired: f.after, sensitive: f.sensitive })),
    ...(change.source ? { source: change.source } : {}),
    ...(verdict.manifestsChanged ? { manifests_changed: true as const } : {}),
  };
}

/** Drift of the manifests against the live API; throws `ManifestProblems` when they are invalid. */
export type DriftOptions = EngineOptions & { api: LiveApi; stack: string; now?: Date; targets?: readonly string[] };

/** Steps 1-3 of drift, before any request: the manifests, read and checked (`ManifestProblems` when invalid). */
export async function readForDrift(options: EngineOptions & { stack: string; targets?: readonly string[] }): Promise<Desired> {
  targetPatterns(options.targets);
  const read = await readManifests(options);
  if (read.problems.length > 0) throw new ManifestProblems(read.problems);
  return read;
}

/** Drift of what `readForDrift` read against the live API. */
export async function driftFromRead(read: Desired, options: DriftOptions): Promise<DriftReport> {
  const targets = targetPatterns(options.targets);
  const { matching, requests, lock } = matchObservation(read, await observe(options.api), options.stack, options);
  const input = { matching, desired: read.desired, stack: options.stack, target: options.api.target, requests, ...(options.now ? { now: options.now } : {}) };
  const full = classifyDrift(input);
  // Only the targeted objects (plan/targets.ts): exit 2 for them alone.
  const report = targets ? targetDrift(full, matching, plan({ ...input, checksum: '' }), targets) : full;
  // Drift does not lock; a held lock means an apply is running and may explain the drift.
  return lock ? { ...report, lock } : report;
}

/** The drift report of the manifests against the live API: `readForDrift`, then `driftFromRead`. */
export async function detectDrift(options: DriftOptions): Promise<DriftReport> {
  return driftFromRead(await readForDrift(options), options);
}
