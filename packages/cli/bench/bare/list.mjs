/**
 * The plan row's baselines: a bare node + undici process that lists the given collections the
 * way the plan does (pages of 100 following `next_page_uri`, every collection at once, 10
 * connections), and nothing else: the fewest requests a client can make to know the live
 * state of the collections it manages. Prints the number of requests it made.
 *
 * With `--parse FILE`, it first reads FILE's documents with `yaml` (`parseAllDocuments`, then
 * each document's value), as a plan must before it may send a request: the least any plan
 * built on `yaml` can take, gatehouse's own work aside.
 *
 *   node bare/list.mjs [--parse FILE] URL KEY /ip_policies:ip_policies /bot_users:bot_users ...
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';

const args = process.argv.slice(2);
if (args[0] === '--parse') {
  const { parseAllDocuments } = await import('yaml');
  const documents = parseAllDocuments(readFileSync(args[1], 'utf8'));
  if (documents.some((d) => d.errors.length > 0)) throw new Error(`${args[1]}: not valid YAML`);
  documents.forEach((d) => d.toJS());
  args.splice(0, 2);
}
const [url, key, ...collections] = args;
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
