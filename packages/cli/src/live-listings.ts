/**
 * Views of a `LiveApi` that see its listings a page at a time: the progress of reading counts
 * them (progress/listing.ts), a watch cycle stops after the page in flight (watch/stoppable-api.ts).
 * Every other request goes to the API as it is, so the engine knows nothing of either.
 */
import type { ApiObject, LiveApi } from '@gatehouse/engine/core';

type Pages = AsyncIterable<readonly ApiObject[]>;

/** `api` with every listing passed, page by page, through `through`. */
export function withListings(api: LiveApi, through: (pages: Pages) => Pages): LiveApi {
  const listPages = (path: string, listKey: string) => through(api.listPages ? api.listPages(path, listKey) : pagesOf(api.list(path, listKey)));
  return {
    target: api.target,
    list: (path, listKey) => flatten(listPages(path, listKey)),
    listPages,
    get: (path) => api.get(path),
    create: (path, body, options) => api.create(path, body, options),
    update: (path, body) => api.update(path, body),
    replace: (path, body) => api.replace(path, body),
    remove: (path) => api.remove(path),
  };
}

async function* pagesOf(items: AsyncIterable<ApiObject>): Pages {
  for await (const item of items) yield [item];
}

async function* flatten(pages: Pages): AsyncIterable<ApiObject> {
  for await (const page of pages) yield* page;
}
