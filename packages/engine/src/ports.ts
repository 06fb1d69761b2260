/**
 * The engine's only door to the live API. The CLI fills it with the HTTP client; tests fill it
 * with an in-memory fake or a client over an in-process server. The engine never imports the
 * client, the server or undici (docs/architecture.md, "Packages").
 *
 * Paths are relative to the API's base URL and are built by the kind descriptors
 * (`/ip_policies`, `/edges/https/<edge_id>/routes/<id>/oidc`, ...). Bodies are the API's JSON.
 */
export type ApiObject = Record<string, unknown>;

export interface Target {
  /** The API base URL the plan was computed against, named in every plan's first line. */
  url: string;
  /** True when this is the in-process reference server over `.gatehouse/server.db`. */
  embedded: boolean;
}

export interface LiveApi {
  readonly target: Target;
  /** Every object of a collection, newest first, following `next_page_uri` (100 per request). */
  list(path: string, listKey: string): AsyncIterable<ApiObject>;
  /**
   * Optional: `list` a page at a time (the items of each answer as one array), for reading whole
   * collections without an async step per object. Without it, readers use `list`.
   */
  listPages?(path: string, listKey: string): AsyncIterable<readonly ApiObject[]>;
  /** GET; `undefined` when the object does not exist (404). */
  get(path: string): Promise<ApiObject | undefined>;
  /**
   * POST: creates and returns the object. An implementation that tries a create again after an
   * attempt whose outcome is unknown (no answer, a 5xx) first calls `options.findExisting` and
   * returns what it finds; without `findExisting`, it never sends such a create again.
   */
  create(path: string, body: ApiObject, options?: CreateOptions): Promise<ApiObject>;
  /** PATCH: changes the given fields and returns the object. */
  update(path: string, body: ApiObject): Promise<ApiObject>;
  /** PUT: replaces a module whole and returns it. */
  replace(path: string, body: ApiObject): Promise<ApiObject>;
  /** DELETE. */
  remove(path: string): Promise<void>;
}

export interface CreateOptions {
  /** Finds the object an attempt whose answer was lost may have created (undefined: none). */
  findExisting?(): Promise<ApiObject | undefined>;
}

/**
 * What an implementation of `LiveApi` throws when the API answers with an error or cannot be
 * reached. `retryable` is true for 429, 5xx and network failures; the implementation has
 * already retried what was safe to retry (the engine retries nothing itself: it only tells a
 * create how to find what it made, `CreateOptions`).
 */
export class LiveApiError extends Error {
  constructor(
    message: string,
    readonly status: number | undefined,
    readonly code: string | undefined,
    readonly retryable: boolean,
    /** The request may have been carried out although no answer arrived (timeout, reset). */
    readonly outcomeUnknown = false,
  ) {
    super(message);
    this.name = 'LiveApiError';
  }
}
