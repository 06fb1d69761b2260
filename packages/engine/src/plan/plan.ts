/**
 * Step 6, plan: from matched pairs to the Plan value.
 *
 * 1. Map every live id that belongs to a known object (paired or owned) to its address, so
 *    references compare by identity whether written by name or by id.
 * 2. Per pair: normal forms of both sides, canonical, server-chosen fields ignored; differing
 *    immutable fields make a replace, other differences an update (only the changed fields);
 *    a pair without this stack's marker (an adoption) is an update that writes the marker.
 * 3. Unpaired desired objects are creates; owned unpaired live objects are deletes.
 * 4. Dependencies: creates and updates after the changes of what they reference (parents
 *    first); deletes after the deletes of what references them and after the updates that
 *    stop referencing them (children first).
 * 5. Writes apply makes beyond field changes are changes too, each with its cause and reason
 *    (plan = apply): the stack's bot user registry when it must record other bot users or
 *    hashes (bot-registry/registry.ts); an owned object whose ownership marker is not what apply would write
 *    (hash, declared children, prevent_destroy) is a marker refresh; an unchanged object that
 *    references an object replaced create-first (no unique key) is re-pointed to the new one.
 * 6. Without `prune`, deletes stay in the plan marked `needsPrune` ("would be deleted with
 *    --prune"), counted apart from the deletes that run.
 * 7. Order, mask, fingerprint, count; list the objects whose ignored fields differ (the
 *    matching holds them as views with the live values there: plan/ignore.ts).
 */
import { KINDS } from '../kinds/index.js';
import type { KindDescriptor, Spec } from '../kinds/types.js';
import type { DesiredObject } from '../desired.js';
import type { LiveObject } from '../live.js';
import { fingerprint } from '../identity/hash.js';
import { parseMarker, type Marker } from '../identity/marker.js';
import { mask, SENSITIVE, SENSITIVE_CHANGED } from '../identity/mask.js';
import { compareSecrets, type SecretComparison } from './write-only-secrets.js';
import { canonical, comparableLive, liveNormal } from '../identity/normal-form.js';
import { envFields, maskEnv, recordedFields } from '../identity/env-fields.js';
import type { Change, Plan, UnmanagedObject } from '../plan-model.js';
import type { Target } from '../ports.js';
import { registryChanges } from '../bot-registry/changes.js';
import { nameHandOffs } from '../bot-registry/name-order.js';
import { changedFields, fieldChanges } from './diff.js';
import { duplicateAddress, duplicateReason } from './duplicates.js';
import { holdDuplicates } from './duplicate-holds.js';
import { ignoredObjects } from './ignore.js';
import type { Matching } from './matching.js';
import { metadataWriter } from './metadata.js';
import { order } from './order.js';
import { pruneScopeNote } from './prune-scope.js';
import { addValueTokens, referencesIn } from './reference-tokens.js';
import { takeOverReason } from './stacks.js';
import { append } from '../append.js';

export interface PlanInput {
  matching: Matching;
  stack: string;
  target: Target;
  checksum: string;
  /** Each manifest file's document checksum (`Desired.files`), recorded as `manifest_files`. */
  files?: Record<string, string>;
  requests: number;
  now?: Date;
  /** Whether deletes will run (`--prune`); without it they are shown as needing it. Default false. */
  prune?: boolean;
  /** `--from-stack` the matching was made with: recorded in the plan (stacks.ts). */
  fromStack?: string | undefined;
}

const kindRank = new Map(KINDS.map((k, i) => [k.kind, i]));

export function plan(input: PlanInput): Plan {
  const { stack } = input;
  // Duplicates that an object this run does not change references are not deleted (duplicate-holds.ts).
  const holds = holdDuplicates(input.matching, stack, input.prune === true);
  const matching =
    holds.ids.size === 0 ? input.matching : { ...input.matching, duplicates: input.matching.duplicates.filter((d) => !holds.ids.has(d.live.id)) };
  const tokens = new Map(matching.pairs.map((p) => [p.live.id, p.desired.address]));
  /**
   * Address of a live object no manifest declares: its marker's name, else parent + natural
   * key, else its id; a duplicate's is followed by `#<id>` (duplicates.ts). It never collides
   * with a desired address (an owned rule left under a policy that lost its marker, and the
   * same rule created under its new policy): then its id.
   */
  const duplicates = new Map(matching.duplicates.map((d) => [d.live.id, d]));
  const liveById = new Map([...matching.deletes, ...matching.duplicates.map((d) => d.live)].map((o) => [o.id, o]));
  const desiredAddresses = new Set([...matching.pairs.map((p) => p.desired.address), ...matching.creates.map((d) => d.address)]);
  const liveAddress = (o: LiveObject): string => (duplicates.has(o.id) ? duplicateAddress(plainAddress(o), o.id) : plainAddress(o));
  const plainAddress = (o: LiveObject): string => {
    if (o.marker && (duplicates.has(o.id) || !desiredAddresses.has(`${o.descriptor.kind}/${o.marker.name}`))) return `${o.descriptor.kind}/${o.marker.name}`;
    const parent = o.parentId !== undefined ? liveById.get(o.parentId) : undefined;
    if (!o.marker && parent && o.descriptor.naturalKey) {
      const parentName = liveAddress(parent).slice(parent.descriptor.kind.length + 1);
      const address = `${o.descriptor.kind}/${parentName}/${o.descriptor.naturalKey(liveNormal(o))}`;
      if (!desiredAddresses.has(address)) return address;
    }
    return `${o.descriptor.kind}/${o.id}`;
  };
  for (const o of liveById.values()) tokens.set(o.id, liveAddress(o));
  addValueTokens(tokens, matching);

  const changes: Change[] = [];
  const fingerprints: Record<string, string> = {};
  let unchanged = 0;
  /** Unchanged objects whose write-only secrets the marker keeps no digest of. */
  const uncompared = new Map<string, { d: DesiredObject; fields: string[] }>();
  const dependents = new Map<string, Set<string>>(); // address -> changes that must wait for it (deletes)

  const base = (d: DesiredObject | null, o: LiveObject | null, action: Change['action']): Change => ({
    address: d?.address ?? liveAddress(o!),
    action,
    kind: (d ?? o)!.descriptor.kind,
    name:
      d?.name ??
      liveAddress(o!)
        .slice(o!.descriptor.kind.length + 1)
        .replace('/', ' '),
    id: o?.id ?? null,
    before: null,
    after: null,
    fields: [],
    patch: [],
    dependsOn: d ? [...d.references] : [],
    ...(d ? { source: d.source } : {}),
  });

  for (const { desired: d, live: o } of matching.pairs) {
    const after = canonical(d.descriptor, d.normal, tokens);
    const before = comparableLive(d.descriptor, after, canonical(o.descriptor, liveNormal(o), tokens));
    const changed = changedFields(before, after);
    const adopting = o.descriptor.metadata && o.marker?.stack !== stack;
    // Write-only secrets are compared through the marker's digests (write-only-secrets.ts).
    const secrets = compareSecrets(d, o, stack);
    if (changed.length === 0 && !adopting && secrets.changed.length === 0 && !secrets.resend) {
      unchanged += 1;
      if (secrets.notCompared.length > 0) uncompared.set(d.address, { d, fields: secrets.notCompared });
      continue;
    }
    const immutable = changed.filter((f) => d.descriptor.immutable.includes(f));
    const change = base(d, o, immutable.length > 0 ? 'replace' : 'update');
    const [b, a] = maskEnv(
      envFields(d, after),
      ...mask(d.descriptor.sensitive, before, after),
      recordedFields(o.marker?.stack === stack ? o.marker.env : undefined),
    );
    Object.assign(change, { before: b, after: a, ...fieldChanges(b!, a!, d.descriptor.sensitive) });
    if (immutable.length > 0) change.reason = `${immutable.join(', ')} cannot be updated`;
    else if (adopting) {
      change.reason = takeOverReason(o, stack);
      if (changed.length === 0 && secrets.changed.length === 0 && !secrets.resend) change.cause = 'adopt';
    }
    showSecretChanges(change, secrets);
    fingerprints[o.id] = fingerprint(o.raw);
    // What the live object referenced and no longer will: those deletes wait for this change.
    // (Only what it stops referencing: a reference it keeps is not waited for, which would be a
    // cycle when the referenced object is replaced.)
    const kept = new Set(referencesIn(d.descriptor, after));
    for (const token of referencesIn(o.descriptor, before)) {
      if (!kept.has(token)) dependents.set(token, (dependents.get(token) ?? new Set()).add(change.address));
    }
    changes.push(change);
  }

  // Marker refreshes: owned, unchanged objects whose marker is not what apply would write.
  const metadataFor = metadataWriter(matching, stack);
  const planned = new Set(changes.map((c) => c.address));
  for (const { desired: d, live: o } of matching.pairs) {
    if (planned.has(d.address) || !d.descriptor.metadata || o.marker?.stack !== stack) continue;
    const want = metadataFor(d);
    if (want === undefined || want === o.raw.metadata) continue;
    // A write sends the secrets: they need no comparison then.
    uncompared.delete(d.address);
    const change = base(d, o, 'update');
    Object.assign(change, { cause: 'marker', reason: markerReason(o.marker, parseMarker(want).marker!) });
    fingerprints[o.id] = fingerprint(o.raw);
    changes.push(change);
    planned.add(d.address);
    unchanged -= 1;
  }

  // Re-points: a replace of a kind without a unique key is done create-first (apply/graph.ts);
  // unchanged objects that reference it are then written to point at the new object.
  const replaced = changes.filter((c) => c.action === 'replace' && c.id !== null);
  if (replaced.length > 0) {
    const pairByLiveId = new Map(matching.pairs.map((p) => [p.live.id, p]));
    const replacedById = new Map(replaced.map((c) => [c.id!, c]));
    for (const { desired: d, live: o } of matching.pairs) {
      if (planned.has(d.address)) continue;
      const target = referencesIn(o.descriptor, liveNormal(o))
        .map((id) => replacedById.get(id))
        .find((c) => c !== undefined);
      const pair = target && pairByLiveId.get(target.id!);
      if (!target || !pair || pair.desired.descriptor.uniqueKeys || pair.desired.descriptor.naturalKey || !d.references.includes(target.address)) continue;
      const change = base(d, o, 'update');
      Object.assign(change, { cause: 'repoint', reason: `references ${target.address}, which is replaced: pointed at the new object` });
      fingerprints[o.id] = fingerprint(o.raw);
      changes.push(change);
      planned.add(d.address);
      unchanged -= 1;
    }
  }

  const creates = new Map(matching.creates.map((d) => [d.address, d]));
  for (const d of matching.creates) {
    const change = base(d, null, 'create');
    const after = canonical(d.descriptor, d.normal, tokens);
    change.after = maskEnv(envFields(d, after), null, mask(d.descriptor.sensitive, null, after)[1])[1];
    changes.push(change);
  }

  for (const o of liveById.values()) {
    const change = base(null, o, 'delete');
    const duplicate = duplicates.get(o.id);
    if (duplicate) Object.assign(change, { reason: duplicateReason(duplicate), duplicate: { keep: duplicate.keep.id, cause: duplicate.cause } });
    // Duplicates go without --prune (duplicates.ts); other deletes need it.
    else if (!input.prune) change.needsPrune = true;
    const normal = canonical(o.descriptor, liveNormal(o), tokens);
    // What this stack wrote from secret variables stays masked when its manifest is gone.
    change.before = maskEnv([], mask(o.descriptor.sensitive, normal, null)[0], null, recordedFields(o.marker?.stack === stack ? o.marker.env : undefined))[0];
    fingerprints[o.id] = fingerprint(o.raw);
    const parent = o.parentId !== undefined ? liveById.get(o.parentId) : undefined;
    if (parent) dependents.set(liveAddress(parent), (dependents.get(liveAddress(parent)) ?? new Set()).add(change.address));
    for (const token of referencesIn(o.descriptor, normal)) dependents.set(token, (dependents.get(token) ?? new Set()).add(change.address));
    changes.push(change);
  }
  // Make before break: a child deleted from a parent that stays (a rule whose CIDR changed) waits
  // for the creates of its new siblings, so the parent never passes through having none (the
  // service refuses to delete the last rule of a policy a dashboard restriction uses).
  const createsByParent = new Map<string, DesiredObject[]>();
  for (const d of matching.creates) {
    if (d.parent) append(createsByParent, d.parent, d);
  }
  const deleteOf = new Map(changes.filter((c) => c.action === 'delete').map((c) => [c.id, c]));
  const childDeletes = new Map<string, Change[]>(); // parent address -> deletes of its children
  for (const o of matching.deletes) {
    const parentAddress = o.parentId !== undefined ? tokens.get(o.parentId) : undefined;
    if (parentAddress === undefined) continue;
    const change = deleteOf.get(o.id)!;
    append(childDeletes, parentAddress, change);
    if (liveById.has(o.parentId!)) continue;
    for (const d of createsByParent.get(parentAddress) ?? []) {
      if (d.descriptor === o.descriptor) change.dependsOn.push(d.address);
    }
  }
  // An object that must keep a child in what it uses (`keepsChildren`: a dashboard restriction's
  // policies keep a rule) stops using it before those children are deleted: the deletes wait
  // for its delete, or for the update that takes the parent out of it.
  const releases = (descriptor: KindDescriptor, before: Spec, after: Spec | null, address: string) => {
    if (!descriptor.keepsChildren) return;
    const kept = new Set(after ? descriptor.keepsChildren(after).map((k) => k.token) : []);
    for (const keep of descriptor.keepsChildren(before)) {
      if (kept.has(keep.token)) continue;
      for (const c of childDeletes.get(keep.token) ?? []) if (c.kind === keep.childKind) c.dependsOn.push(address);
    }
  };
  // Only kinds that keep children (most do not: their normal forms are not built again for nothing).
  for (const o of matching.deletes) {
    if (o.descriptor.keepsChildren) releases(o.descriptor, canonical(o.descriptor, liveNormal(o), tokens), null, liveAddress(o));
  }
  for (const { desired: d, live: o } of matching.pairs) {
    if (!d.descriptor.keepsChildren) continue;
    releases(d.descriptor, canonical(o.descriptor, liveNormal(o), tokens), canonical(d.descriptor, d.normal, tokens), d.address);
  }
  // A create whose unique key (a hostport) an owned object being deleted still holds (an edge
  // renamed in the manifests) waits for that delete.
  const freedBy = new Map<string, string>();
  for (const o of matching.deletes) {
    for (const k of o.descriptor.uniqueKeys?.(liveNormal(o)) ?? []) freedBy.set(k.key, liveAddress(o));
  }
  for (const change of changes) {
    const d = change.action === 'create' ? creates.get(change.address) : undefined;
    for (const k of d?.descriptor.uniqueKeys?.(d.normal) ?? []) {
      const holder = freedBy.get(k.key);
      if (holder && !change.dependsOn.includes(holder)) change.dependsOn.push(holder);
    }
    if (change.action === 'delete' || change.action === 'replace') {
      change.dependsOn = [...new Set([...change.dependsOn, ...(dependents.get(change.address) ?? [])])].filter((a) => a !== change.address);
    }
  }

  // A bot user taking a name another gives up waits for that rename (bot-registry/name-order.ts).
  for (const [address, waits] of nameHandOffs(matching)) {
    const change = changes.find((c) => c.address === address);
    if (change) change.dependsOn.push(...waits.filter((a) => changes.some((c) => c.address === a) && !change.dependsOn.includes(a)));
  }
  // The bot user registry records the bot users as this plan leaves them (bot-registry/registry.ts);
  // with --from-stack, the old stack's registry stops recording the bot users that moved.
  for (const registry of registryChanges(matching, stack, changes)) {
    changes.push(registry.change);
    if (registry.fingerprint) fingerprints[registry.fingerprint.id] = registry.fingerprint.value;
  }

  const rank = (c: Change) => (c.action === 'delete' ? 1 : 0);
  const kindOrder = (c: Change) => kindRank.get(c.kind) ?? KINDS.length;
  const sorted = [...changes].sort((x, y) => rank(x) - rank(y) || (kindOrder(x) - kindOrder(y)) * (rank(x) ? -1 : 1) || x.address.localeCompare(y.address));
  const count = (action: Change['action']) => changes.filter((c) => c.action === action && !c.needsPrune).length;
  const notPruned = changes.filter((c) => c.needsPrune).length;
  const ignored = ignoredObjects(matching);
  return {
    format_version: 1,
    target: input.target,
    stack,
    ...(input.fromStack !== undefined ? { from_stack: input.fromStack } : {}),
    created_at: (input.now ?? new Date()).toISOString(),
    summary: {
      create: count('create'),
      update: count('update'),
      delete: count('delete'),
      replace: count('replace'),
      unchanged,
      ...(notPruned > 0 ? { not_pruned: notPruned } : {}),
    },
    changes: order(sorted),
    unmanaged: matching.unmanaged.map((o): UnmanagedObject => ({
      kind: o.descriptor.kind,
      id: o.id,
      label: o.marker ? `${o.marker.name} (stack ${o.marker.stack})` : o.descriptor.label(liveNormal(o)),
    })),
    ...(matching.unreadable ? { unreadable: matching.unreadable } : {}),
    ...(holds.held.length > 0 ? { held_duplicates: holds.held } : {}),
    ...(ignored.length > 0 ? { ignored } : {}),
    ...notCompared(uncompared, metadataFor),
    fingerprints,
    manifest_checksum: input.checksum,
    ...(input.files ? { manifest_files: input.files } : {}),
    requests: input.requests,
    ...pruneScopeNote(matching),
  };
}

/**
 * The write-only secrets of the unchanged objects that cannot be compared, and why: the
 * metadata has no room for their digests (apply drops them rather than exceed 4096 bytes), or
 * the marker has none yet. A rotation of them is not seen until `secret_version` changes.
 */
function notCompared(
  uncompared: ReadonlyMap<string, { d: DesiredObject; fields: string[] }>,
  metadataFor: (d: DesiredObject) => string | undefined,
): Pick<Plan, 'secrets_not_compared'> {
  if (uncompared.size === 0) return {};
  const list = [...uncompared.values()].map(({ d, fields }) => {
    const kept = parseMarker(metadataFor(d)).marker?.secrets;
    const why =
      kept === undefined
        ? 'the metadata has no room for their digests (4096 bytes); change spec.secret_version to send them again'
        : 'the ownership marker keeps no digest of them; change spec.secret_version to send them again';
    return { address: d.address, fields, why };
  });
  return { secrets_not_compared: list.sort((a, b) => a.address.localeCompare(b.address)) };
}

/** The changed write-only secrets as fields of the change (never their values), and a new secret_version as its reason. */
function showSecretChanges(change: Change, secrets: SecretComparison): void {
  for (const path of secrets.changed) {
    change.fields.push({ path, before: SENSITIVE, after: SENSITIVE_CHANGED, sensitive: true });
    change.patch.push({ op: 'replace', path: `/${path.split('.').join('/')}`, value: SENSITIVE_CHANGED });
  }
  if (!secrets.resend) return;
  const { from, to } = secrets.resend;
  change.fields.push({ path: 'secret_version', before: from ?? null, after: to, sensitive: false });
  const why = `secret_version ${from === undefined ? 'set' : `${from} -> ${to}`}: the write-only secrets are sent again`;
  change.reason = change.reason ? `${change.reason}; ${why}` : why;
}

/** Why a marker is refreshed, from what differs between the live marker and the one to write. */
function markerReason(live: Marker | undefined, want: Marker): string {
  const what: string[] = [];
  if (live?.name !== undefined && live.name !== want.name) what.push(`records the manifest name "${want.name}" (renamed from "${live.name}")`);
  if (live?.path !== want.path)
    what.push(want.path === undefined ? 'records no manifest path (read from standard input)' : `records the manifest path ${want.path}`);
  if (Boolean(live?.preventDestroy) !== Boolean(want.preventDestroy)) what.push(`records lifecycle.prevent_destroy: ${Boolean(want.preventDestroy)}`);
  if (live?.children !== want.children) what.push('records the children the manifest declares');
  if (live?.hash !== want.hash) what.push('records the hash of the spec as applied');
  if (JSON.stringify(live?.secrets) !== JSON.stringify(want.secrets) && want.secrets !== undefined)
    what.push('records the digests of the write-only secrets (sending them)');
  if (live?.secretVersion !== want.secretVersion) what.push(`records secret_version ${want.secretVersion ?? 'none'}`);
  if (JSON.stringify(live?.env) !== JSON.stringify(want.env))
    what.push(want.env === undefined ? 'records no field from a secret variable' : 'records the fields written from secret variables (never their values)');
  return `ownership marker refresh: ${what.length > 0 ? what.join('; ') : 'rewritten in the current format'}`;
}
