/** Helpers the kind descriptors share: normal-form building blocks and REST call builders. */
import type { ApiObject } from '../ports.js';
import type { ApiCall, CallContext, KindDescriptor, Spec } from './types.js';

/** `description`/`metadata`: absent and "" are the same thing to the service's readers. */
export function commonFields(source: Spec): Spec {
  const out: Spec = {};
  if (typeof source.description === 'string' && source.description !== '') out.description = source.description;
  if (typeof source.metadata === 'string' && source.metadata !== '') out.metadata = source.metadata;
  return out;
}

/** A Ref `{id, uri}` (live) or a token string (desired) -> the token/id. */
export const refToken = (ref: unknown): string => (typeof ref === 'string' ? ref : String((ref as { id?: unknown } | null)?.id ?? ''));

/** A set-valued list in a canonical order. */
export const sorted = (list: unknown): string[] => (Array.isArray(list) ? list.map(String).sort() : []);

export const lowerKeys = (map: unknown): Record<string, string> =>
  Object.fromEntries(Object.entries((map ?? {}) as Record<string, string>).map(([k, v]) => [k.toLowerCase(), v]));

export const sortedKeys = <T>(map: Record<string, T>): Record<string, T> =>
  Object.fromEntries(
    Object.keys(map)
      .sort()
      .map((k) => [k, map[k] as T]),
  );

/** Description and metadata as a PATCH sends them: "" clears a field the manifest dropped. */
export function commonBody(normal: Spec, ctx: CallContext, fields?: readonly string[]): ApiObject {
  const body: ApiObject = {};
  if (!fields || fields.includes('description')) body.description = (normal.description as string | undefined) ?? '';
  if (ctx.metadata !== undefined) body.metadata = ctx.metadata;
  else if (!fields || fields.includes('metadata')) body.metadata = (normal.metadata as string | undefined) ?? '';
  return body;
}

/**
 * Calls for an object whose plain fields are PATCHed and whose modules are PUT or DELETEd
 * on their own (`<item>/<module>`), as the service requires: a PATCH cannot remove a module.
 * The PATCH carries description and metadata (`commonBody`) when they change or the marker is
 * written, and what `plain` gives for the kind's other changed fields.
 */
export function updateWithModules(
  item: string,
  after: Spec,
  changed: string[],
  ctx: CallContext,
  modules: Record<string, (normal: Spec, resolve: (t: string) => string) => ApiObject>,
  plain: (after: Spec, fields: string[], ctx: CallContext) => ApiObject,
): ApiCall[] {
  const calls: ApiCall[] = [];
  const plainFields = changed.filter((f) => !(f in modules));
  const common = plainFields.some((f) => f === 'description' || f === 'metadata') || ctx.metadata !== undefined;
  const body = { ...(common ? commonBody(after, ctx, plainFields) : {}), ...plain(after, plainFields, ctx) };
  if (Object.keys(body).length > 0) calls.push({ method: 'PATCH', path: item, body });
  for (const field of changed.filter((f) => f in modules)) {
    const value = after[field] as Spec | undefined;
    calls.push(
      value === undefined
        ? { method: 'DELETE', path: `${item}/${field}` }
        : { method: 'PUT', path: `${item}/${field}`, body: modules[field]!(value, ctx.resolve) },
    );
  }
  return calls;
}

/** The module inputs of a create body: each module present, converted to its request form. */
export function moduleBodies(
  normal: Spec,
  modules: Record<string, (normal: Spec, resolve: (t: string) => string) => ApiObject>,
  resolve: (t: string) => string,
): ApiObject {
  const body: ApiObject = {};
  for (const [name, toInput] of Object.entries(modules)) {
    const value = normal[name] as Spec | undefined;
    if (value !== undefined) body[name] = toInput(value, resolve);
  }
  return body;
}

export const requireId = (ctx: CallContext): string => {
  if (!ctx.id) throw new Error('an update or delete needs the live id');
  return ctx.id;
};
export const requireParent = (ctx: CallContext): string => {
  if (!ctx.parentId) throw new Error('a child object needs its parent id');
  return ctx.parentId;
};

/**
 * The calls of an object of the collection at `path` that is created by a POST, updated by a
 * PATCH of its changed fields and deleted by id: `create` and `update` give the bodies.
 */
export function collectionCalls(
  path: string,
  create: (normal: Spec, ctx: CallContext) => ApiObject,
  update: (after: Spec, changed: string[], ctx: CallContext) => ApiObject,
): KindDescriptor['calls'] {
  return {
    create: (normal, ctx) => [{ method: 'POST', path, body: create(normal, ctx) }],
    update: (_before, after, changed, ctx) => [{ method: 'PATCH', path: `${path}/${requireId(ctx)}`, body: update(after, changed, ctx) }],
    delete: (_normal, ctx) => [{ method: 'DELETE', path: `${path}/${requireId(ctx)}` }],
  };
}
