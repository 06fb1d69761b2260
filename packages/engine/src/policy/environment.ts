/**
 * The CEL environment of a policy rule for one kind: which variables an expression sees and
 * of which types, and the helper functions. For a kind `K`:
 *
 * - `<var>` and `object`: the object in normal form (secrets masked), plus `name` (its name as
 *   plans show it). `<var>` is the descriptor's `policyName` (`route`, `edge`, `rule`, `ca`...).
 * - for a child kind, `<parent var>` and `parent`: its parent (a route sees its `edge`).
 * - `change` (plan only): `action` (create, update, replace, delete or unchanged) and
 *   `fields` (the changed field paths, `oidc.scopes`).
 * - `now`: the time the check runs, a timestamp.
 * - `certNotAfter(pem)`: the earliest expiry of the certificates of a PEM bundle.
 */
import { X509Certificate } from 'node:crypto';
import { Environment } from '@marcbachmann/cel-js';
import { CEL_LIMITS, splitPemCertificates } from '@gatehouse/schemas/runtime';
import { descriptor, KINDS } from '../kinds/index.js';
import type { KindDescriptor } from '../kinds/types.js';
import { celType, registerShape, shapeOf, type Shape } from './cel-types.js';

const TIMESTAMP = 'google.protobuf.Timestamp';
const STRING: Shape = { kind: 'scalar', cel: 'string' };

/** `HTTPSEdgeRoute` -> `https_edge_route`, for kinds without a `policyName`. */
const snake = (kind: string) =>
  kind
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase();
const variableName = (d: KindDescriptor) => d.policyName ?? snake(d.kind);

type JsonSchema = Parameters<typeof shapeOf>[0] & { properties?: Record<string, JsonSchema & { items?: JsonSchema }> };

/**
 * The manifest schemas, imported by `loadPolicies` before it compiles the first rule: the main
 * entry of @gatehouse/schemas builds every TypeBox schema on import, and a plan or apply
 * without policies does not need them.
 */
let manifestSchemas: Record<string, JsonSchema> | undefined;
export async function loadManifestSchemas(): Promise<void> {
  manifestSchemas ??= (await import('@gatehouse/schemas')).MANIFEST_SCHEMAS as Record<string, JsonSchema>;
}

/** The JSON Schema of a kind's spec: its manifest's `spec`, or the parent's list of children. */
function specSchema(d: KindDescriptor): JsonSchema | undefined {
  if (!manifestSchemas) throw new Error('policy shapes need loadManifestSchemas() first (loadPolicies calls it)');
  if (d.manifestKind) return manifestSchemas[d.manifestKind]?.properties?.spec as JsonSchema | undefined;
  if (d.child) return specSchema(descriptor(d.child.parentKind))?.properties?.[d.child.field]?.items;
  return undefined;
}

const shapes = new Map<string, Shape>();
/** The CEL shape of a kind's objects (spec fields plus `name`). */
export function kindShape(d: KindDescriptor): Shape {
  let found = shapes.get(d.kind);
  if (!found) {
    found = shapeOf(specSchema(d), d.kind, { name: STRING });
    shapes.set(d.kind, found);
  }
  return found;
}

const changeShape = shapeOf({ type: 'object', properties: { action: { type: 'string' }, fields: { type: 'array', items: { type: 'string' } } } }, 'Change');

/** The earliest notAfter of the certificates in a PEM bundle; throws for text without one. */
function certNotAfter(pem: string): Date {
  const split = splitPemCertificates(pem);
  if (!split.ok || split.certificates.length === 0) throw new Error('certNotAfter: not a PEM bundle of certificates');
  return new Date(Math.min(...split.certificates.map((der) => Date.parse(new X509Certificate(der).validTo))));
}

export interface KindEnvironment {
  /** With `change`: the plan's environment. */
  plan: Environment;
  /** Without `change`: an expression it refuses reads `change`, and is checked in plans only. */
  validate: Environment;
  /** The object types registered, by name (for `unknownHasFields`). */
  types: Map<string, Shape>;
  /** Variables bound to the object and to its parent, in this environment. */
  objectNames: string[];
  parentNames: string[];
}

const environments = new Map<string, KindEnvironment>();

/** The environments of rules for `kind` (a kind of `KINDS`), built once. */
export function kindEnvironment(kind: string): KindEnvironment {
  const cached = environments.get(kind);
  if (cached) return cached;
  const d = descriptor(kind);
  const parent = d.child ? descriptor(d.child.parentKind) : undefined;
  const types = new Map<string, Shape>();
  const build = (withChange: boolean) => {
    // The parser's size limits are those of every gatehouse expression (cel-cost.ts).
    const env = new Environment({ homogeneousAggregateLiterals: false, limits: CEL_LIMITS });
    types.clear();
    const own = kindShape(d);
    registerShape(env, own, types);
    env.registerVariable(variableName(d), celType(own)).registerVariable('object', celType(own));
    if (parent) {
      const theirs = kindShape(parent);
      registerShape(env, theirs, types);
      env.registerVariable(variableName(parent), celType(theirs)).registerVariable('parent', celType(theirs));
    }
    if (withChange) {
      registerShape(env, changeShape, types);
      env.registerVariable('change', celType(changeShape));
    }
    env.registerVariable('now', TIMESTAMP);
    env.registerFunction(`certNotAfter(string): ${TIMESTAMP}`, certNotAfter);
    return env;
  };
  const made: KindEnvironment = {
    validate: build(false),
    plan: build(true),
    types,
    objectNames: [variableName(d), 'object'],
    parentNames: parent ? [variableName(parent), 'parent'] : [],
  };
  environments.set(kind, made);
  return made;
}

export { changeShape };
/** Kinds a rule may name. */
export const POLICY_KINDS = KINDS.map((k) => k.kind);
