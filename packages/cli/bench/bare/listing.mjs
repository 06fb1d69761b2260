/**
 * What every bare baseline lists: each collection in pages of 100 following `next_page_uri`,
 * every collection at once over the caller's pool (10 connections). The fewest requests a
 * client can make to know the live state of the collections it manages.
 */
import { request } from 'undici';

/** Lists `collections` (`path:listKey`); resolves with the number of requests made. */
export async function listAll(url, key, collections, dispatcher) {
  const headers = { authorization: `Bearer ${key}`, 'service-version': '2' };
  let requests = 0;
  const list = async (path, listKey) => {
    const items = [];
    for (let next = `${url}${path}?limit=100`; next;) {
      requests++;
      const res = await request(next, { headers, dispatcher });
      if (res.statusCode !== 200) throw new Error(`${next}: ${res.statusCode}`);
      const page = await res.body.json();
      items.push(...page[listKey]);
      next = page.next_page_uri;
    }
    return items;
  };
  await Promise.all(collections.map((c) => list(...c.split(':'))));
  return requests;
}
