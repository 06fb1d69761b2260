/**
 * Backends under `/backends/<kind>` (the objects endpoint backend modules point at), one
 * `ResourceDefinition` per kind built by `backendKind`, which supplies what the five share:
 * path, id prefix, list key `backends`, description/metadata, no audit events.
 *
 * Rules: tunnel_group needs at least one label; http_response header names are HTTP tokens
 * (body "" , headers {} and status_code 200 when unspecified); failover and weighted name at
 * least one existing backend of any kind and may not reach themselves through other composite
 * backends (a cycle would never resolve to a real upstream). A backend that a failover or
 * weighted backend still lists cannot be deleted (`resource_in_use`), as the service refuses
 * it; references from edge modules are not checked here. A static backend (`/backends/static`,
 * ids `bkdsc_`) forwards to a fixed `host:port`; `tls.enabled` is false when unspecified, and
 * `tls: {}` is `{enabled: false}`, as the service takes it. Databases written before the
 * service's path was known kept these as `backend_static_address` with `bkdsa_` ids: the
 * migration renames the kind and the ids stay (db/migrations.ts).
 */
import {
  FailoverBackend,
  FailoverBackendCreate,
  FailoverBackendList,
  FailoverBackendUpdate,
  HttpResponseBackend,
  HttpResponseBackendCreate,
  HttpResponseBackendList,
  HttpResponseBackendUpdate,
  StaticBackend,
  StaticBackendCreate,
  StaticBackendList,
  StaticBackendUpdate,
  TunnelGroupBackend,
  TunnelGroupBackendCreate,
  TunnelGroupBackendList,
  TunnelGroupBackendUpdate,
  WeightedBackend,
  WeightedBackendCreate,
  WeightedBackendList,
  WeightedBackendUpdate,
} from '@gatehouse/schemas';
import type { TSchema } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { ApiError, invalidReference, invalidValue } from '../errors.js';
import type { Store, StoredObject } from '../db/store.js';
import { withCommonFields, type CommonFields } from './common.js';
import { merge, registerResource, type ResourceDefinition, type WriteContext } from './define.js';

const TUNNEL_GROUP_BACKEND = 'backend_tunnel_group';
const HTTP_RESPONSE_BACKEND = 'backend_http_response';
const FAILOVER_BACKEND = 'backend_failover';
const WEIGHTED_BACKEND = 'backend_weighted';
const STATIC_BACKEND = 'backend_static';
/** Storage kinds of every backend, for modules that accept a backend of any kind. */
export const BACKEND_KINDS = [TUNNEL_GROUP_BACKEND, HTTP_RESPONSE_BACKEND, FAILOVER_BACKEND, WEIGHTED_BACKEND, STATIC_BACKEND] as const;

interface KindSpec<Stored> {
  /** Path segment and storage suffix: `tunnel_group` -> `/backends/tunnel_group`. */
  segment: string;
  label: string;
  idPrefix: string;
  schemas: { create: TSchema; update: TSchema; resource: TSchema; list: TSchema };
  /** Defaults of a new object, before the create body is merged over them. */
  defaults: Omit<Stored, keyof CommonFields>;
  /**
   * Checks the fields a create or PATCH gives; throws `ApiError` naming the field. Fields
   * not given were checked when they were written (and a member deleted since stays listed).
   */
  check?(given: Partial<Stored>, ctx: WriteContext): void;
  /** The kind's own response fields. */
  fields(data: Stored): object;
}

function backendKind<Stored extends CommonFields>(spec: KindSpec<Stored>): ResourceDefinition<Stored> {
  const path = `/backends/${spec.segment}`;
  return {
    kind: `backend_${spec.segment}`,
    label: spec.label,
    idPrefix: spec.idPrefix,
    path,
    listKey: 'backends',
    schemas: spec.schemas,
    write(input, current, ctx) {
      const data = merge<Stored>(current ?? (spec.defaults as Stored), input);
      spec.check?.(input as Partial<Stored>, ctx);
      return data;
    },
    onDelete: (object, ctx) => refuseIfListed(object.id, ctx.store),
    render: (object: StoredObject<Stored>, { urls }) => withCommonFields(object, urls.of(`${path}/${object.id}`), spec.fields(object.data)),
  };
}

/**
 * Every id must be a live backend, and following composite backends from them must not lead
 * back to `selfId` (the object being written).
 */
function checkMembers(ids: readonly string[] | undefined, ctx: WriteContext): void {
  if (ids === undefined) return;
  for (const id of ids) {
    if (!ctx.store.get(id, ...BACKEND_KINDS)) throw invalidReference('backends', id, 'Backend');
  }
  const seen = new Set<string>();
  const pending = [...ids];
  while (pending.length > 0) {
    const id = pending.pop()!;
    if (id === ctx.id) throw invalidValue('backends', `a composite backend cannot contain itself, directly or through '${id}'.`);
    if (seen.has(id)) continue;
    seen.add(id);
    pending.push(...membersOf(ctx.store.get<{ backends?: string[] | Record<string, number> }>(id, FAILOVER_BACKEND, WEIGHTED_BACKEND)?.data));
  }
}

/** Members of a composite backend, in the form both kinds store them. */
function membersOf(data: { backends?: string[] | Record<string, number> } | undefined): string[] {
  const inner = data?.backends;
  return inner === undefined ? [] : Array.isArray(inner) ? inner : Object.keys(inner);
}

/** Throws `resource_in_use` when a live failover or weighted backend lists `id`. */
function refuseIfListed(id: string, store: Store): void {
  for (const kind of [FAILOVER_BACKEND, WEIGHTED_BACKEND]) {
    const holder = store.all<{ backends: string[] | Record<string, number> }>(kind).find((b) => membersOf(b.data).includes(id));
    if (holder) {
      throw new ApiError('resource_in_use', `Backend '${id}' is still listed by backend '${holder.id}'; remove it there first.`, {
        id,
        referenced_by: holder.id,
      });
    }
  }
}

interface StoredTunnelGroup extends CommonFields {
  labels: Record<string, string>;
}

const tunnelGroupBackends = backendKind<StoredTunnelGroup>({
  segment: 'tunnel_group',
  label: 'Tunnel group backend',
  idPrefix: 'bkdtg',
  schemas: {
    create: TunnelGroupBackendCreate,
    update: TunnelGroupBackendUpdate,
    resource: TunnelGroupBackend,
    list: TunnelGroupBackendList,
  },
  defaults: { labels: {} },
  check(given) {
    for (const name of Object.keys(given.labels ?? {})) {
      if (name === '') throw invalidValue('labels', 'label names must not be empty.');
    }
  },
  fields: (data) => ({ labels: data.labels, tunnels: [] }),
});

interface StoredHttpResponse extends CommonFields {
  body: string;
  headers: Record<string, string>;
  status_code: number;
}

/** An HTTP header name: a token of RFC 9110 section 5.6.2. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

const httpResponseBackends = backendKind<StoredHttpResponse>({
  segment: 'http_response',
  label: 'HTTP response backend',
  idPrefix: 'bkdhr',
  schemas: {
    create: HttpResponseBackendCreate,
    update: HttpResponseBackendUpdate,
    resource: HttpResponseBackend,
    list: HttpResponseBackendList,
  },
  defaults: { body: '', headers: {}, status_code: 200 },
  check(given) {
    for (const name of Object.keys(given.headers ?? {})) {
      if (!HEADER_NAME.test(name)) throw invalidValue(`headers.${name}`, `'${name}' is not a valid HTTP header name.`);
    }
  },
  fields: (data) => ({ body: data.body, headers: data.headers, status_code: data.status_code }),
});

interface StoredFailover extends CommonFields {
  backends: string[];
}

const failoverBackends = backendKind<StoredFailover>({
  segment: 'failover',
  label: 'Failover backend',
  idPrefix: 'bkdfo',
  schemas: { create: FailoverBackendCreate, update: FailoverBackendUpdate, resource: FailoverBackend, list: FailoverBackendList },
  defaults: { backends: [] },
  check: (given, ctx) => checkMembers(given.backends, ctx),
  fields: (data) => ({ backends: data.backends }),
});

interface StoredWeighted extends CommonFields {
  backends: Record<string, number>;
}

const weightedBackends = backendKind<StoredWeighted>({
  segment: 'weighted',
  label: 'Weighted backend',
  idPrefix: 'bkdwd',
  schemas: { create: WeightedBackendCreate, update: WeightedBackendUpdate, resource: WeightedBackend, list: WeightedBackendList },
  defaults: { backends: {} },
  check: (given, ctx) => checkMembers(given.backends && Object.keys(given.backends), ctx),
  fields: (data) => ({ backends: data.backends }),
});

interface StoredStatic extends CommonFields {
  address: string;
  /** `enabled` absent when the body sent `tls: {}`: false. */
  tls: { enabled?: boolean };
}

const staticBackends = backendKind<StoredStatic>({
  segment: 'static',
  label: 'Static backend',
  idPrefix: 'bkdsc',
  schemas: { create: StaticBackendCreate, update: StaticBackendUpdate, resource: StaticBackend, list: StaticBackendList },
  defaults: { address: '', tls: { enabled: false } },
  check(given) {
    const port = given.address === undefined ? undefined : Number(given.address.slice(given.address.lastIndexOf(':') + 1));
    if (port !== undefined && port > 65_535) throw invalidValue('address', `'${given.address}' must end with a port in 1..65535.`);
  },
  fields: (data) => ({ address: data.address, tls: { enabled: data.tls.enabled ?? false } }),
});

/** CRUD endpoints of the five backend kinds. */
export function registerBackends(app: FastifyInstance): void {
  registerResource(app, tunnelGroupBackends);
  registerResource(app, httpResponseBackends);
  registerResource(app, failoverBackends);
  registerResource(app, weightedBackends);
  registerResource(app, staticBackends);
}
