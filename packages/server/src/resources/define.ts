/**
 * One description per resource kind, and the generic CRUD endpoints built from it.
 *
 * A `ResourceDefinition` says what a kind is (storage kind, id prefix, collection path,
 * schemas, audit name) and supplies the three functions that differ between kinds: `write`
 * (build the stored fields from a create body or a PATCH, applying the service's rules),
 * `render` (stored fields -> response) and, optionally, `uniqueKeys` and `onDelete`.
 * `registerResource` turns it into create / get / list / update / delete with the service's
 * status codes, pagination and audit events, each write in one transaction that is on disk
 * before it is answered (`Store.transaction`). A PATCH with no field answers the object as it
 * is, writes nothing and records no event, as the service does.
 */
import type { TSchema } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { IdParams, ListQuery } from '@gatehouse/schemas';
import type { StoredObject } from '../db/store.js';
import { ApiError, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { requestContext, type RequestContext, type Services } from './context.js';

/** A unique key an object claims, and the error to answer when another object holds it. */
export interface UniqueKey {
  key: string;
  conflict: () => ApiError;
}

export interface ParentSpec {
  /** Storage kind of the parent (e.g. 'https_edge'). */
  kind: string;
  /** Path parameter that holds the parent's id (e.g. 'edge_id'). */
  param: string;
  label: string;
}

export interface ResourceDefinition<Stored, Rendered = unknown> {
  /** Storage kind, e.g. 'ip_policy'. */
  kind: string;
  /** What messages call one object, e.g. 'IP policy'. */
  label: string;
  idPrefix: string;
  /** Collection path with Fastify parameters, e.g. '/ip_policies' or '/edges/https/:edge_id/routes'. */
  path: string;
  /** Envelope key of the list response; no list endpoint when absent. */
  listKey?: string;
  /** Audit event name (`<audit>_created.v0` ...); no events when absent. */
  audit?: string;
  /** Parent named by the URL (routes under their edge). */
  parent?: ParentSpec;
  /**
   * Parent named by a create-body field instead (a rule's `ip_policy_id`): checks that it
   * exists and returns its id. The parent of an object never changes.
   */
  parentFromBody?(body: Record<string, unknown>, ctx: RequestContext): string;
  schemas: { create: TSchema; update: TSchema; resource: TSchema; list?: TSchema };
  /**
   * Builds the fields to store from a create body (`current` undefined) or from a PATCH over
   * the current fields, enforcing every rule of the service; throws `ApiError` on a violation.
   */
  write(input: Record<string, unknown>, current: Stored | undefined, ctx: WriteContext): Stored;
  /** The response for a stored object. */
  render(object: StoredObject<Stored>, ctx: Services): Rendered;
  uniqueKeys?(data: Stored, object: { id: string; parentId: string | null }): UniqueKey[];
  /** Runs in the delete's transaction before the object is removed (cascades). */
  onDelete?(object: StoredObject<Stored>, ctx: RequestContext): void;
}

export interface WriteContext extends RequestContext {
  /** Id of the object being updated, or the id it will get when created. */
  id: string;
  parentId: string | null;
}

const writeContext = (ctx: RequestContext, id: string, parentId: string | null): WriteContext => ({ ...ctx, id, parentId });

/** Whether a PATCH body names no field (the service answers it 200 and changes nothing). */
export const isEmptyBody = (body: unknown): boolean => typeof body === 'object' && body !== null && Object.keys(body).length === 0;

/** Shallow merge of a PATCH: given fields replace the current ones whole. */
export function merge<T extends object>(current: T | undefined, input: Record<string, unknown>): T {
  return { ...(current ?? {}), ...input } as T;
}

/** Absolute collection path for an object: fills `:param` from its parent id. */
function collectionPath(def: ResourceDefinition<unknown>, parentId: string | null): string {
  return def.parent && parentId !== null ? def.path.replace(`:${def.parent.param}`, parentId) : def.path;
}

export function objectPath(def: ResourceDefinition<unknown>, object: { id: string; parentId: string | null }): string {
  return `${collectionPath(def, object.parentId)}/${object.id}`;
}

/** The id of the parent the URL names, checked to exist (`not_found`); null for a kind without one. */
function parentIdOf(request: FastifyRequest, parent: ParentSpec | undefined): string | null {
  if (!parent) return null;
  const parentId = (request.params as Record<string, string>)[parent.param]!;
  if (!request.server.services.store.get(parentId, parent.kind)) throw notFound(parent.label, parentId);
  return parentId;
}

/** The object the URL names (`:id`, of `kind`, under the parent it names), or `not_found`. */
export function loadFromUrl<Stored>(request: FastifyRequest, what: { kind: string; label: string; parent?: ParentSpec | undefined }): StoredObject<Stored> {
  const parentId = parentIdOf(request, what.parent);
  const id = (request.params as { id: string }).id;
  const object = request.server.services.store.get<Stored>(id, what.kind);
  if (!object || (parentId !== null && object.parentId !== parentId)) throw notFound(what.label, id);
  return object;
}

export function registerResource<Stored>(app: FastifyInstance, def: ResourceDefinition<Stored>): void {
  const itemPath = `${def.path}/:id`;
  const load = (request: FastifyRequest) => loadFromUrl<Stored>(request, def);
  // A top-level kind's ids are referenced by `Ref`s (`urls.ref`), whose URI needs its path.
  if (!def.parent) app.services.urls.collection(def.idPrefix, def.path);

  const claimKeys = (data: Stored, object: { id: string; parentId: string | null }) => {
    if (!def.uniqueKeys) return;
    const keys = def.uniqueKeys(data, object);
    for (const { key, conflict } of keys) {
      const owner = app.services.store.keyOwner(key);
      if (owner !== undefined && owner !== object.id) throw conflict();
    }
    app.services.store.setKeys(
      object.id,
      keys.map((k) => k.key),
    );
  };

  /**
   * Records the audit event of a change and returns the object as rendered: the event carries
   * that rendering, and a create or update answers with it (rendered once, in the transaction).
   */
  const recordAudit = (action: 'created' | 'updated' | 'deleted', object: StoredObject<Stored>, ctx: RequestContext) => {
    const rendered = def.render(object, ctx);
    if (def.audit) ctx.audit.record(def.audit, action, rendered, ctx.principal);
    return rendered;
  };

  const response200 = { 200: def.schemas.resource };

  app.post(def.path, { schema: { body: def.schemas.create, response: { 201: def.schemas.resource } } }, async (request, reply) => {
    const ctx = requestContext(request);
    const created = ctx.store.transaction(() => {
      const body = request.body as Record<string, unknown>;
      const parentId = def.parentFromBody ? def.parentFromBody(body, ctx) : parentIdOf(request, def.parent);
      const id = newId(def.idPrefix);
      const data = def.write(body, undefined, writeContext(ctx, id, parentId));
      claimKeys(data, { id, parentId });
      const object = ctx.store.insert(def.kind, id, data, parentId);
      return recordAudit('created', object, ctx);
    });
    return reply.code(201).send(created);
  });

  app.get(itemPath, { schema: { params: IdParams, response: response200 } }, async (request) => def.render(load(request), app.services));

  if (def.listKey && def.schemas.list) {
    const listKey = def.listKey;
    app.get(def.path, { schema: { querystring: ListQuery, response: { 200: def.schemas.list } } }, async (request) => {
      const query = request.query as ListQuery;
      const parentId = parentIdOf(request, def.parent);
      const limit = query.limit ?? 100;
      const { store, urls } = app.services;
      const page = store.page<Stored>(def.kind, {
        limit,
        ...(query.before_id !== undefined ? { beforeId: query.before_id } : {}),
        ...(parentId !== null ? { parentId } : {}),
      });
      if (!page) {
        throw new ApiError('invalid_query_parameter', `before_id '${query.before_id}' is not the id of a ${def.label}.`, {
          field: 'before_id',
          location: 'query',
        });
      }
      const path = collectionPath(def, parentId);
      const last = page.items[page.items.length - 1];
      return {
        [listKey]: page.items.map((item) => def.render(item, app.services)),
        uri: urls.of(path),
        next_page_uri: page.hasMore && last ? urls.of(`${path}?before_id=${last.id}&limit=${limit}`) : null,
      };
    });
  }

  app.patch(itemPath, { schema: { params: IdParams, body: def.schemas.update, response: response200 } }, async (request) => {
    const ctx = requestContext(request);
    // A PATCH naming no field changes nothing and records no event; it answers the object.
    if (isEmptyBody(request.body)) return def.render(load(request), app.services);
    const updated = ctx.store.transaction(() => {
      const current = load(request);
      const data = def.write(request.body as Record<string, unknown>, current.data, writeContext(ctx, current.id, current.parentId));
      claimKeys(data, current);
      const object = ctx.store.update(current, data);
      return recordAudit('updated', object, ctx);
    });
    return updated;
  });

  app.delete(itemPath, { schema: { params: IdParams } }, async (request, reply) => {
    const ctx = requestContext(request);
    ctx.store.transaction(() => {
      const current = load(request);
      def.onDelete?.(current, ctx);
      if (def.audit) recordAudit('deleted', current, ctx);
      ctx.store.remove(current.id);
    });
    return reply.code(204).send();
  });
}
