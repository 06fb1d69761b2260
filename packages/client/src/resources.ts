/**
 * Generic accessors built on the transport: a collection (create, get, list, update, delete)
 * and a module (replace, get, delete). Every typed accessor of `client.ts` is one of these
 * with its path and types, so a new resource family is one line there, not new code.
 */
import type { Method, RequestOptions } from './client-options.js';
import type { Transport } from './transport.js';

/** Items per list request: the API's maximum, so N objects cost about N/100 requests. */
export const PAGE_LIMIT = 100;

interface ListEnvelope {
  next_page_uri?: string | null;
  [key: string]: unknown;
}

/**
 * Every item of a list, newest first, following `next_page_uri` until it is null. Requests are
 * made lazily, one page at a time, as the caller iterates.
 */
export async function* paginate<T>(transport: Transport, path: string, listKey: string, options: RequestOptions = {}): AsyncGenerator<T> {
  for await (const page of paginatePages<T>(transport, path, listKey, options)) yield* page;
}

/**
 * `paginate` a page at a time: each array is the items of one answer, as decoded. For readers
 * of whole collections (a plan reads thousands of objects): an async iteration step per item
 * costs far more than the loop over an array.
 */
export async function* paginatePages<T>(transport: Transport, path: string, listKey: string, options: RequestOptions = {}): AsyncGenerator<T[]> {
  const separator = path.includes('?') ? '&' : '?';
  let next: string | null = `${path}${separator}limit=${PAGE_LIMIT}`;
  while (next) {
    const page: ListEnvelope = await transport.request<ListEnvelope>('GET', next, options);
    const items = page[listKey];
    if (!Array.isArray(items)) {
      throw new TypeError(`list ${path}: the answer has no '${listKey}' array`);
    }
    yield items as T[];
    next = typeof page.next_page_uri === 'string' && page.next_page_uri !== '' ? page.next_page_uri : null;
  }
}

/** Reads every item of an async iterable into an array. */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

export interface Collection<T, C, U> {
  readonly path: string;
  create(body: C, options?: RequestOptions): Promise<T>;
  get(id: string, options?: RequestOptions): Promise<T>;
  update(id: string, body: U, options?: RequestOptions): Promise<T>;
  delete(id: string, options?: RequestOptions): Promise<void>;
}

export interface ListableCollection<T, C, U> extends Collection<T, C, U> {
  readonly listKey: string;
  /** Every object, newest first; pages of 100 fetched as iteration proceeds. */
  list(options?: RequestOptions): AsyncGenerator<T>;
}

const call = <T>(t: Transport, method: Method, path: string, body: unknown, options: RequestOptions = {}) =>
  t.request<T>(method, path, body === undefined ? options : { ...options, body });

const item = (path: string, id: string) => `${path}/${encodeURIComponent(id)}`;

export function collection<T, C, U>(transport: Transport, path: string): Collection<T, C, U> {
  return {
    path,
    create: (body, options) => call<T>(transport, 'POST', path, body, options),
    get: (id, options) => call<T>(transport, 'GET', item(path, id), undefined, options),
    update: (id, body, options) => call<T>(transport, 'PATCH', item(path, id), body, options),
    delete: (id, options) => call<void>(transport, 'DELETE', item(path, id), undefined, options),
  };
}

export function listableCollection<T, C, U>(transport: Transport, path: string, listKey: string): ListableCollection<T, C, U> {
  return { ...collection<T, C, U>(transport, path), listKey, list: (options) => paginate<T>(transport, path, listKey, options) };
}

export interface ModuleAccessor<T, I> {
  /** `<owner path>/<module>` for an owner id. */
  path(ownerId: string): string;
  /** PUT: replaces the module whole. */
  replace(ownerId: string, body: I, options?: RequestOptions): Promise<T>;
  get(ownerId: string, options?: RequestOptions): Promise<T>;
  delete(ownerId: string, options?: RequestOptions): Promise<void>;
}

/** A module under an owner whose path is built from the owner's id. */
export function moduleAccessor<T, I>(transport: Transport, ownerPath: (ownerId: string) => string, name: string): ModuleAccessor<T, I> {
  const path = (ownerId: string) => `${ownerPath(ownerId)}/${name}`;
  return {
    path,
    replace: (ownerId, body, options) => call<T>(transport, 'PUT', path(ownerId), body, options),
    get: (ownerId, options) => call<T>(transport, 'GET', path(ownerId), undefined, options),
    delete: (ownerId, options) => call<void>(transport, 'DELETE', path(ownerId), undefined, options),
  };
}
