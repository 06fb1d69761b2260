/**
 * The plan row's baseline: a bare node + undici process that lists the given collections the
 * way the plan does (pages of 100 following `next_page_uri`, every collection at once, 10
 * connections), and nothing else: the fewest requests a client can make to know the live
 * state of the collections it manages. Prints the number of requests it made.
 *
 *   node bare/list.mjs URL KEY /ip_policies:ip_policies /bot_users:bot_users ...
 */
import { Agent, request } from 'undici';

const [url, key, ...collections] = process.argv.slice(2);
const dispatcher = new Agent({ connections: 10 });
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
await dispatcher.close();
console.log(JSON.stringify({ requests }));
