/**
 * Throughput of the BUILT reference server on loopback (run `npm run build` first):
 *
 *   npm run bench -w packages/server    (BENCH_SECONDS=3, BENCH_ROUNDS=3, BENCH_CONNECTIONS=10;
 *                                        BENCH_DIST=<dir> runs another build, e.g. main's copied aside)
 *
 * GET by id, GET a list of 100 and POST, each next to a like-for-like bare Fastify route
 * measured right beside it: a route that returns a fixed JSON object (an IP policy as the
 * server renders it), one that returns the same page of 100 as a fixed object, and a POST
 * route that parses the same JSON body and answers 201 with the fixed object. autocannon runs
 * in this process; the servers in others, so as not to share its event loop. The server
 * under test is either
 * - `gatehouse serve` itself (`measure({ serve: <the CLI's bin/run.js> })`; `npm run bench` at
 *   the root runs it so): a process of its own started as a user starts it (WAL,
 *   synchronous=FULL, and its default log, a JSON line per request at `info`, written to
 *   /dev/null: the bench counts what the server spends on its log, not the disk's writeback);
 * - or, when this script runs by itself (`npm run bench -w packages/server`), the library's
 *   app over a temporary SQLite file, without a logger, in a child process: for profiling and
 *   for A/B runs of builds (BENCH_DIST).
 * The bare routes run alone in a child process of their own. Until 2026-11-27 they ran in the
 * library app's process, where they answered GETs 10-15% and POSTs some 8% slower than
 * alone (they share Fastify's code with a large app), which made both ratios look better.
 * Each scenario runs in several adjacent (reference, scenario) pairs and its ratio is the
 * median of the pairs' ratios (see `measure`). Any non-2xx answer or error is printed, because
 * a fast error is not a result.
 * `cpu us/req` is the CPU time the server's process spent per request during the run (read
 * from /proc for `gatehouse serve`): unlike req/s it hardly depends on what else the machine
 * is doing.
 *
 * Reads hit the render cache (src/cache/render-cache.ts) after their first request, as repeated
 * reads of an unchanged configuration do; a read after a write pays the full render once.
 */
import { fork, spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve as resolvePath } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { diskFlushes, fsyncLatency, PROBE_BYTES } from './disk.mjs';

/**
 * The positive whole number in environment variable `name`, or `fallback` when it is unset. Any
 * other value, an empty one too, stops the bench with an error that names the variable: zero
 * rounds, say, would print no figure at all rather than a wrong one.
 */
export function countFromEnv(name, fallback) {
  const value = process.env[name];
  if (value === undefined) return fallback;
  if (!/^[1-9][0-9]*$/.test(value.trim())) throw new Error(`${name} must be a positive whole number, not ${JSON.stringify(value)}`);
  return Number(value);
}

const SECONDS = countFromEnv('BENCH_SECONDS', 3);
const CONNECTIONS = countFromEnv('BENCH_CONNECTIONS', 10);
const ROUNDS = countFromEnv('BENCH_ROUNDS', 3);
const KEY = 'bench-key-0123456789';
const HEADERS = { authorization: `Bearer ${KEY}`, 'service-version': '2' };
const JSON_BODY = { 'content-type': 'application/json' };
/** A warm-up's 1 s runs (fewest, most), and how close two runs' CPU per request must be to end it. */
const WARM_UP_RUNS = [3, 12];
const WARM_UP_SETTLED = 0.05;
/** More flags for `gatehouse serve` (BENCH_SERVE_ARGS, split at spaces), e.g. `--log-level warn`. */
const SERVE_ARGS = (process.env.BENCH_SERVE_ARGS ?? '').split(' ').filter(Boolean);

if (process.argv[2] === '--library-app') {
  await serveLibraryApp();
} else if (process.argv[2] === '--bare-for') {
  await serveBare(process.argv[3]);
} else if (process.argv[2] === '--measure-serve') {
  // `measureInChild`'s child: measures `gatehouse serve` (the CLI at argv[3]), sends the result.
  const result = await measure({ rounds: Number(process.argv[4]), serve: process.argv[3] });
  process.send(result, () => process.disconnect());
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { problems } = await measure();
  if (problems) process.exitCode = 1;
}

/**
 * Child: the library's app over a temporary SQLite file, listening; reports its URL, and
 * answers 'cpu' with its CPU time and the group commit's counters.
 */
async function serveLibraryApp() {
  // BENCH_DIST: another build of the server (e.g. main's, copied aside) for A/B runs.
  const { startServer } = await import(process.env.BENCH_DIST ? pathToFileURL(resolvePath(process.env.BENCH_DIST, 'index.js')).href : '../dist/index.js');
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-bench-'));
  const server = await startServer({ host: '127.0.0.1', port: 0, db: join(dir, 'bench.db'), apiKeys: [KEY] });
  const stop = async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  };
  process.send({ url: server.url });
  // A bench killed outright leaves no server or database behind: the IPC channel closes with it.
  process.once('disconnect', () => void stop());
  process.on('message', async (message) => {
    if (message === 'cpu') process.send({ cpu: process.cpuUsage(), writes: server.app.services.store.writeStats() });
    if (message === 'stop') await stop();
  });
}

/**
 * Child: the bare app. Seeds the server at `url` with 150 policies (a list of 100 is then a
 * full page, and GET by id reads the last one), and answers as the server rendered them;
 * reports its URL and that id.
 */
async function serveBare(url) {
  const request = async (method, path, body) => {
    const res = await fetch(`${url}${path}`, { method, headers: body ? { ...HEADERS, ...JSON_BODY } : HEADERS, body });
    return { status: res.status, body: await res.text() };
  };
  let id;
  for (let i = 0; i < 150; i++) {
    const res = await request('POST', '/ip_policies', JSON.stringify({ description: `bench policy ${i}`, metadata: '{"team":"bench"}' }));
    if (res.status !== 201) throw new Error(`seeding failed: ${res.status} ${res.body}`);
    id = JSON.parse(res.body).id;
  }
  const sample = JSON.parse((await request('GET', `/ip_policies/${id}`)).body);
  const page = JSON.parse((await request('GET', '/ip_policies?limit=100')).body);

  const { default: Fastify } = await import('fastify');
  const bare = Fastify({ logger: false });
  bare.get('/bare', async () => sample);
  bare.get('/bare-list', async () => page);
  // The like-for-like reference for POST: parses a JSON body and answers 201 with an object.
  bare.post('/bare', async (_request, reply) => reply.code(201).send(sample));
  await bare.listen({ host: '127.0.0.1', port: 0 });
  process.send({ bareUrl: `http://127.0.0.1:${bare.server.address().port}`, id });
  process.once('disconnect', () => process.exit(0));
  process.on('message', async (message) => {
    if (message === 'stop') {
      await bare.close();
      process.exit(0);
    }
  });
}

/** Forks this script as a child with `args`; resolves with the child and its first message. */
async function forkChild(args) {
  const child = fork(fileURLToPath(import.meta.url), args, { stdio: 'inherit' });
  const ready = await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`bench child ${args[0]} exited (${code}) before it was ready`)));
  });
  return { child, ready };
}

/**
 * Asks `child` to end if it still runs (`ask`: SIGTERM unless given; a child started by
 * `forkChild` is sent an IPC 'stop'), and resolves once it has exited.
 */
export async function stopChild(child, ask = () => child.kill('SIGTERM')) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  ask();
  await exited;
}

/** Stops a child started by `forkChild`. */
function stopForked(child) {
  return stopChild(child, () => child.send('stop'));
}

/**
 * The library's app in a child process: its URL, `state()` (CPU time in microseconds, the
 * group commit's counters) and `stop()`.
 */
async function startLibraryApp() {
  const { child, ready } = await forkChild(['--library-app']);
  return {
    url: ready.url,
    state: () =>
      new Promise((resolve) => {
        const onMessage = (message) => {
          if (message?.cpu === undefined) return;
          child.off('message', onMessage);
          resolve({ cpu: message.cpu.user + message.cpu.system, writes: message.writes });
        };
        child.on('message', onMessage);
        child.send('cpu');
      }),
    stop: () => stopForked(child),
  };
}

/** A loopback port that was free a moment ago: `serve` prints its address where we do not read. */
async function freePort() {
  const probe = createServer();
  await new Promise((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/**
 * `gatehouse serve` (`cli`: the CLI's bin/run.js) over a fresh database in `dir`, its stdout
 * (the log) to /dev/null, once it answers: its URL, `state()` (CPU time in microseconds, from
 * /proc) and `stop()`.
 */
async function startGatehouseServe(cli, dir) {
  const port = await freePort();
  const devNull = openSync('/dev/null', 'w');
  const child = spawn(process.execPath, [cli, 'serve', '--port', String(port), '--db', join(dir, 'bench.db'), '--api-key', KEY, '--log-format', 'json', ...SERVE_ARGS], {
    stdio: ['ignore', devNull, 'inherit'],
  });
  closeSync(devNull);
  const exited = new Promise((_resolve, reject) => child.once('exit', (code) => reject(new Error(`gatehouse serve exited (${code}) before it answered`))));
  const url = `http://127.0.0.1:${port}`;
  const answered = (async () => {
    for (let tries = 0; tries < 300; tries++) {
      try {
        await fetch(`${url}/ip_policies`, { headers: HEADERS });
        return;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    throw new Error(`gatehouse serve did not answer on ${url} within 30 s`);
  })();
  try {
    await Promise.race([answered, exited]);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  exited.catch(() => {});
  return {
    url,
    state: async () => ({ cpu: processCpu(child.pid) }),
    stop: () => stopChild(child),
  };
}

/** CPU time (user + system, microseconds) that process `pid` has used, from /proc; NaN elsewhere. */
function processCpu(pid) {
  try {
    // After the command's name: utime and stime are the 12th and 13th fields, in 1/100 s.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return Number.NaN;
  }
}

/**
 * Parent: drives autocannon against both and prints the table. Each scenario is measured in
 * `rounds` pairs of adjacent runs (`BENCH_ROUNDS`, default 3; `npm run bench` passes its own
 * ROUNDS, 5), its bare reference and itself (the order alternating from round to round), and
 * its ratio is the median of the pairs' ratios: a burst of load from elsewhere on a shared
 * machine hits both runs of a pair alike, where a single run against a mean of references
 * spread over a minute can lose half its rate to one burst. Returns, for
 * GET by id and POST, the pair with the median ratio (`rps`, `bareRps`, `ratio`), and whether
 * any run had a non-2xx answer or an error.
 */
export async function measure({ rounds = ROUNDS, serve } = {}) {
  const dir = serve ? mkdtempSync(join(tmpdir(), 'gatehouse-bench-')) : undefined;
  let server;
  let bare;
  try {
    server = serve ? await startGatehouseServe(serve, dir) : await startLibraryApp();
    bare = await forkChild(['--bare-for', server.url]);
    return await drive({ rounds, server, bare: { ...bare.ready, pid: bare.child.pid }, servingCommand: Boolean(serve), databaseDir: dir ?? tmpdir() });
  } finally {
    // Also when a run failed: a server left running would hold the terminal's output open.
    if (bare) await stopForked(bare.child);
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * `measure({ rounds, serve })` in a fresh child process, which prints the table: the load
 * generator (autocannon) then runs in a process of its own, as the server and the bare app do,
 * not in one that earlier work left with a larger heap and more to collect. In the root bench's
 * own process, after its plan and apply rows, the POST row read 0.28x where the server rows run
 * alone read 0.33-0.35x (2026-11-28 15:25-15:32 UTC), the server spending 151 against 128-137 us
 * of CPU per POST: a latency-bound server does more work per request when its client answers
 * slower. In a child, after the same rows: 0.34x at 136 us (15:33).
 */
export async function measureInChild({ rounds, serve }) {
  const { child, ready: result } = await forkChild(['--measure-serve', serve, String(rounds)]);
  // The child disconnects once it has sent the result, and exits.
  const code = child.exitCode ?? (await new Promise((resolve) => child.once('exit', resolve)));
  if (code !== 0) throw new Error(`the server bench's child exited (${code}) after its result`);
  return result;
}

/**
 * `measure`'s runs and table, against servers that are up: `server` (its URL and `state()`),
 * `bare` (what the bare child reported, and its pid); `databaseDir` is where the server's
 * database is (or one on the same disk), whose fsyncs the POST row waits for.
 */
async function drive({ rounds, server, bare, servingCommand, databaseDir }) {
  const { default: autocannon } = await import('autocannon');
  const info = { url: server.url, bareUrl: bare.bareUrl, id: bare.id };
  /**
   * CPU time (user + system, microseconds) that the server's and the bare app's processes have
   * used so far (the one idle while the other is measured), and, for the library's app, the
   * group commit's counters (writes, commits, fsyncs).
   */
  const serverState = async () => {
    const state = await server.state();
    return { ...state, cpu: state.cpu + processCpu(bare.pid) };
  };

  const writeTotals = { writes: 0, commits: 0, syncs: 0 };
  const run = async (name, options) => {
    const before = await serverState();
    const flushesBefore = diskFlushes();
    const result = await new Promise((resolve, reject) =>
      autocannon({ connections: CONNECTIONS, duration: SECONDS, ...options }, (error, r) => (error ? reject(error) : resolve(r))),
    );
    const flushes = diskFlushes() - flushesBefore;
    const after = await serverState();
    if (after.writes) for (const key of Object.keys(writeTotals)) writeTotals[key] += after.writes[key] - before.writes[key];
    const problems = result.non2xx + result.errors + result.timeouts;
    if (problems > 0) {
      console.error(`  ${name}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`);
    }
    // Server CPU per request: what the server itself spends, far less sensitive than req/s
    // to the load generator and other work competing for the same cores.
    const cpuUs = (after.cpu - before.cpu) / Math.max(1, result.requests.total);
    return { rps: result.requests.average, p99: result.latency.p99, cpuUs, problems, requests: result.requests.total, seconds: result.duration, flushes };
  };

  const postBody = JSON.stringify({ description: 'bench', metadata: '{"team":"bench"}' });
  /** Each scenario and its like-for-like bare reference. */
  const scenarios = [
    {
      name: 'GET /ip_policies/:id',
      options: { url: `${info.url}/ip_policies/${info.id}`, headers: HEADERS },
      reference: ['bare route: fixed object', { url: `${info.bareUrl}/bare` }],
    },
    {
      name: 'GET /ip_policies (100)',
      options: { url: `${info.url}/ip_policies?limit=100`, headers: HEADERS },
      reference: ['bare route: fixed list of 100', { url: `${info.bareUrl}/bare-list` }],
    },
    {
      name: 'POST /ip_policies',
      options: { url: `${info.url}/ip_policies`, method: 'POST', headers: { ...HEADERS, ...JSON_BODY }, body: postBody },
      reference: ['bare route: POST, fixed object', { url: `${info.bareUrl}/bare`, method: 'POST', headers: JSON_BODY, body: postBody }],
    },
  ];

  const fixed = (n, digits = 0) => n.toFixed(digits);
  const load = () => loadavg().map((n) => n.toFixed(2)).join(' ');
  console.log(
    `gatehouse server bench (${servingCommand ? '`gatehouse serve`, its log to /dev/null' : "the library's app, no logger"}): ${SECONDS}s per run, ${rounds} rounds of (reference, scenario) pairs, ${CONNECTIONS} connections, loopback; load average ${load()}`,
  );
  /**
   * Loads `options` without recording, in 1 s runs, until it has settled: until a run's server
   * CPU per request is within `WARM_UP_SETTLED` of the run before (at least `WARM_UP_RUNS[0]`
   * runs, at most `WARM_UP_RUNS[1]`); returns the runs it took. A fixed second was too short
   * for POST: from a fresh start, `serve` spent 419, 193, 151, then 130-142 us of CPU per POST
   * in 2 s windows (2026-11-28), and as much again after a restart on the same database, with
   * the WAL at its full size from the first window. V8 compiles the write path's hot functions
   * on a background thread, which gets little CPU while both cores serve the load. Left so, the
   * first two rounds' POST pairs read low, and the median of five was the lowest of the three
   * settled ones. The WAL's first cycle (a growing file, whose size each fsync records) and the
   * start of the checkpoint thread fall in this warm-up too.
   */
  const warmUp = async (options) => {
    let previous;
    for (let runs = 1; ; runs++) {
      const { cpuUs } = await run('warm-up', { ...options, duration: 1 });
      const settled = previous !== undefined && Math.abs(cpuUs - previous) <= WARM_UP_SETTLED * previous;
      if (runs >= WARM_UP_RUNS[1] || (runs >= WARM_UP_RUNS[0] && settled)) return runs;
      previous = cpuUs;
    }
  };
  const warmUpRuns = [];
  for (const scenario of scenarios) {
    await warmUp(scenario.reference[1]);
    warmUpRuns.push(`${scenario.name} ${await warmUp(scenario.options)} s`);
  }
  console.log(`warm-up until the server's CPU per request settled: ${warmUpRuns.join(', ')}`);
  const idleFsync = fsyncLatency(databaseDir);
  console.log(
    `disk under ${databaseDir}: fdatasync after a ${fixed(PROBE_BYTES / 1024)} KB overwrite (the machine idle) ${fixed(idleFsync.p50)} us p50, ${fixed(idleFsync.p90)} us p90; ` +
      'a POST is answered after one or two fsyncs of the WAL, each slower while both cores are busy',
  );
  writeTotals.writes = writeTotals.commits = writeTotals.syncs = 0;

  const pairs = new Map(scenarios.map((s) => [s.name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const scenario of scenarios) {
      const [referenceName, referenceOptions] = scenario.reference;
      let reference;
      let measured;
      if (round % 2 === 0) {
        reference = await run(referenceName, referenceOptions);
        measured = await run(scenario.name, scenario.options);
      } else {
        measured = await run(scenario.name, scenario.options);
        reference = await run(referenceName, referenceOptions);
      }
      pairs.get(scenario.name).push({ measured, reference, ratio: measured.rps / reference.rps });
    }
  }

  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];
  /** The pair whose ratio is the median (the lower middle one for an even count). */
  const medianPair = (list) => [...list].sort((a, b) => a.ratio - b.ratio)[Math.floor((list.length - 1) / 2)];
  console.log('');
  console.log(
    `${'scenario'.padEnd(26)}${'req/s'.padStart(8)}${'p99 ms'.padStart(8)}${'cpu us/req'.padStart(12)}` +
      `${'bare req/s'.padStart(12)}${'bare cpu'.padStart(10)}${'ratio'.padStart(8)}${'range'.padStart(13)}${'cpu ratio'.padStart(11)}`,
  );
  const summary = new Map();
  for (const scenario of scenarios) {
    const list = pairs.get(scenario.name);
    const pair = medianPair(list);
    const cpu = median(list.map((p) => p.measured.cpuUs));
    const bareCpu = median(list.map((p) => p.reference.cpuUs));
    const ratios = list.map((p) => p.ratio);
    summary.set(scenario.name, { rps: pair.measured.rps, bareRps: pair.reference.rps, ratio: pair.ratio });
    console.log(
      `${scenario.name.padEnd(26)}${fixed(pair.measured.rps).padStart(8)}${String(pair.measured.p99).padStart(8)}${fixed(cpu).padStart(12)}` +
        `${fixed(pair.reference.rps).padStart(12)}${fixed(bareCpu).padStart(10)}${`${fixed(pair.ratio, 2)}x`.padStart(8)}` +
        `${`${fixed(Math.min(...ratios), 2)}-${fixed(Math.max(...ratios), 2)}x`.padStart(13)}${`${fixed(bareCpu / cpu, 2)}x`.padStart(11)}`,
    );
  }
  const per = (n) => (n > 0 ? (writeTotals.writes / n).toFixed(1) : '-');
  if (!servingCommand) console.log(`POST: ${writeTotals.writes} writes, ${per(writeTotals.commits)} per commit, ${per(writeTotals.syncs)} per fsync`);
  const posts = pairs.get('POST /ip_policies').map((p) => p.measured);
  const postFlushes = posts.reduce((sum, run) => sum + run.flushes, 0);
  if (postFlushes > 0) {
    const seconds = posts.reduce((sum, run) => sum + run.seconds, 0);
    const requests = posts.reduce((sum, run) => sum + run.requests, 0);
    console.log(
      `POST runs: ${fixed(postFlushes / seconds)} disk cache flushes a second (the machine's, /proc/diskstats), ${fixed(requests / postFlushes, 1)} POSTs answered per flush`,
    );
  }
  console.log('(ratio: median of the pairs\' req/s ratios, range: all pairs; cpu ratio: bare cpu us/req / the scenario\'s, medians)');
  console.log(`load average at the end: ${load()}`);

  return {
    get: summary.get('GET /ip_policies/:id'),
    post: summary.get('POST /ip_policies'),
    problems: [...pairs.values()].flat().some((p) => p.measured.problems > 0 || p.reference.problems > 0),
  };
}
