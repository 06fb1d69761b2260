/**
 * The engine's `LiveApi` port filled with the HTTP client. The engine never imports the
 * client (docs/architecture.md, "Packages"), so this adapter lives in the CLI: it maps the port's verbs onto client
 * requests and every `GatehouseApiError` onto the engine's `LiveApiError`, keeping the
 * client's judgement of what is retryable and whether a lost answer leaves the outcome unknown.
 */
import { GatehouseApiError, type GatehouseClient } from '@gatehouse/client';
import { LiveApiError, type ApiObject, type CreateOptions, type LiveApi, type Target } from '@gatehouse/engine/core';

export class ClientLiveApi implements LiveApi {
  constructor(
    private readonly client: GatehouseClient,
    readonly target: Target,
  ) {}

  /** `listPages`, an object at a time. */
  async *list(path: string, listKey: string): AsyncIterable<ApiObject> {
    for await (const page of this.listPages(path, listKey)) yield* page;
  }

  async *listPages(path: string, listKey: string): AsyncIterable<readonly ApiObject[]> {
    try {
      for await (const page of this.client.listPages<ApiObject>(path, listKey)) yield page;
    } catch (error) {
      throw toLiveApiError(error);
    }
  }

  async get(path: string): Promise<ApiObject | undefined> {
    try {
      return await this.client.request<ApiObject>('GET', path);
    } catch (error) {
      if (error instanceof GatehouseApiError && error.status === 404) return undefined;
      throw toLiveApiError(error);
    }
  }

  /** The client runs `findExisting` before it sends a create again after a lost answer. */
  create(path: string, body: ApiObject, options?: CreateOptions): Promise<ApiObject> {
    return this.#call('POST', path, body, options?.findExisting);
  }

  update(path: string, body: ApiObject): Promise<ApiObject> {
    return this.#call('PATCH', path, body);
  }

  replace(path: string, body: ApiObject): Promise<ApiObject> {
    return this.#call('PUT', path, body);
  }

  async remove(path: string): Promise<void> {
    await this.#call('DELETE', path);
  }

  async #call(method: 'POST' | 'PATCH' | 'PUT' | 'DELETE', path: string, body?: ApiObject, recover?: () => Promise<ApiObject | undefined>): Promise<ApiObject> {
    try {
      return await this.client.request<ApiObject>(method, path, { ...(body !== undefined ? { body } : {}), ...(recover ? { recover } : {}) });
    } catch (error) {
      throw toLiveApiError(error);
    }
  }
}

/** The engine's error for a client failure; anything else (a bug) is rethrown unchanged. */
function toLiveApiError(error: unknown): unknown {
  if (!(error instanceof GatehouseApiError)) return error;
  const tries = error.attempts > 1 ? ` (after ${error.attempts} attempts)` : '';
  return new LiveApiError(`${error.message}${tries}`, error.status, error.errorCode, error.retryable, error.outcomeUnknown);
}
