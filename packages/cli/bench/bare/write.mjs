/**
 * The apply rows' baseline: a bare node + undici process that does what a minimal declarative
 * client must: list the given collections (as bare/list.mjs does: it cannot know what exists,
 * or what changed, without reading it), then send the given writes, 10 at a time (a careful
 * hand-written script), and nothing else. Prints the number of requests it made.
 *
 *   node bare/write.mjs URL KEY JOBS.json [/ip_policies:ip_policies ...]
 *
 * JOBS.json holds a list of jobs; each job is a list of requests run in order (a policy, then
 * its rule: `"$0"` in a body is replaced by the id the job's first request created).
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';
import { listAll } from './listing.mjs';

const [url, key, file, ...collections] = process.argv.slice(2);
const jobs = JSON.parse(readFileSync(file, 'utf8'));
const dispatcher = new Agent({ connections: 10 });
const headers = { authorization: `Bearer ${key}`, 'service-version': '2', 'content-type': 'application/json' };
let requests = collections.length > 0 ? await listAll(url, key, collections, dispatcher) : 0;

async function run(job) {
  let first;
  for (const { method, path, body } of job) {
    const text = JSON.stringify(body).replaceAll('"$0"', JSON.stringify(first));
    requests++;
    const res = await request(`${url}${path.replace('$0', first)}`, { method, headers, body: text, dispatcher });
    const answer = await res.body.json();
    if (res.statusCode >= 300) throw new Error(`${method} ${path}: ${res.statusCode} ${JSON.stringify(answer)}`);
    first ??= answer.id;
  }
}

let next = 0;
await Promise.all(Array.from({ length: 10 }, async () => {
  while (next < jobs.length) await run(jobs[next++]);
}));
await dispatcher.close();
console.log(JSON.stringify({ requests }));
