/**
 * Absolute URIs under the server's base URL, for an object's own `uri` and for the `Ref`s
 * (`{id, uri}`) that responses carry in place of the ids that requests send.
 */
import type { Ref } from '@gatehouse/schemas';

export class Urls {
  private base: string;
  /**
   * Path of the collection a referenced id belongs to, by the id's prefix: each top-level
   * resource kind adds its own as it is registered (`collection`); these have no definition.
   */
  private readonly collections = new Map<string, string>([
    ['ak', '/api_keys'],
    // Static backends created before the service's path was known keep their ids (db/migrations.ts).
    ['bkdsa', '/backends/static'],
  ]);

  constructor(baseUrl: string) {
    this.base = baseUrl.replace(/\/+$/, '');
  }

  /**
   * Sets the base URL once it is known: a server told to listen on port 0 learns its port
   * only after listening, before it answers any request.
   */
  rebase(baseUrl: string): void {
    this.base = baseUrl.replace(/\/+$/, '');
  }

  /** Ids starting `<idPrefix>_` belong to the collection at `path`. */
  collection(idPrefix: string, path: string): void {
    this.collections.set(idPrefix, path);
  }

  /** Absolute URL of a path under the base URL. */
  of(path: string): string {
    return `${this.base}${path}`;
  }

  /** A `Ref` to the object with this id; its collection is known from the id's prefix. */
  ref(id: string): Ref {
    const prefix = id.slice(0, id.indexOf('_'));
    const path = this.collections.get(prefix);
    return { id, uri: path ? `${this.base}${path}/${id}` : `${this.base}/${id}` };
  }

  refs(ids: readonly string[]): Ref[] {
    return ids.map((id) => this.ref(id));
  }
}
