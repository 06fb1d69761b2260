/**
 * Step 2, validate: each document against its kind's JSON Schema (from @gatehouse/schemas),
 * with ajv collecting every error, each mapped to the file:line:col of the node it is about
 * and phrased as what is expected. The service's value rules and cross-document rules run in
 * `check.ts` once references are resolved.
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import { MANIFEST_KINDS } from '@gatehouse/schemas/runtime';
import { problem, type Problem } from '../problems.js';
import { childrenOf, KINDS as DESCRIPTORS } from '../kinds/index.js';
import type { LoadedDocument } from './documents.js';
// Compiled at build time (ajv standalone code; scripts/generate-validators.mjs), one module
// per kind, so a run neither compiles the schemas nor loads the code of kinds it never reads;
// validators.test.ts fails while a file is stale.
import { VALIDATOR_LOADERS } from './validators/index.generated.js';

const validators = new Map<string, ValidateFunction>();

/**
 * Loads the validators of the kinds among `documents` that are not loaded yet; `validate`
 * needs them loaded. (A kind's module is imported once per process.)
 */
export async function loadValidators(documents: readonly LoadedDocument[]): Promise<void> {
  const kinds = new Set<string>();
  for (const doc of documents) {
    const kind = (doc.value as { kind?: unknown } | null)?.kind;
    if (typeof kind === 'string' && !validators.has(kind) && Object.hasOwn(VALIDATOR_LOADERS, kind)) kinds.add(kind);
  }
  await Promise.all([...kinds].map(async (kind) => validators.set(kind, await VALIDATOR_LOADERS[kind]!())));
}

function validatorFor(kind: string): ValidateFunction {
  const loaded = validators.get(kind);
  if (!loaded) throw new Error(`the validator of ${kind} is not loaded: call loadValidators first`);
  return loaded;
}

const KINDS: readonly string[] = MANIFEST_KINDS;

/** A document that passed its schema: kind, name and spec are known to be well formed. */
export interface ValidDocument extends LoadedDocument {
  value: { kind: string; name: string; spec: Record<string, unknown>; adopt?: string; lifecycle?: { prevent_destroy?: boolean } };
  /**
   * Set when the document failed its schema and only its valid parts go on (see `prune`):
   * `child field/index` of the inline children left out. Such a document is checked, never
   * planned.
   */
  partial?: { excluded: ReadonlySet<string> };
}

export interface Validation {
  valid: ValidDocument[];
  /** `Kind/name` of documents that failed their schema but declare a name: references to them are not reported twice. */
  declared: string[];
  problems: Problem[];
}

/** Checks each document against its kind's schema; `loadValidators(documents)` first. */
export function validate(documents: LoadedDocument[]): Validation {
  const problems: Problem[] = [];
  const valid: ValidDocument[] = [];
  const declared: string[] = [];
  for (const doc of documents) {
    const value = doc.value as Record<string, unknown> | null;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      problems.push(problem('document_shape', 'a manifest document must be a mapping with kind, name and spec', doc.locate([])));
      continue;
    }
    if (typeof value.kind !== 'string' || !KINDS.includes(value.kind)) {
      const where = value.kind === undefined ? doc.locate([]) : doc.locate(['kind']);
      problems.push(problem('unknown_kind', `kind must be one of ${KINDS.join(', ')}${value.kind === undefined ? '; add a kind field' : `, not ${JSON.stringify(value.kind)}`}`, where));
      continue;
    }
    const check = validatorFor(value.kind);
    const ok: boolean = check(value);
    if (ok) valid.push(doc as ValidDocument);
    else {
      const errors = check.errors ?? [];
      problems.push(...explain(errors, doc));
      const partial = prune(doc, errors, check);
      if (partial) valid.push(partial);
      else {
        const named = value as { kind: string; name?: unknown };
        if (typeof named.name === 'string') declared.push(`${named.kind}/${named.name}`);
      }
    }
  }
  return { valid, declared, problems };
}

const segments = (pointer: string): (string | number)[] =>
  pointer === '' ? [] : pointer.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~')).map((s) => (/^\d+$/.test(s) ? Number(s) : s));

const field = (path: (string | number)[]) =>
  path.length === 0 ? 'the document' : path.map((s, i) => (typeof s === 'number' ? `[${s}]` : i === 0 ? s : `.${s}`)).join('');

/**
 * ajv errors -> problems. Errors under a failed union (a reference that is neither a name nor
 * `{id}`) collapse into one problem that states the accepted forms; errors of a discriminated
 * union that picked a branch are kept as they are, since they are about that branch.
 */
export function explain(errors: ErrorObject[], doc: LoadedDocument): Problem[] {
  const unions = new Set(errors.filter((e) => e.keyword === 'anyOf' || (e.keyword === 'oneOf' && !e.schemaPath.includes('discriminator'))).map((e) => e.instancePath));
  const out = new Map<string, Problem>();
  for (const error of errors) {
    const path = segments(error.instancePath);
    const inUnion = [...unions].some((u) => error.instancePath === u || error.instancePath.startsWith(`${u}/`));
    let p: Problem;
    if (inUnion) {
      const union = [...unions].find((u) => error.instancePath === u || error.instancePath.startsWith(`${u}/`))!;
      const unionPath = segments(union);
      const schema = errors.find((e) => e.instancePath === union && (e.keyword === 'anyOf' || e.keyword === 'oneOf'))?.parentSchema as { description?: string } | undefined;
      p = problem('wrong_type', `${field(unionPath)} must be ${schema?.description ?? 'one of the accepted forms'}`, doc.locate(unionPath));
    } else if (error.keyword === 'additionalProperties') {
      const name = (error.params as { additionalProperty: string }).additionalProperty;
      const allowed = Object.keys((error.parentSchema as { properties?: object }).properties ?? {});
      p = problem('unknown_field', `unknown field "${name}" in ${field(path)}; expected one of: ${allowed.join(', ')}`, doc.locate([...path, name], { key: true }));
    } else if (error.keyword === 'required') {
      const name = (error.params as { missingProperty: string }).missingProperty;
      p = problem('missing_field', `${field(path)} is missing the required field "${name}"`, doc.locate(path));
    } else if (error.keyword === 'type' || error.keyword === 'const') {
      const expected = error.keyword === 'const' ? JSON.stringify((error.params as { allowedValue: unknown }).allowedValue) : `a ${(error.params as { type: string }).type}`;
      p = problem('wrong_type', `${field(path)} must be ${expected}`, doc.locate(path));
    } else if (error.keyword === 'enum') {
      p = problem('invalid_value', `${field(path)} must be one of: ${((error.params as { allowedValues: unknown[] }).allowedValues).map(String).join(', ')}`, doc.locate(path));
    } else if (error.keyword === 'maxBytes') {
      p = problem('invalid_value', `${field(path)} must be at most ${String(error.schema)} bytes of UTF-8`, doc.locate(path));
    } else if (error.keyword === 'discriminator') {
      const params = error.params as { tag: string; tagValue?: unknown };
      p = problem('invalid_value', `${field([...path, params.tag])} must be one of the accepted values, not ${JSON.stringify(params.tagValue)}`, doc.locate([...path, params.tag]));
    } else if (error.keyword === 'oneOf') {
      continue; // a discriminated union's summary; its branch's errors say what is wrong
    } else {
      p = problem('invalid_value', `${field(path)} ${error.message ?? 'is invalid'}`, doc.locate(path));
    }
    out.set(`${p.at?.line}:${p.at?.col}:${p.message}`, p);
  }
  return [...out.values()];
}

const childFields = new Map(
  DESCRIPTORS.filter((d) => d.manifestKind).map((d) => [d.manifestKind!, new Set(childrenOf(d.kind).map((c) => c.child!.field))]),
);

/**
 * The valid parts of a document that failed its schema, so that their mistakes (a wrong
 * port, a bad CIDR, a broken reference) are reported in the same run. The parts that hold
 * an error are left out whole, at the coarsest unit that keeps positions and cannot make
 * a neighbouring rule misfire: an inline child (a rule, a route) or a top-level field of
 * the spec (all of `hostports`, all of `tls_termination`). The rest must then pass the
 * schema; when it does not (a required field is wrong, the error is in kind, name or the
 * spec as a whole), the document goes no further, as before. `adopt` and `lifecycle`
 * errors also stop the document: they change what the document is.
 */
function prune(doc: LoadedDocument, errors: ErrorObject[], check: ValidateFunction): ValidDocument | undefined {
  const value = doc.value as ValidDocument['value'];
  if (typeof value.name !== 'string' || value.spec === null || typeof value.spec !== 'object' || Array.isArray(value.spec)) return undefined;
  const children = childFields.get(value.kind) ?? new Set<string>();
  const fields = new Set<string>();
  const excluded = new Set<string>();
  for (const error of errors) {
    const path = segments(error.instancePath);
    if (error.keyword === 'additionalProperties') path.push((error.params as { additionalProperty: string }).additionalProperty);
    if (path[0] !== 'spec' || path.length < 2) return undefined;
    const field = String(path[1]);
    if (children.has(field) && typeof path[2] === 'number') excluded.add(`${field}/${path[2]}`);
    else fields.add(field);
  }
  const spec: Record<string, unknown> = { ...value.spec };
  for (const field of fields) delete spec[field];
  // The schema sees the children that go on; resolve keeps every index, so positions hold.
  const forSchema: Record<string, unknown> = { ...spec };
  for (const field of children) {
    const items = spec[field];
    if (Array.isArray(items)) forSchema[field] = items.filter((_item, i) => !excluded.has(`${field}/${i}`));
  }
  if (!check({ ...value, spec: forSchema })) return undefined;
  return { ...doc, value: { ...value, spec }, partial: { excluded } } as ValidDocument;
}
