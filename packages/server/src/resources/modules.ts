/**
 * Modules: sub-objects of an owner (a route, an HTTPS edge, a TCP edge) that are replaced,
 * read and deleted on their own (`PUT/GET/DELETE <owner>/<module>`, api-spec 4.4-4.6), and
 * that may also be given whole in the owner's create and PATCH bodies.
 *
 * A `ModuleDefinition` is described once (input schema, output schema, `write`, `render`);
 * the owner stores each module's written form under the module's name in its own data and
 * renders an unset module as `null`.
 */
import type { TSchema } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { notFound } from '../errors.js';
import { requestContext, type RequestContext, type Services } from './context.js';
import { loadFromUrl, type ParentSpec } from './define.js';

export interface ModuleDefinition<Stored = Record<string, unknown>> {
  /** Field name on the owner and last path segment (`oidc`, `response_headers`). */
  name: string;
  /** Request body of PUT and of the field in the owner's create/PATCH body. */
  input: TSchema;
  /** Response body of PUT/GET and of the field in the owner's response. */
  output: TSchema;
  /**
   * Applies the service's rules and defaults (`enabled` true when unspecified...) and returns
   * what is stored; throws `ApiError` naming `<field>` on a violation. `field` is the name to
   * use in messages (`oidc` for PUT, `routes.oidc` style when nested is not needed).
   */
  write(input: Record<string, unknown>, ctx: RequestContext, field: string): Stored;
  /**
   * The module as it is returned, when that is not what `write` stored (ids shown as Refs).
   * `owner` is the object it belongs to, for the few modules whose output derives from it
   * (SAML's service-provider URLs); every caller that can pass it does.
   */
  render?(stored: Stored, ctx: Services, owner?: ModuleOwnerRef): unknown;
}

/** A stored module as it is returned: its `render`, or what was stored. */
export function renderModule(module: AnyModule, stored: unknown, ctx: Services, owner?: ModuleOwnerRef): unknown {
  return module.render ? module.render(stored, ctx, owner) : stored;
}

/** The object a module belongs to: its id and its parent's id (a route's edge). */
export interface ModuleOwnerRef {
  id: string;
  parentId: string | null;
}

// Any stored shape: the registry of modules holds definitions of every module type.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyModule = ModuleDefinition<any>;

export interface ModuleOwner {
  /** Storage kind of the owner. */
  kind: string;
  label: string;
  /** Item path of the owner with Fastify params; the owner's id is `:id`. */
  path: string;
  /** When the owner sits under a parent in the URL (a route under its edge). */
  parent?: ParentSpec;
  /**
   * Rules across the owner's modules (at most one identity module enabled on a route), run on
   * the owner's data as a module PUT leaves it, with the name of the module just written (to
   * name in the error); throws `ApiError` on a violation.
   */
  validate?(data: Record<string, unknown>, written: string): void;
}

/** Writes every module present in a create or PATCH body; returns the fields to store. */
export function writeModules(input: Record<string, unknown>, modules: readonly AnyModule[], ctx: RequestContext): Record<string, unknown> {
  const written: Record<string, unknown> = {};
  for (const module of modules) {
    const value = input[module.name];
    if (value !== undefined && value !== null) {
      written[module.name] = module.write(value as Record<string, unknown>, ctx, module.name);
    }
  }
  return written;
}

/** Every module of an owner as it is returned: rendered, or `null` when unset. */
export function renderModules(data: Record<string, unknown>, modules: readonly AnyModule[], ctx: Services, owner?: ModuleOwnerRef): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const module of modules) {
    const stored = data[module.name];
    out[module.name] = stored === undefined || stored === null ? null : renderModule(module, stored, ctx, owner);
  }
  return out;
}

/** Registers `PUT/GET/DELETE <owner path>/<module>` for each module. */
export function registerModules(app: FastifyInstance, owner: ModuleOwner, modules: readonly AnyModule[]): void {
  const load = (request: FastifyRequest) => loadFromUrl<Record<string, unknown>>(request, owner);

  for (const module of modules) {
    const path = `${owner.path}/${module.name}`;

    app.put(path, { schema: { body: module.input, response: { 200: module.output } } }, async (request) => {
      const ctx = requestContext(request);
      const { stored, object } = ctx.store.transaction(() => {
        const object = load(request);
        const written = module.write(request.body as Record<string, unknown>, ctx, module.name);
        const data = { ...object.data, [module.name]: written };
        owner.validate?.(data, module.name);
        ctx.store.update(object, data);
        return { stored: written, object };
      });
      return renderModule(module, stored, app.services, object);
    });

    app.get(path, { schema: { response: { 200: module.output } } }, async (request) => {
      const object = load(request);
      const stored = object.data[module.name];
      if (stored === undefined || stored === null) {
        throw notFound(`${module.name} module of ${owner.label}`, object.id);
      }
      return renderModule(module, stored, app.services, object);
    });

    app.delete(path, async (request, reply) => {
      app.services.store.transaction(() => {
        const object = load(request);
        const { [module.name]: _removed, ...rest } = object.data;
        app.services.store.update(object, rest);
      });
      return reply.code(204).send();
    });
  }
}
