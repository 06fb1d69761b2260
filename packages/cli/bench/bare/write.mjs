/**
 * The apply rows' baseline: a bare node + undici process that sends the given writes, 10 at a
 * time (a careful hand-written script), and nothing else.
 *
 *   node bare/write.mjs URL KEY JOBS.json
 *
 * JOBS.json holds a list of jobs; each job is a list of requests run in order (a policy, then
 * its rule: `"$0"` in a body is replaced by the id the job's first request created).
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';

const [url, key, file] = process.argv.slice(2);
const jobs = JSON.parse(readFileSync(file, 'utf8'));
const dispatcher = new Agent({ connections: 10 });
const headers = { authorization: `Bearer ${key}`, 'service-version': '2', 'content-type': 'application/json' };

async function run(job) {
  let first;
  for (const { method, path, body } of job) {
    const text = JSON.stringify(body).replaceAll('"$0"', JSON.stringify(first));
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
