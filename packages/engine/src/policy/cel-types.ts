/**
 * CEL types from JSON Schemas: each kind's manifest schema (the normal form has the same
 * shape, references as strings) becomes a tree of CEL object types, so the type checker of
 * @marcbachmann/cel-js refuses a field path the kind does not have (`route.oidcc`) at load
 * time, and values are converted to instances of those types (integers as BigInt, nulls and
 * unknown fields dropped) before evaluation.
 *
 * Mapping: string/boolean/integer/number -> string/bool/int/double; array -> list<T>; an
 * object with properties -> an object type (anyOf/oneOf branches that are objects are merged
 * into one, a field of two different types becoming dyn); an object with only
 * additionalProperties -> map<string, T>; a string-or-{id} reference -> string; the rest dyn.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { isMap } from '../identity/patterns.js';

export type Shape =
  | { kind: 'scalar'; cel: 'string' | 'bool' | 'int' | 'double' | 'dyn' }
  | { kind: 'list'; item: Shape }
  | { kind: 'map'; value: Shape }
  | { kind: 'object'; name: string; fields: Map<string, Shape>; ctor: new (init: Record<string, unknown>) => object };

type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  const?: unknown;
  enum?: unknown[];
};

const DYN: Shape = { kind: 'scalar', cel: 'dyn' };
const SCALARS: Record<string, Shape> = {
  string: { kind: 'scalar', cel: 'string' },
  boolean: { kind: 'scalar', cel: 'bool' },
  integer: { kind: 'scalar', cel: 'int' },
  number: { kind: 'scalar', cel: 'double' },
};

/** One class per object type: the evaluator tells types apart by constructor. */
const objectClass = () =>
  class PolicyObject {
    constructor(init: Record<string, unknown>) {
      Object.assign(this, init);
    }
  };

/** The shape of a JSON Schema; object types are named `<name>` and `<name>.<field>` below it. */
export function shapeOf(schema: JsonSchema | undefined, name: string, extra: Record<string, Shape> = {}): Shape {
  if (!schema) return DYN;
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches) {
    // A reference (a name or {id}) is a string token in normal form.
    if (branches.some((b) => b.type === 'string') && branches.every((b) => b.type === 'string' || b.properties?.id !== undefined)) return SCALARS.string!;
    const objects = branches.filter((b) => b.properties !== undefined);
    if (objects.length === branches.length) return objectShape(mergeProperties(objects), name, extra);
    const types = new Set(branches.map((b) => b.type));
    return types.size === 1 ? shapeOf(branches[0], name) : DYN;
  }
  const type = Array.isArray(schema.type) ? undefined : schema.type;
  if (type === 'array') return { kind: 'list', item: shapeOf(schema.items, name) };
  if (type === 'object' || schema.properties) {
    if (schema.properties) return objectShape(schema.properties, name, extra);
    if (typeof schema.additionalProperties === 'object') return { kind: 'map', value: shapeOf(schema.additionalProperties, name) };
    return { kind: 'map', value: DYN };
  }
  return (type && SCALARS[type]) || DYN;
}

function mergeProperties(objects: JsonSchema[]): Record<string, JsonSchema> {
  const merged: Record<string, JsonSchema> = {};
  for (const o of objects) {
    for (const [key, value] of Object.entries(o.properties ?? {})) {
      const known = merged[key];
      merged[key] = known && JSON.stringify(known.type) !== JSON.stringify(value.type) ? {} : (known ?? value);
    }
  }
  return merged;
}

function objectShape(properties: Record<string, JsonSchema>, name: string, extra: Record<string, Shape>): Shape {
  const fields = new Map<string, Shape>(Object.entries(properties).map(([key, value]) => [key, shapeOf(value, `${name}.${key}`)]));
  for (const [key, shape] of Object.entries(extra)) fields.set(key, shape);
  return { kind: 'object', name, fields, ctor: objectClass() };
}

/** The CEL type string of a shape (`list<HTTPSEdgeRoute.oidc>`). */
export function celType(shape: Shape): string {
  switch (shape.kind) {
    case 'scalar':
      return shape.cel;
    case 'list':
      return `list<${celType(shape.item)}>`;
    case 'map':
      return `map<string, ${celType(shape.value)}>`;
    case 'object':
      return shape.name;
  }
}

/** Registers the object types of `shape` with `env`, innermost first (the library needs that); `seen` collects them by name. */
export function registerShape(env: Environment, shape: Shape, seen = new Map<string, Shape>()): void {
  if (shape.kind === 'list') return registerShape(env, shape.item, seen);
  if (shape.kind === 'map') return registerShape(env, shape.value, seen);
  if (shape.kind !== 'object' || seen.has(shape.name)) return;
  seen.set(shape.name, shape);
  for (const field of shape.fields.values()) registerShape(env, field, seen);
  env.registerType(shape.name, { ctor: shape.ctor, fields: Object.fromEntries([...shape.fields].map(([k, s]) => [k, celType(s)])) });
}

/** A JSON value as the evaluator expects it for `shape`; undefined for null and absent values. */
export function toCel(value: unknown, shape: Shape): unknown {
  if (value === null || value === undefined) return undefined;
  switch (shape.kind) {
    case 'scalar':
      if (shape.cel === 'int' && typeof value === 'number' && Number.isInteger(value)) return BigInt(value);
      if (shape.cel === 'dyn') return dynamic(value);
      return value;
    case 'list':
      return Array.isArray(value) ? value.map((item) => toCel(item, shape.item)).filter((item) => item !== undefined) : dynamic(value);
    case 'map':
      return isMap(value) ? Object.fromEntries(Object.entries(value).flatMap(([k, v]) => (v === null ? [] : [[k, toCel(v, shape.value)]]))) : dynamic(value);
    case 'object': {
      if (!isMap(value)) return dynamic(value);
      const init: Record<string, unknown> = {};
      for (const [key, field] of shape.fields) {
        const converted = toCel(value[key], field);
        if (converted !== undefined) init[key] = converted;
      }
      return new shape.ctor(init);
    }
  }
}

/** A value of no declared type: integers as BigInt, nulls dropped from maps. */
function dynamic(value: unknown): unknown {
  if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value);
  if (Array.isArray(value)) return value.map(dynamic);
  if (isMap(value)) return Object.fromEntries(Object.entries(value).flatMap(([k, v]) => (v === null ? [] : [[k, dynamic(v)]])));
  return value;
}

/** What `hasFields` needs of the library's AST: an operator, its arguments, a position, a checked type. */
interface AstNode {
  op: string;
  args: unknown;
  pos: number;
  checkedType?: { name?: string };
}

const isNode = (value: unknown): value is AstNode => value !== null && typeof value === 'object' && 'op' in value;

/**
 * Fields named inside `has(...)` that their object type does not have. The library's checker
 * types `has(a.b)` as bool without looking at `b`, so `has(route.oidcc)` would always be
 * false, silently; this walks every `has` argument from its typed root through `types`
 * (object types by name) and reports the first unknown field of each, with its offset.
 */
export function unknownHasFields(ast: unknown, types: ReadonlyMap<string, Shape>): { field: string; pos: number }[] {
  const found: { field: string; pos: number }[] = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!isNode(node)) return;
    const args = node.args;
    if (node.op === 'call' && Array.isArray(args) && args[0] === 'has' && Array.isArray(args[1]) && isNode(args[1][0])) {
      const unknown = firstUnknownField(args[1][0], types);
      if (unknown) found.push(unknown);
    }
    if (Array.isArray(args)) args.forEach(visit);
    else visit(args);
  };
  visit(ast);
  return found;
}

function firstUnknownField(select: AstNode, types: ReadonlyMap<string, Shape>): { field: string; pos: number } | undefined {
  const chain: { field: string; pos: number }[] = [];
  let node: AstNode = select;
  while (node.op === '.' && Array.isArray(node.args) && isNode(node.args[0]) && typeof node.args[1] === 'string') {
    chain.unshift({ field: node.args[1], pos: node.pos });
    node = node.args[0];
  }
  let shape = node.checkedType?.name !== undefined ? types.get(node.checkedType.name) : undefined;
  for (const step of chain) {
    if (!shape || shape.kind !== 'object') return undefined;
    const next = shape.fields.get(step.field);
    if (!next) return step;
    shape = next;
  }
  return undefined;
}
