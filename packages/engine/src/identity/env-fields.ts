/**
 * Where the values of secret `${env:}` variables sit in an object's normal form, and how every
 * output masks them (load/env-policy.ts says which variables are secret).
 *
 * Interpolation records each string that took a secret value (`LoadedDocument.secrets`). A
 * normal form is built from the manifest by its kind (defaults filled in, header names
 * lowercased, set-valued lists sorted), so a value is found again by content: every string of
 * the normal form that holds a secret value (compared without case) is an env field, and so is
 * the field at the manifest's own path. Masking is coarse on purpose: a list that holds one is
 * masked whole (its order may differ on the live side), and a short value masks every string
 * that happens to hold it. Both err on the side of showing less.
 *
 * Masked, a field shows `(sensitive: env NAME)` on both sides of a diff, and
 * `(sensitive: env NAME, changed)` on the new side when the values differ: whether they differ
 * is decided on the values themselves, which no output ever holds.
 *
 * The ownership marker records the env fields of what apply wrote, with the manifest's text
 * (`key=${env:API_KEY}`, never the value): a later plan masks them on the live side even when
 * the manifest no longer says where they are (a delete, a field made plain), and export writes
 * the text back.
 */
import type { DesiredObject } from '../desired.js';
import type { Spec } from '../kinds/types.js';
import { envLabel, type SecretUse } from '../load/env-policy.js';
import { canonicalJson } from './canonical-json.js';

/** One env field: its path in the normal form, the variables it holds, and the manifest's text when known. */
export interface EnvField {
  path: (string | number)[];
  names: string[];
  /** The manifest's text for exactly this value (`key=${env:API_KEY}`), when the value is the substituted one. */
  template?: string;
}

const isContainer = (value: unknown): value is Record<string, unknown> | unknown[] => value !== null && typeof value === 'object';

/** The secret uses of `d`'s own part of its document (a child's item, or the spec without children). */
function usesOf(d: DesiredObject): SecretUse[] {
  const all = d.doc.secrets;
  if (!all || all.length === 0) return [];
  const at = d.specPath;
  return all.filter((u) => at.every((segment, i) => u.path[i] === segment));
}

const found = new WeakMap<object, EnvField[]>();

/** The env fields of `normal`, a normal form of `d` (its own, or a canonical copy). */
export function envFields(d: DesiredObject, normal: Spec): EnvField[] {
  const cached = found.get(normal);
  if (cached) return cached;
  const uses = usesOf(d);
  const fields: EnvField[] = [];
  if (uses.length > 0) {
    const specLength = d.specPath.length;
    const add = (path: (string | number)[], hits: readonly SecretUse[], text: string) => {
      if (fields.some((f) => samePath(f.path, path))) return;
      const names = [...new Set(hits.flatMap((h) => h.names))];
      const exact = hits.find((h) => h.value === text)?.template;
      fields.push({ path, names, ...(exact !== undefined ? { template: exact } : {}) });
    };
    const lowered = uses.map((u) => ({ use: u, lower: u.value.toLowerCase() }));
    const walk = (value: unknown, path: (string | number)[]): void => {
      if (typeof value === 'string') {
        const lower = value.toLowerCase();
        const hits = lowered.filter((u) => u.lower !== '' && lower.includes(u.lower)).map((u) => u.use);
        if (hits.length > 0) add([...path], hits, value);
        return;
      }
      if (Array.isArray(value)) value.forEach((item, i) => walk(item, [...path, i]));
      else if (isContainer(value)) for (const [key, item] of Object.entries(value)) walk(item, [...path, key]);
    };
    walk(normal, []);
    // The manifest's own path, where the normal form keeps it but changed its text.
    for (const use of uses) {
      const path = use.path.slice(specLength) as (string | number)[];
      const value = valueAt(normal, path);
      if (value !== undefined) add(path, [use], typeof value === 'string' ? value : '');
    }
  }
  found.set(normal, fields);
  return fields;
}

const samePath = (a: readonly (string | number)[], b: readonly (string | number)[]) => a.length === b.length && a.every((s, i) => String(s) === String(b[i]));

/** `path` cut at its first list index: a list that holds a secret is masked whole. */
const maskedPath = (path: readonly (string | number)[]): (string | number)[] => {
  const index = path.findIndex((segment) => typeof segment === 'number' || /^\d+$/.test(String(segment)));
  return index < 0 ? [...path] : path.slice(0, index);
};

export function valueAt(root: unknown, path: readonly (string | number)[]): unknown {
  let node = root;
  for (const segment of path) {
    if (!isContainer(node)) return undefined;
    node = (node as Record<string, unknown>)[segment as string];
  }
  return node;
}

/** A copy of `root` with `value` at `path` (copied along the path only). */
function withValueAt(root: unknown, path: readonly (string | number)[], value: unknown): unknown {
  if (path.length === 0) return value;
  if (!isContainer(root)) return root;
  const [head, ...rest] = path as [string | number, ...(string | number)[]];
  const copy = (Array.isArray(root) ? [...root] : { ...root }) as Record<string | number, unknown>;
  if (!(head in copy)) return root;
  copy[head] = withValueAt(copy[head], rest, value);
  return copy;
}

/** The paths to mask, each once, none inside another, with the variables each holds. */
function maskPaths(fields: readonly { path: readonly (string | number)[]; names: readonly string[] }[]): { path: (string | number)[]; names: string[] }[] {
  const out: { path: (string | number)[]; names: string[] }[] = [];
  for (const field of fields) {
    const path = maskedPath(field.path);
    const same = out.find((o) => samePath(o.path, path));
    if (same) same.names = [...new Set([...same.names, ...field.names])];
    else out.push({ path, names: [...field.names] });
  }
  // A path under another is masked with it.
  return out.filter(
    (o) => !out.some((other) => other !== o && other.path.length < o.path.length && other.path.every((s, i) => String(s) === String(o.path[i]))),
  );
}

/**
 * Masks the env fields: `after` at the desired object's fields, `before` at those and at the
 * ones the live marker records (`recorded`). A field present on both sides shows the same label
 * when the values are equal, and `..., changed)` on the new side when they are not.
 */
export function maskEnv(
  fields: readonly EnvField[],
  before: Spec | null,
  after: Spec | null,
  recorded: readonly { path: readonly (string | number)[]; names: readonly string[] }[] = [],
): [Spec | null, Spec | null] {
  if (fields.length === 0 && recorded.length === 0) return [before, after];
  let b: unknown = before;
  let a: unknown = after;
  for (const { path, names } of maskPaths([...fields, ...recorded])) {
    const label = envLabel(names);
    const old = b === null ? undefined : valueAt(b, path);
    const now = a === null ? undefined : valueAt(a, path);
    const desiredHere = fields.some((f) => samePath(maskedPath(f.path), path));
    if (old !== undefined) b = withValueAt(b, path, label);
    if (now !== undefined && desiredHere)
      a = withValueAt(a, path, old === undefined || canonicalJson(old) === canonicalJson(now) ? label : `${label.slice(0, -1)}, changed)`);
  }
  return [b as Spec | null, a as Spec | null];
}

/** Whether a value is a mask this module wrote. */
export const isEnvMask = (value: unknown): boolean => typeof value === 'string' && value.startsWith('(sensitive: env ');

/** JSON Pointer of a path (`/labels/app.kubernetes.io~1name`): how the marker records a field. */
export const pointerOf = (path: readonly (string | number)[]): string => path.map((s) => `/${String(s).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');

/** The path of a JSON Pointer (numbers for list indices). */
export const pathOf = (pointer: string): (string | number)[] =>
  pointer === ''
    ? []
    : pointer
        .slice(1)
        .split('/')
        .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
        .map((s) => (/^\d+$/.test(s) ? Number(s) : s));

/** The `${env:NAME}` names of a template. */
export const namesIn = (template: string): string[] => [...new Set([...template.matchAll(/\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((m) => m[1]!))];

/**
 * What the ownership marker records of `d`'s env fields in `normal` (the form apply writes):
 * pointer -> the manifest's text, or `${env:NAME}` for each variable where the text is not known.
 */
export function envRecord(d: DesiredObject, normal: Spec): Record<string, string> | undefined {
  const fields = envFields(d, normal);
  if (fields.length === 0) return undefined;
  return Object.fromEntries(fields.map((f) => [pointerOf(f.path), f.template ?? f.names.map((n) => `\${env:${n}}`).join('')]));
}

/** The fields a live marker's record names, as `maskEnv` takes them. */
export const recordedFields = (record: Readonly<Record<string, string>> | undefined): { path: (string | number)[]; names: string[] }[] =>
  Object.entries(record ?? {}).map(([pointer, template]) => ({ path: pathOf(pointer), names: namesIn(template) }));
