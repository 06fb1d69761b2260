/**
 * Step 8, export: live state -> manifests, the reverse of load.
 *
 * 1. Observe (list requests only), as plan does.
 * 2. Choose: every top-level object this stack owns; with `all`, every other one too (with
 *    `adopt: <id>` where adoption needs it: objects with metadata, which carry no marker of
 *    this stack). Bot users carry no marker: those the stack's bot user registry records
 *    (bot-registry/registry.ts) are the stack's own, exported under their recorded manifest
 *    name without `adopt:` (the registry keeps their identity through `spec.name` renames);
 *    others only with `all`, with `adopt: <id>` so that a later rename keeps their identity.
 *    Re-applying one changes nothing. Children (rules, routes) go with their parent.
 * 3. Name each chosen object (names.ts), then write each spec (spec.ts): references by name,
 *    secrets as `${env:...}` placeholders, server defaults left out, the user's metadata
 *    restored without the marker.
 * 4. Each object this stack owns in the file its marker records (the registry's entry for a bot
 *    user), relative to the output directory (paths.ts), so that planning the export records
 *    the same paths and changes nothing; the others in one file per manifest kind (files.ts).
 * Pure apart from observe: the caller writes the files.
 */
import { MANIFEST_KINDS, childrenOf, referencedValueField } from '../kinds/index.js';
import type { LiveObject } from '../live.js';
import type { LiveApi } from '../ports.js';
import type { UnreadableKind } from '../plan-model.js';
import { readRegistry } from '../bot-registry/records.js';
import { observe } from '../plan/observe.js';
import { liveNormal } from '../identity/normal-form.js';
import { renderFiles, type ExportFile, type ManifestDocument } from './files.js';
import { exportFileOf } from './paths.js';
import { VALID_NAME, nameObjects } from './names.js';
import { toManifestSpec } from './spec.js';
import { append } from '../append.js';
import { namesIn } from '../identity/env-fields.js';

export interface SecretPlaceholder {
  /** The variable the manifests read: `${env:<variable>}`. */
  variable: string;
  /** Address of the object and dotted path of the field (`webhook_verification.secret`). */
  address: string;
  path: string;
}

export interface ExportResult {
  files: ExportFile[];
  /** The variables to set before planning the exported manifests, in file order. */
  secrets: SecretPlaceholder[];
  /** Objects written (children included). */
  exported: number;
  /** Top-level objects left out because this stack does not own them (`all` exports them). */
  notOwned: number;
  /**
   * Other stacks whose objects `all` exported (with `adopt: <id>`), sorted: applying them moves
   * them, which needs `--from-stack <stack>`, one stack per apply (plan/stacks.ts).
   */
  otherStacks: string[];
  /** Objects that cannot be written as a manifest, with the reason. */
  skipped: { kind: string; id: string; reason: string }[];
  /** Collections the account cannot list (plan/unreadable.ts): none of their objects is exported. */
  unreadable: UnreadableKind[];
  requests: number;
}

export interface ExportOptions {
  api: LiveApi;
  stack: string;
  /** Also objects this stack does not own (adopted on the next apply). */
  all?: boolean;
  /**
   * Where the output directory sits under the repository root that recorded paths are relative
   * to (`recordedDirectory(out)`; '' by default: it is the root).
   */
  within?: string;
}

const variableName = (text: string) =>
  text
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .replace(/^(?=\d)/, '_');

export async function exportLive(options: ExportOptions): Promise<ExportResult> {
  const { live, requests, registryObjects, unreadable } = await observe(options.api);
  const stack = options.stack;
  const registry = readRegistry(stack, registryObjects);
  const recorded = new Map([...registry.entries].map(([name, entry]) => [entry.id, name]));
  const recordedName = (o: LiveObject) => (o.descriptor.kind === 'BotUser' ? recorded.get(o.id) : undefined);
  const recordedPath = (o: LiveObject) => (o.descriptor.kind === 'BotUser' ? registry.entries.get(recordedName(o) ?? '')?.path : o.marker?.path);
  const owned = (o: LiveObject) => o.marker?.stack === stack || recordedName(o) !== undefined;
  const skipped: ExportResult['skipped'] = [];
  const topLevel = live.filter((o) => o.descriptor.manifestKind !== undefined);
  const chosen = topLevel.filter((o) => owned(o) || options.all);
  const withNormal = chosen.map((o) => ({ live: o, normal: liveNormal(o) }));
  const names = nameObjects(withNormal, stack, recordedName);
  const refNames = new Map<string, string>();
  for (const [o, name] of names) {
    refNames.set(`${o.descriptor.kind}/${o.id}`, name);
    // What references by value name it by (a reserved TCP address's `addr`, a TCP edge's hostport).
    const field = referencedValueField(o.descriptor.kind);
    if (field !== undefined && typeof o.raw[field] === 'string') refNames.set(`${o.descriptor.kind}/${String(o.raw[field])}`, name);
  }

  const secrets: SecretPlaceholder[] = [];
  const taken = new Set<string>();
  const secretFor = (address: string, label: string) => (path: (string | number)[]) => {
    const dotted = path
      .map((p) => (typeof p === 'number' ? `[${p}]` : p))
      .join('.')
      .replace(/\.\[/g, '[');
    const base = variableName(`${label}_${dotted}`) || 'SECRET';
    let variable = base;
    for (let i = 2; taken.has(variable); i += 1) variable = `${base}_${i}`;
    taken.add(variable);
    secrets.push({ variable, address, path: dotted });
    return variable;
  };

  /**
   * The fields the marker records as written from secret `${env:}` variables: their manifest
   * text is exported, never the live value, and its variables are listed with the others.
   */
  const envTemplates = (o: LiveObject, address: string): Record<string, string> | undefined => {
    const record = o.marker?.env;
    if (!record) return undefined;
    for (const [pointer, template] of Object.entries(record)) {
      for (const variable of namesIn(template)) secrets.push({ variable, address, path: pointer.slice(1).replace(/\//g, '.') });
    }
    return record;
  };

  const childrenByParent = new Map<string, LiveObject[]>();
  for (const c of live) if (c.parentId !== undefined) append(childrenByParent, c.parentId, c);

  const documents: ManifestDocument[] = [];
  const files = new Map<ManifestDocument, string>();
  let exported = 0;
  for (const { live: o, normal } of withNormal) {
    const name = names.get(o)!;
    if (!VALID_NAME.test(name)) {
      skipped.push({ kind: o.descriptor.kind, id: o.id, reason: `"${name}" cannot be a manifest name (1-200 characters, no spaces or slashes)` });
      continue;
    }
    const address = `${o.descriptor.kind}/${name}`;
    const spec = toManifestSpec(o.descriptor, normal, { names: refNames, secret: secretFor(address, name), templates: envTemplates(o, address) }, name);
    for (const child of childrenOf(o.descriptor.kind)) {
      const items = (childrenByParent.get(o.id) ?? [])
        .filter((c) => c.descriptor === child)
        .map((c) => ({ c, normal: liveNormal(c) }))
        .map((x) => ({ ...x, key: child.naturalKey!(x.normal) }))
        .sort((a, b) => a.key.localeCompare(b.key));
      if (items.length === 0) continue;
      spec[child.child!.field] = items.map(({ c, normal: n, key }) =>
        toManifestSpec(
          child,
          n,
          { names: refNames, secret: secretFor(`${child.kind}/${name}/${key}`, `${name}_${key}`), templates: envTemplates(c, `${child.kind}/${name}/${key}`) },
          name,
        ),
      );
      exported += items.length;
    }
    const adopt = !owned(o) ? { adopt: o.id } : {};
    const document: ManifestDocument = { kind: o.descriptor.manifestKind!, name, ...adopt, spec };
    documents.push(document);
    files.set(document, exportFileOf(document.kind, owned(o) ? recordedPath(o) : undefined, options.within));
    exported += 1;
  }
  const order = new Map(secrets.map((s, i) => [s, i]));
  return {
    files: renderFiles(
      documents,
      MANIFEST_KINDS.map((k) => k.manifestKind!),
      { target: options.api.target.embedded ? 'the embedded reference server (.gatehouse/server.db)' : options.api.target.url, stack },
      (d) => files.get(d)!,
    ),
    secrets: [...secrets].sort((a, b) => a.address.localeCompare(b.address) || order.get(a)! - order.get(b)!),
    exported,
    notOwned: topLevel.length - chosen.length,
    otherStacks: [...new Set(withNormal.flatMap(({ live: o }) => (o.marker && !owned(o) ? [o.marker.stack] : [])))].sort(),
    skipped,
    unreadable,
    requests,
  };
}
