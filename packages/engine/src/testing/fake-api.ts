/**
 * An in-memory `LiveApi` for engine tests: collections of API objects keyed by list path,
 * served newest first in pages of 100 like the service, counting every request it answers.
 * Only `list` is needed by plan; the write methods record calls for apply's tests.
 */
import type { ApiObject, LiveApi, Target } from '../ports.js';

export const FAKE_PAGE_SIZE = 100;

export class FakeLiveApi implements LiveApi {
  readonly target: Target = { url: 'memory://fake', embedded: false };
  /** Requests answered, by method and path (a list page counts once). */
  readonly requests: { method: string; path: string }[] = [];
  private readonly collections = new Map<string, ApiObject[]>();

  /** `collections`: list path -> objects, oldest first (as created). */
  constructor(collections: Record<string, ApiObject[]> = {}) {
    for (const [path, objects] of Object.entries(collections)) this.collections.set(path, [...objects]);
  }

  get requestCount(): number {
    return this.requests.length;
  }

  async *list(path: string, _listKey: string): AsyncIterable<ApiObject> {
    const newestFirst = [...(this.collections.get(path) ?? [])].reverse();
    let offset = 0;
    do {
      this.requests.push({ method: 'GET', path: offset === 0 ? path : `${path}?before_id=${String(newestFirst[offset - 1]?.id)}` });
      const page = newestFirst.slice(offset, offset + FAKE_PAGE_SIZE);
      for (const object of page) yield structuredClone(object);
      offset += FAKE_PAGE_SIZE;
    } while (offset < newestFirst.length);
  }

  async get(path: string): Promise<ApiObject | undefined> {
    this.requests.push({ method: 'GET', path });
    for (const objects of this.collections.values()) {
      const found = objects.find((o) => path.endsWith(`/${String(o.id)}`));
      if (found) return structuredClone(found);
    }
    return undefined;
  }

  async create(path: string, body: ApiObject): Promise<ApiObject> {
    this.requests.push({ method: 'POST', path });
    const object = { ...body, id: `fake_${this.requests.length}` };
    this.collections.set(path, [...(this.collections.get(path) ?? []), object]);
    return object;
  }

  async update(path: string, body: ApiObject): Promise<ApiObject> {
    this.requests.push({ method: 'PATCH', path });
    return body;
  }

  async replace(path: string, body: ApiObject): Promise<ApiObject> {
    this.requests.push({ method: 'PUT', path });
    return body;
  }

  async remove(path: string): Promise<void> {
    this.requests.push({ method: 'DELETE', path });
  }
}
