/**
 * One live object's normal form -> the spec of a manifest, the reverse of resolve + fromManifest:
 *
 * - references: a live id becomes the name of the exported object it belongs to, or `{id}`
 *   (`id:<id>` for a weighted backend's key) when that object is not exported; a reference by
 *   value (a TCP edge's hostport) becomes `{reserved_tcp_address: <name>}` when the value is
 *   an exported object's (`names` holds `Kind/<value>` too), else stays the value;
 * - secrets: a non-empty value at a sensitive path (a write-only one included) becomes
 *   `${env:VARIABLE}`, and stays even where the normal form cannot tell it is there;
 * - server defaults: every map key whose removal leaves the normal form unchanged is left out
 *   (the descriptor's `fromManifest` fills it back in), so a value the server merely echoes,
 *   such as a circuit breaker's zeros, is never written;
 * - in other strings, a `$` before `{` or a name is escaped as `$$` so load reads them literally;
 *   in text the service interpolates itself (`serviceText`: traffic policies, header values),
 *   where load keeps `${...}` and `$NAME` as written, only what load would read as gatehouse's
 *   (`${env:`, `${var:`, a `$$` escape) is;
 * - a field the ownership marker records as written from secret `${env:}` variables gets the
 *   manifest's text back (`key=${env:API_KEY}`), never the value the live object holds
 *   (identity/env-fields.ts).
 */
import type { KindDescriptor, Pattern, Spec } from '../kinds/types.js';
import { canonicalJson } from '../identity/canonical-json.js';
import { isMap, rewrite } from '../identity/patterns.js';
import { pathOf, pointerOf, valueAt } from '../identity/env-fields.js';

export interface SpecContext {
  /** `Kind/<live id>` -> exported manifest name. */
  names: Map<string, string>;
  /** Called for each secret found; returns the variable name to write. */
  secret(path: (string | number)[]): string;
  /** The marker's env record: JSON Pointer in the normal form -> the manifest's text. */
  templates?: Readonly<Record<string, string>> | undefined;
}

export function toManifestSpec(descriptor: KindDescriptor, normal: Spec, ctx: SpecContext, name: string): Spec {
  let spec: unknown = escapeEnv(normal, descriptor.serviceText ?? []);
  for (const ref of descriptor.refs) {
    const isKey = ref.pattern.at(-1) === '{}';
    const byValue = ref.byValue;
    spec = rewrite(spec, ref.pattern, (value) => {
      const id = String(value);
      const named = ctx.names.get(`${ref.kind}/${id}`);
      // A value (a TCP edge's hostport) names an exported object by reference, else stays written out.
      if (byValue) return named !== undefined ? { [byValue.field]: named } : value;
      if (named !== undefined) return named;
      return isKey ? `id:${id}` : { id };
    });
  }
  for (const ref of descriptor.refs.filter((r) => r.set)) {
    // A set of references in a stable, readable order: names (or values), then the others.
    const rank = (v: unknown) => (typeof v === 'string' ? `0${v}` : `1${canonicalJson(v)}`);
    spec = rewrite(spec, ref.pattern.slice(0, -1), (list) => (Array.isArray(list) ? [...list].sort((a, b) => rank(a).localeCompare(rank(b))) : list));
  }
  const templates = ctx.templates ?? {};
  for (const pattern of descriptor.sensitive) {
    // A write-only secret reads back as an opaque value (WriteOnly): a placeholder all the same.
    // One the marker records the manifest's text of gets that text (below) instead.
    const placeholder = (value: unknown, path: (string | number)[]) =>
      value !== null && value !== undefined && value !== '' && templates[pointerOf(path)] === undefined ? `\${env:${ctx.secret(path)}}` : value;
    spec = rewrite(spec, pattern, placeholder, { values: true });
  }
  for (const [pointer, template] of Object.entries(templates)) {
    const path = pathOf(pointer);
    if (valueAt(spec, path) !== undefined) spec = setAt(spec, path, template);
  }
  return minimize(spec as Spec, (s) => descriptor.fromManifest(s, name));
}

function escapeEnv(value: unknown, serviceText: readonly Pattern[], path: readonly string[] = []): unknown {
  if (typeof value === 'string') return serviceText.some((p) => matchesPath(p, path)) ? escapeServiceText(value) : escapeText(value);
  if (Array.isArray(value)) return value.map((item) => escapeEnv(item, serviceText, [...path, '*']));
  if (isMap(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, escapeEnv(v, serviceText, [...path, k])]));
  return value;
}

/** Whether `pattern` (`*`: any key or index) names `path` (list indexes written `*`). */
const matchesPath = (pattern: Pattern, path: readonly string[]) => pattern.length === path.length && pattern.every((p, i) => p === '*' || p === path[i]);

/**
 * Every `$` that load would read as a placeholder (`${...}`, `$NAME`) is doubled: one more `$`
 * at the end of a run before `{` or a name. A replacer function, since in a replacement string
 * `$$` would mean one `$`.
 */
const escapeText = (text: string) => text.replace(/\$(?=[{A-Za-z_])/g, () => '$$');

/**
 * Where load keeps the service's `${...}` and `$NAME` as written, a run of `$` before `{` or a
 * name gets one `$` more only when load would read it otherwise: two or more (load reads `$$`
 * as one `$`), or one that starts `${env:` or `${var:`.
 */
const escapeServiceText = (text: string) =>
  text.replace(/\$+(?=[{A-Za-z_])/g, (run: string, at: number) => (run.length >= 2 || /^\{(?:env|var):/.test(text.slice(at + run.length)) ? `${run}$` : run));

/**
 * Removes, top-down, every map key whose absence gives the same normal form; descends into
 * the maps (and maps inside lists) it has to keep.
 */
function minimize(spec: Spec, normalOf: (spec: Spec) => Spec): Spec {
  const normal = (s: Spec): string | undefined => {
    try {
      return canonicalJson(normalOf(s));
    } catch {
      return undefined;
    }
  };
  const target = normal(spec);
  let current = structuredClone(spec);
  const visit = (path: (string | number)[]) => {
    const node = valueAt(current, path);
    if (Array.isArray(node)) {
      node.forEach((item, i) => isMap(item) && visit([...path, i]));
      return;
    }
    if (!isMap(node)) return;
    for (const key of Object.keys(node)) {
      if (isPlaceholder(node[key])) continue;
      const candidate = structuredClone(current);
      delete (valueAt(candidate, path) as Spec)[key];
      if (normal(candidate) === target) current = candidate;
      else visit([...path, key]);
    }
  };
  visit([]);
  return current;
}

/** A secret's placeholder stays even where the normal form cannot see it (write-only fields). */
const isPlaceholder = (value: unknown) => typeof value === 'string' && value.startsWith('${env:');

/** A copy of `root` with `value` at `path` (copied along the path). */
function setAt(root: unknown, path: readonly (string | number)[], value: unknown): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path as [string | number, ...(string | number)[]];
  const copy = (Array.isArray(root) ? [...root] : { ...(root as Spec) }) as Record<string | number, unknown>;
  copy[head] = setAt(copy[head], rest, value);
  return copy;
}
