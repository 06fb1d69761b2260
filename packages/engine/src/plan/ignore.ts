/**
 * Ignore rules: fields of an object that others own (a team's dashboard edits, an autoscaler,
 * another tool), which plan, apply and drift leave as they are live.
 *
 * 1. `attachIgnoreRules` (after resolve) gives each desired object the patterns of its manifest's
 *    `lifecycle.ignore_changes` and of gatehouse.yaml's `ignore:` rules whose kind glob names its
 *    manifest kind. Paths are written over the manifest's spec; a path through the children's
 *    field (`rules[*].description`, `routes[*].circuit_breaker`) applies to every child, relative
 *    to it. Manifest and normal forms use the same field names, so the patterns apply to the
 *    normal form as written.
 * 2. `applyIgnoreRules` (after match) replaces each paired object whose ignored fields differ
 *    by a view whose normal form holds the live values there (identity/ignored-fields.ts), and
 *    which lists those fields (`ignoredFields`). Plan, drift and apply all read the view, so an
 *    ignored field is never a change, never drift and never written; the plan lists the
 *    objects and their ignored fields (`Plan.ignored`).
 * 3. The marker's hashes leave the ignored fields out (identity/hash.ts).
 *
 * On create, rules do nothing: the object is created with the manifest's values, as Terraform
 * creates a resource with `ignore_changes`: there is no live value to keep. A replace (a field
 * that cannot be updated changed) keeps the live value of the ignored fields on the new object.
 */
import picomatch from 'picomatch';
import type { DesiredObject } from '../desired.js';
import type { Pattern, Spec } from '../kinds/types.js';
import { childrenOf } from '../kinds/index.js';
import type { IgnoredObject } from '../plan-model.js';
import { canonicalJson } from '../identity/canonical-json.js';
import { parseIgnorePath } from '../identity/ignore-path.js';
import { overlayIgnored } from '../identity/ignored-fields.js';
import { canonical, liveNormal } from '../identity/normal-form.js';
import { isMap } from '../identity/patterns.js';
import { fieldChanges } from './diff.js';
import type { Matching } from './matching.js';
import { referenceTokens } from './reference-tokens.js';

/** One rule of gatehouse.yaml's `ignore:` (checked by readProject): a kind glob and its paths. */
export interface ProjectIgnoreRule {
  kind: string;
  paths: readonly string[];
}

/** The patterns of one manifest document: its own object's, and its children's per field. */
interface DocumentRules {
  own: readonly Pattern[];
  children: ReadonlyMap<string, readonly Pattern[]>;
}

/**
 * Sets `ignore` on each desired object a rule applies to (objects without rules are left
 * untouched). Paths that do not parse are skipped: validate reports them (load/ignore-paths.ts).
 */
export function attachIgnoreRules(desired: readonly DesiredObject[], project: readonly ProjectIgnoreRule[] = []): void {
  const matchers = project.map((rule) => ({ matches: picomatch(rule.kind), paths: rule.paths }));
  const byDocument = new Map<object, DocumentRules | undefined>();
  for (const d of desired) {
    const value = d.doc.value as { kind: string; lifecycle?: { ignore_changes?: readonly string[] } };
    if (!byDocument.has(d.doc)) {
      const texts = [...(value.lifecycle?.ignore_changes ?? []), ...matchers.filter((m) => m.matches(value.kind)).flatMap((m) => m.paths)];
      byDocument.set(d.doc, texts.length > 0 ? documentRules(d.parent === undefined ? d.descriptor.kind : d.descriptor.child!.parentKind, texts) : undefined);
    }
    const rules = byDocument.get(d.doc);
    if (!rules) continue;
    const patterns = d.descriptor.child ? rules.children.get(d.descriptor.child.field) : rules.own;
    if (patterns && patterns.length > 0) d.ignore = patterns;
  }
}

function documentRules(kind: string, texts: readonly string[]): DocumentRules {
  const childFields = new Set(childrenOf(kind).map((c) => c.child!.field));
  const own: Pattern[] = [];
  const children = new Map<string, Pattern[]>();
  for (const text of new Set(texts)) {
    const parsed = parseIgnorePath(text);
    if (!('pattern' in parsed)) continue;
    const [head, second, ...rest] = parsed.pattern;
    if (!childFields.has(head!)) own.push(parsed.pattern);
    else if (second === '*' && rest.length > 0) children.set(head!, [...(children.get(head!) ?? []), rest]);
  }
  return { own: Object.freeze(own), children: new Map([...children].map(([field, patterns]) => [field, Object.freeze(patterns)])) };
}

/**
 * The matching with every paired object whose ignored fields differ from live replaced by a
 * view holding the live values there (`ignoredFields` names them, as the plan shows paths).
 */
export function applyIgnoreRules(matching: Matching): Matching {
  if (!matching.pairs.some((p) => p.desired.ignore)) return matching;
  const tokens = referenceTokens(matching);
  // Live references compared by identity: a live id of a known object is that object's address.
  const same = (desired: unknown, live: unknown) => canonicalJson(desired) === canonicalJson(asTokens(live, tokens));
  const pairs = matching.pairs.map((pair) => {
    const d = pair.desired;
    if (!d.ignore) return pair;
    const normal = overlayIgnored(d.normal, liveNormal(pair.live), d.ignore, same);
    if (normal === d.normal) return pair;
    // The fields the plan would have shown, by its own comparison (sets sorted, references as tokens).
    const { fields } = fieldChanges(canonical(d.descriptor, normal, tokens), canonical(d.descriptor, d.normal, tokens), []);
    if (fields.length === 0) return pair;
    return {
      desired: ignoringView(
        d,
        normal,
        fields.map((f) => f.path),
      ),
      live: pair.live,
    };
  });
  return { ...matching, pairs };
}

/** The objects whose ignored fields differ from live, as the plan lists them. */
export function ignoredObjects(matching: Matching): IgnoredObject[] {
  const out: IgnoredObject[] = [];
  for (const { desired: d, live } of matching.pairs) {
    if (d.ignoredFields && d.ignoredFields.length > 0)
      out.push({ address: d.address, kind: d.descriptor.kind, name: d.name, id: live.id, fields: [...d.ignoredFields] });
  }
  return out.sort((a, b) => a.address.localeCompare(b.address));
}

/** `value` with every string that is a known live id replaced by its address. */
function asTokens(value: unknown, tokens: ReadonlyMap<string, string>): unknown {
  if (typeof value === 'string') return tokens.get(value) ?? value;
  if (Array.isArray(value)) return value.map((item) => asTokens(item, tokens));
  if (isMap(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [tokens.get(k) ?? k, asTokens(v, tokens)]));
  return value;
}

/**
 * A paired desired object as plan and apply see it once its ignore rules are applied: its own
 * normal form and ignored fields, everything else read from the object resolve built (a view,
 * not a copy: that object computes its address, name and source when read).
 */
function ignoringView(original: DesiredObject, normal: Spec, ignoredFields: readonly string[]): DesiredObject {
  return new Proxy(original, {
    get: (target, key) => (key === 'normal' ? normal : key === 'ignoredFields' ? ignoredFields : Reflect.get(target, key)),
  });
}
