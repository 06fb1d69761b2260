/**
 * The `LiveApi` a watch cycle reads through: the connection's, except that once `stop` is
 * aborted (SIGTERM) a listing ends after the page in flight, with `Stopped`. A cycle being read
 * then ends at its next page instead of listing everything first; writes pass through
 * unchanged (apply's own interrupt lets those in flight finish), and so do the lock's requests,
 * which must be able to release it after the stop.
 */
import type { ApiObject, LiveApi, Target } from '@gatehouse/engine/core';

/** A cycle ended by the stop signal. */
export class Stopped extends Error {
  constructor() {
    super('stopped (SIGTERM) while reading the live state');
    this.name = 'Stopped';
  }
}

export class StoppableApi implements LiveApi {
  constructor(
    private readonly api: LiveApi,
    private readonly stop: AbortSignal,
  ) {}

  get target(): Target {
    return this.api.target;
  }

  async *list(path: string, listKey: string): AsyncIterable<ApiObject> {
    this.#check();
    for await (const page of this.listPages(path, listKey)) yield* page;
  }

  async *listPages(path: string, listKey: string): AsyncIterable<readonly ApiObject[]> {
    this.#check();
    if (this.api.listPages) {
      for await (const page of this.api.listPages(path, listKey)) {
        yield page;
        this.#check();
      }
      return;
    }
    for await (const item of this.api.list(path, listKey)) {
      yield [item];
      this.#check();
    }
  }

  get(path: string): Promise<ApiObject | undefined> {
    return this.api.get(path);
  }

  create(path: string, body: ApiObject): Promise<ApiObject> {
    return this.api.create(path, body);
  }

  update(path: string, body: ApiObject): Promise<ApiObject> {
    return this.api.update(path, body);
  }

  replace(path: string, body: ApiObject): Promise<ApiObject> {
    return this.api.replace(path, body);
  }

  remove(path: string): Promise<void> {
    return this.api.remove(path);
  }

  #check(): void {
    if (this.stop.aborted) throw new Stopped();
  }
}
