/**
 * Throughput of the BUILT reference server on loopback (run `npm run build` first):
 *
 *   npm run bench -w packages/server          (BENCH_SECONDS=3, BENCH_CONNECTIONS=10)
 *
 * GET by id, GET a list of 100 and POST, each printed as requests per second next to a bare
 * Fastify route that returns a fixed JSON object (an IP policy as the server renders it),
 * measured in the same run, and the ratio (POST also next to a bare POST route that parses the
 * same JSON body and answers 201); the list is also compared with a bare route that
 * returns the same page of 100 as a fixed object, the like-for-like reference for its bytes. The servers run in a child process (the real app over a temporary SQLite
 * file with WAL and synchronous=FULL, exactly as `gatehouse serve` runs it, and the bare app
 * beside it) so that autocannon, in this process, does not share their event loop. The bare
 * routes are measured between the scenarios and the mean of their runs is the reference,
 * which evens out the drift of a shared machine. Any non-2xx answer or error is printed, because a
 * fast error is not a result. `cpu us/req` is the CPU time the servers' process spent per
 * request during the run: unlike req/s it hardly depends on what else the machine is doing.
 *
 * Reads hit the render cache (src/cache/render-cache.ts) after their first request, as repeated
 * reads of an unchanged configuration do; a read after a write pays the full render once.
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const KEY = 'bench-key-0123456789';
const HEADERS = { authorization: `Bearer ${KEY}`, 'service-version': '2' };

if (process.argv[2] === '--serve') {
  await serve();
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { problems } = await measure();
  if (problems) process.exitCode = 1;
}

/** Child: the real app and the bare app, listening; reports their addresses and the seed ids. */
async function serve() {
  const { default: Fastify } = await import('fastify');
  const { startServer } = await import('../dist/index.js');
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-bench-'));
  const server = await startServer({ host: '127.0.0.1', port: 0, db: join(dir, 'bench.db'), apiKeys: [KEY] });

  // 150 policies: a list of 100 is a full page, and GET by id reads one of them.
  let id;
  for (let i = 0; i < 150; i++) {
    const res = await server.app.inject({
      method: 'POST',
      url: '/ip_policies',
      headers: { ...HEADERS, 'content-type': 'application/json' },
      payload: JSON.stringify({ description: `bench policy ${i}`, metadata: '{"team":"bench"}' }),
    });
    if (res.statusCode !== 201) throw new Error(`seeding failed: ${res.statusCode} ${res.body}`);
    id = res.json().id;
  }
  const sample = (await server.app.inject({ method: 'GET', url: `/ip_policies/${id}`, headers: HEADERS })).json();
  const page = (await server.app.inject({ method: 'GET', url: '/ip_policies?limit=100', headers: HEADERS })).json();

  const bare = Fastify({ logger: false });
  bare.get('/bare', async () => sample);
  bare.get('/bare-list', async () => page);
  // The like-for-like reference for POST: parses a JSON body and answers 201 with an object.
  bare.post('/bare', async (_request, reply) => reply.code(201).send(sample));
  await bare.listen({ host: '127.0.0.1', port: 0 });
  const barePort = bare.server.address().port;

  process.send({ url: server.url, bareUrl: `http://127.0.0.1:${barePort}`, id });
  process.on('message', async (message) => {
    if (message === 'cpu') process.send({ cpu: process.cpuUsage(), writes: server.app.services.store.writeStats() });
    if (message === 'stop') {
      await bare.close();
      await server.close();
      rmSync(dir, { recursive: true, force: true });
      process.exit(0);
    }
  });
}

/**
 * Parent: drives autocannon against both and prints the table. Returns the ratios of the
 * user-level bench (GET by id to the bare object route, POST to the bare POST route, both
 * measured in this run) and whether any run had a non-2xx answer or an error.
 */
export async function measure() {
  const { default: autocannon } = await import('autocannon');
  const child = fork(fileURLToPath(import.meta.url), ['--serve'], { stdio: 'inherit' });
  const info = await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`bench server exited (${code}) before it was ready`)));
  });

  /**
   * CPU time (user + system, microseconds) the servers' process has used so far, and the
   * group commit's counters (writes, commits, fsyncs).
   */
  const serverState = () =>
    new Promise((resolve) => {
      const onMessage = (message) => {
        if (message?.cpu === undefined) return;
        child.off('message', onMessage);
        resolve({ cpu: message.cpu.user + message.cpu.system, writes: message.writes });
      };
      child.on('message', onMessage);
      child.send('cpu');
    });

  const run = async (name, options) => {
    const before = await serverState();
    const result = await new Promise((resolve, reject) =>
      autocannon({ connections: CONNECTIONS, duration: SECONDS, ...options }, (error, r) => (error ? reject(error) : resolve(r))),
    );
    const after = await serverState();
    const cpu = after.cpu - before.cpu;
    const writes = after.writes.writes - before.writes.writes;
    if (writes > 0) {
      const per = (n) => (n > 0 ? (writes / n).toFixed(1) : '-');
      console.log(
        `  ${name}: ${writes} writes, ${per(after.writes.commits - before.writes.commits)} per commit, ${per(after.writes.syncs - before.writes.syncs)} per fsync`,
      );
    }
    const problems = result.non2xx + result.errors + result.timeouts;
    if (problems > 0) {
      console.error(`  ${name}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`);
    }
    // Server CPU per request: what the server itself spends, far less sensitive than req/s
    // to the load generator and other work competing for the same cores.
    return { rps: result.requests.average, p99: result.latency.p99, cpuUs: cpu / Math.max(1, result.requests.total), problems };
  };

  const bareOne = () => run('bare', { url: `${info.bareUrl}/bare` });
  const bareList = () => run('bare list', { url: `${info.bareUrl}/bare-list` });
  const postBody = JSON.stringify({ description: 'bench', metadata: '{"team":"bench"}' });
  const bareBody = { method: 'POST', headers: { 'content-type': 'application/json' }, body: postBody };
  const barePost = () => run('bare POST', { url: `${info.bareUrl}/bare`, ...bareBody });
  const scenarios = [
    ['GET /ip_policies/:id', { url: `${info.url}/ip_policies/${info.id}`, headers: HEADERS }],
    ['GET /ip_policies (100)', { url: `${info.url}/ip_policies?limit=100`, headers: HEADERS }],
    [
      'POST /ip_policies',
      {
        url: `${info.url}/ip_policies`,
        method: 'POST',
        headers: { ...HEADERS, 'content-type': 'application/json' },
        body: postBody,
      },
    ],
  ];

  const load = () => loadavg().map((n) => n.toFixed(2)).join(' ');
  console.log(`gatehouse server bench: ${SECONDS}s per run, ${CONNECTIONS} connections, loopback; load average ${load()}`);
  // Warm everything up (JIT, statement caches) without recording.
  await run('warm-up', { url: `${info.bareUrl}/bare`, duration: 1 });
  await run('warm-up', { url: `${info.bareUrl}/bare-list`, duration: 1 });
  await run('warm-up', { url: `${info.url}/ip_policies/${info.id}`, headers: HEADERS, duration: 1 });
  await run('warm-up', { url: `${info.url}/ip_policies?limit=100`, headers: HEADERS, duration: 1 });

  // The bare routes are measured between the scenarios; the mean of their runs is the reference.
  const oneRuns = [await bareOne()];
  const listRuns = [await bareList()];
  const postRuns = [await barePost()];
  const results = [];
  for (const [name, options] of scenarios) {
    results.push([name, await run(name, options)]);
    oneRuns.push(await bareOne());
    listRuns.push(await bareList());
    postRuns.push(await barePost());
  }
  const mean = (runs, field = 'rps') => runs.reduce((sum, r) => sum + r[field], 0) / runs.length;
  const oneRps = mean(oneRuns);
  const listRps = mean(listRuns);
  const postRps = mean(postRuns);
  const pct = (rps, reference) => `${((rps / reference) * 100).toFixed(0)}%`;

  const rows = [
    ['bare route: fixed object', oneRps, oneRuns.at(-1).p99, mean(oneRuns, 'cpuUs'), '', ''],
    ['bare route: fixed list of 100', listRps, listRuns.at(-1).p99, mean(listRuns, 'cpuUs'), '', ''],
    ['bare route: POST, fixed object', postRps, postRuns.at(-1).p99, mean(postRuns, 'cpuUs'), '', ''],
    ...results.map(([name, r]) => [
      name,
      r.rps,
      r.p99,
      r.cpuUs,
      pct(r.rps, oneRps),
      name.includes('(100)') ? pct(r.rps, listRps) : name.startsWith('POST') ? `${pct(r.rps, postRps)} of POST` : '',
    ]),
  ];
  console.log('');
  console.log(
    `${'scenario'.padEnd(32)}${'req/s'.padStart(9)}${'p99 ms'.padStart(8)}${'cpu us/req'.padStart(12)}${'vs bare object'.padStart(16)}${'vs bare list'.padStart(14)}`,
  );
  for (const [name, rps, p99, cpuUs, ratioOne, ratioList] of rows) {
    console.log(
      `${name.padEnd(32)}${rps.toFixed(0).padStart(9)}${String(p99).padStart(8)}${cpuUs.toFixed(0).padStart(12)}${ratioOne.padStart(16)}${ratioList.padStart(14)}`,
    );
  }
  console.log(`load average at the end: ${load()}`);
  const show = (runs) => runs.map((r) => r.rps.toFixed(0)).join(', ');
  console.log(`(bare object runs: ${show(oneRuns)}; bare list runs: ${show(listRuns)}; bare POST runs: ${show(postRuns)})`);

  child.send('stop');
  await new Promise((resolve) => child.once('exit', resolve));
  const byName = new Map(results);
  return {
    get: { rps: byName.get('GET /ip_policies/:id').rps, bareRps: oneRps },
    post: { rps: byName.get('POST /ip_policies').rps, bareRps: postRps },
    problems: [...results.map(([, r]) => r), ...oneRuns, ...listRuns, ...postRuns].some((r) => r.problems > 0),
  };
}
