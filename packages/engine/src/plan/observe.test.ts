import { describe, expect, it } from 'vitest';
import type { ApiObject } from '../ports.js';
import { FAKE_PAGE_SIZE, FakeLiveApi } from '../testing/fake-api.js';
import { observe } from './observe.js';

/** The fake, also answering a page at a time (`listPages`), as the CLI's client does. */
class PagedFakeApi extends FakeLiveApi {
  async *listPages(path: string, listKey: string): AsyncIterable<readonly ApiObject[]> {
    let page: ApiObject[] = [];
    for await (const object of this.list(path, listKey)) {
      page.push(object);
      if (page.length === FAKE_PAGE_SIZE) {
        yield page;
        page = [];
      }
    }
    if (page.length > 0) yield page;
  }
}

describe('observe', () => {
  const collections = () => ({
    '/ip_policies': Array.from({ length: 150 }, (_, i) => ({
      id: `ipp_${i}`,
      description: `p${i}`,
      metadata: i % 2 ? `gatehouse:v1 {"stack":"s","name":"p${i}","hash":"0000000000000000"}` : '',
    })),
    '/ip_policy_rules': Array.from({ length: 230 }, (_, i) => ({
      id: `ipr_${i}`,
      cidr: `10.0.${i}.0/24`,
      action: 'allow',
      ip_policy: { id: `ipp_${i % 150}` },
    })),
    '/bot_users': [{ id: 'bot_1', name: 'ci', active: true }],
  });

  it('reads the same objects and counts the same requests page by page as item by item', async () => {
    const byItem = new FakeLiveApi(collections());
    const byPage = new PagedFakeApi(collections());
    const [items, pages] = await Promise.all([observe(byItem), observe(byPage)]);
    const summary = (o: Awaited<ReturnType<typeof observe>>) => o.live.map((l) => [l.descriptor.kind, l.id, l.parentId, l.marker?.name, l.userMetadata]);
    expect(summary(pages)).toEqual(summary(items));
    expect(pages.live).toHaveLength(381);
    expect(pages.requests).toBe(items.requests);
    expect(byPage.requestCount).toBe(byItem.requestCount);
  });
});
