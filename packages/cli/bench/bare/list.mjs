/**
 * The plan row's baseline: a bare node + undici process that lists the given collections the
 * way the plan does (pages of 100 following `next_page_uri`, every collection at once, 10
 * connections), and nothing else. Prints the number of requests it made.
 *
 *   node bare/list.mjs URL KEY /ip_policies:ip_policies /bot_users:bot_users ...
 */
import { Agent } from 'undici';
import { listAll } from './listing.mjs';

const [url, key, ...collections] = process.argv.slice(2);
const dispatcher = new Agent({ connections: 10 });
const requests = await listAll(url, key, collections, dispatcher);
await dispatcher.close();
console.log(JSON.stringify({ requests }));
