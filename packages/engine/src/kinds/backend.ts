/**
 * Backends (`/backends/<type>`): tunnel_group, http_response, failover (ordered backend
 * references), weighted (backend -> weight) and static (host:port, tls.enabled; the service's
 * `/backends/static`). The type selects the collection, so it cannot change: a new type means
 * replace. `static_address`, the name manifests used before the service's was known, is read
 * as `static`. Failover and weighted backends reference other backends, which can form cycles
 * (validate reports them).
 */
import type { ApiObject } from '../ports.js';
import { problem } from '../problems.js';
import { commonBody, commonFields, requireId, sortedKeys } from './shared.js';
import type { Collection, KindDescriptor, Spec } from './types.js';

const BACKEND_COLLECTIONS: Collection[] = ['tunnel_group', 'http_response', 'failover', 'weighted', 'static'].map((type) => ({
  path: `/backends/${type}`,
  listKey: 'backends',
}));

/** An HTTP header name: an RFC 9110 token. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** A manifest's backend type as the service names it (`static_address` was gatehouse's former name for `static`). */
const serviceType = (type: unknown): string => (type === 'static_address' ? 'static' : String(type));

/** The last segment of the collection's path (`/backends/weighted` -> `weighted`). */
const typeOf = (collection: Collection | undefined) => (collection ? collection.path.slice(collection.path.lastIndexOf('/') + 1) : 'unknown');

/** The type's own fields, in normal form. Weighted keys and failover items are reference tokens. */
function typeFields(type: string, source: Spec): Spec {
  switch (type) {
    case 'tunnel_group':
      return { labels: sortedKeys((source.labels ?? {}) as Record<string, string>) };
    case 'http_response':
      return {
        body: source.body ?? '',
        headers: sortedKeys((source.headers ?? {}) as Record<string, string>),
        status_code: source.status_code ?? 200,
      };
    case 'failover':
      return { backends: [...((source.backends as string[]) ?? [])] };
    case 'weighted':
      return { backends: sortedKeys((source.backends ?? {}) as Record<string, number>) };
    case 'static':
      return { address: source.address, tls: { enabled: Boolean((source.tls as Spec | undefined)?.enabled ?? false) } };
    default:
      return {};
  }
}

/** The request form of the type's fields: tokens become ids. */
function typeBody(normal: Spec, resolve: (t: string) => string, fields?: string[]): ApiObject {
  const body: ApiObject = {};
  for (const [field, value] of Object.entries(typeFields(String(normal.type), normal))) {
    if (fields && !fields.includes(field)) continue;
    if (field === 'backends' && Array.isArray(value)) body.backends = value.map((t) => resolve(String(t)));
    else if (field === 'backends') body.backends = Object.fromEntries(Object.entries(value as Spec).map(([t, w]) => [resolve(t), w]));
    else body[field] = value;
  }
  return body;
}

export const backend: KindDescriptor = {
  kind: 'Backend',
  policyName: 'backend',
  title: 'backend',
  manifestKind: 'Backend',
  observe: { lists: BACKEND_COLLECTIONS },
  listedIn: (normal) => `/backends/${String(normal.type)}`,
  metadata: true,
  fromManifest: (spec) => ({ ...commonFields(spec), type: serviceType(spec.type), ...typeFields(serviceType(spec.type), spec) }),
  fromLive: (live, collection) => ({ ...commonFields(live), type: typeOf(collection), ...typeFields(typeOf(collection), live) }),
  // `*` walks list items only and `{}` map keys only, so each pattern meets one type's shape.
  refs: [
    { pattern: ['backends', '*'], kind: 'Backend' },
    { pattern: ['backends', '{}'], kind: 'Backend' },
  ],
  sensitive: [],
  immutable: ['type'],
  label: (normal, name) => name ?? `${String(normal.type)} ${String(normal.description ?? '')}`.trim(),
  check: (normal, ctx) =>
    Object.keys((normal.headers ?? {}) as Spec)
      .filter((header) => !HEADER_NAME.test(header))
      .map((header) =>
        problem(
          'invalid_value',
          `"${header}" is not a valid HTTP header name (letters, digits and !#$%&'*+-.^_\`|~)`,
          ctx.at(['headers', header], { key: true }),
        ),
      ),
  calls: {
    create: (normal, ctx) => [
      { method: 'POST', path: `/backends/${String(normal.type)}`, body: { ...commonBody(normal, ctx), ...typeBody(normal, ctx.resolve) } },
    ],
    update: (_before, after, changed, ctx) => [
      {
        method: 'PATCH',
        path: `/backends/${String(after.type)}/${requireId(ctx)}`,
        body: { ...commonBody(after, ctx, changed), ...typeBody(after, ctx.resolve, changed) },
      },
    ],
    delete: (normal, ctx) => [{ method: 'DELETE', path: `/backends/${String(normal.type)}/${requireId(ctx)}` }],
  },
};
