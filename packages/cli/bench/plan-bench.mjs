#!/usr/bin/env node
/**
 * Bench: `gatehouse plan` of 5,000 objects against a real server process, next to the time of
 * simply listing the same collections with the client, in the same run.
 *
 * 1. Starts `gatehouse serve` (built CLI) on a free port over a temporary database.
 * 2. Writes 5,000 live objects through the client, marked as owned by the bench stack
 *    (1,000 IP policies with one rule each, 1,000 bot users, 1,000 tunnel-group backends,
 *    500 TCP edges with a backend module, 250 HTTPS edges with one route each), and the
 *    manifests that declare exactly them; then `gatehouse apply` of them writes the markers it
 *    would, so the plan has to read everything and finds no change (checked).
 * 3. Times the bare listing: every collection the plan read, listed with a fresh client
 *    (pages of 100), all collections at once. Then times computePlan over a fresh client.
 *    Each is run ROUNDS times, alternating; medians are reported.
 * Prints times, request counts and the ratio (aim: plan within 1.5x the bare listing).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GatehouseClient, collect } from '@gatehouse/client';
import { computePlan, validateManifests } from '@gatehouse/engine';
import { ClientLiveApi } from '../dist/live-api.js';
import { LISTED_COLLECTIONS, UNRESERVED, benchMetadata, CLI, countFromEnv, median, pool, startServe, yamlDoc } from './support.mjs';

const KEY = 'bench-key-0123456789abcdef';
const STACK = 'bench';
const ROUNDS = countFromEnv('BENCH_ROUNDS', 5);
const SIZES = { policies: 1000, bots: 1000, backends: 1000, tcpEdges: 500, httpsEdges: 250 };
const meta = (name) => benchMetadata(STACK, name);

async function populate(client, dir) {
  const docs = [];
  const pad = (i) => String(i).padStart(4, '0');
  const policyIds = new Map();
  await pool([...Array(SIZES.policies).keys()], 10, async (i) => {
    const name = `policy-${pad(i)}`;
    const cidr = `10.${Math.floor(i / 250)}.${i % 250}.0/24`;
    const p = await client.ipPolicies.create({ description: `bench ${i}`, metadata: meta(name) });
    await client.ipPolicyRules.create({ ip_policy_id: p.id, cidr, action: 'allow', metadata: meta(`${name}/${cidr}`) });
    policyIds.set(name, p.id);
    docs.push(yamlDoc('IPPolicy', name, { description: `bench ${i}`, rules: [{ cidr, action: 'allow' }] }));
  });
  await pool([...Array(SIZES.bots).keys()], 10, async (i) => {
    await client.botUsers.create({ name: `bot-${pad(i)}`, active: true });
    docs.push(yamlDoc('BotUser', `bot-${pad(i)}`, { active: true }));
  });
  const backendIds = [];
  await pool([...Array(SIZES.backends).keys()], 10, async (i) => {
    const name = `backend-${pad(i)}`;
    const b = await client.backends.tunnelGroup.create({ labels: { app: name }, metadata: meta(name) });
    backendIds[i] = name;
    docs.push(yamlDoc('Backend', name, { type: 'tunnel_group', labels: { app: name } }));
    void b;
  });
  const backendId = new Map();
  for await (const b of client.backends.tunnelGroup.list()) backendId.set(b.labels.app, b.id);
  await pool([...Array(SIZES.tcpEdges).keys()], 10, async (i) => {
    const name = `tcp-${pad(i)}`;
    const hostports = [`${i}.tcp.example.com:${20000 + i}`];
    const backend = backendIds[i];
    await client.tcpEdges.create({ hostports, backend: { backend_id: backendId.get(backend) }, metadata: meta(name) });
    docs.push(yamlDoc('TCPEdge', name, { hostports, backend: { backend } }));
  });
  await pool([...Array(SIZES.httpsEdges).keys()], 10, async (i) => {
    const name = `https-${pad(i)}`;
    const hostports = [`site-${i}.example.com:443`];
    const backend = backendIds[i];
    const edge = await client.httpsEdges.create({ hostports, metadata: meta(name) });
    await client.httpsEdgeRoutes(edge.id).create({
      match_type: 'path_prefix',
      match: '/',
      backend: { backend_id: backendId.get(backend) },
      metadata: meta(`${name}/path_prefix:/`),
    });
    docs.push(yamlDoc('HTTPSEdge', name, { hostports, routes: [{ match_type: 'path_prefix', match: '/', backend: { backend } }] }));
  });
  writeFileSync(join(dir, 'manifests.yaml'), docs.sort().join(''));
  return SIZES.policies * 2 + SIZES.bots + SIZES.backends + SIZES.tcpEdges + SIZES.httpsEdges * 2;
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-bench-'));
  const server = await startServe(join(dir, 'server.db'), KEY, UNRESERVED);
  try {
    const writer = new GatehouseClient({ baseUrl: server.url, apiKey: KEY, rateLimit: false });
    const t0 = performance.now();
    const objects = await populate(writer, dir);
    await writer.close();
    console.log(`populated ${objects} objects in ${((performance.now() - t0) / 1000).toFixed(1)} s (${writer.requests.total} requests)`);
    // The markers written above hold a placeholder hash: `gatehouse apply` writes the ones it
    // would (a marker refresh per object), so that the plan measured below has no changes.
    const apply = spawnSync(process.execPath, [CLI, 'apply', dir, '--yes', '--stack', STACK], {
      env: { ...process.env, GATEHOUSE_API_URL: server.url, GATEHOUSE_API_KEY: KEY, GATEHOUSE_RATE_LIMIT: 'off' },
      encoding: 'utf8',
    });
    if (apply.status !== 0) throw new Error(`gatehouse apply exited ${apply.status}: ${apply.stderr}`);

    const target = { url: server.url, embedded: false };
    const planRun = async () => {
      const lists = new Set();
      const client = new GatehouseClient({ baseUrl: server.url, apiKey: KEY, rateLimit: false, onRequest: (e) => lists.add(e.path.split('?')[0]) });
      const start = performance.now();
      const plan = await computePlan({ paths: [dir], env: {}, api: new ClientLiveApi(client, target), stack: STACK });
      const ms = performance.now() - start;
      await client.close();
      return { ms, requests: client.requests.total, plan, lists: [...lists] };
    };
    const listRun = async (collections) => {
      const client = new GatehouseClient({ baseUrl: server.url, apiKey: KEY, rateLimit: false });
      const start = performance.now();
      const counts = await Promise.all(collections.map(([path, key]) => collect(client.list(path, key)).then((items) => items.length)));
      const ms = performance.now() - start;
      await client.close();
      return { ms, requests: client.requests.total, items: counts.reduce((a, b) => a + b, 0) };
    };

    const first = await planRun(); // warm-up; learns which collections the plan reads
    const changes = first.plan.changes.length;
    if (changes > 0) throw new Error(`the plan right after apply is not empty: ${changes} changes`);
    const keys = new Map(LISTED_COLLECTIONS);
    const collections = first.lists.map((p) => {
      if (!keys.has(p)) throw new Error(`the plan listed ${p}, which no kind's descriptor lists`);
      return [p, keys.get(p)];
    });
    await listRun(collections); // warm-up

    const plans = [];
    const listings = [];
    const offline = [];
    for (let i = 0; i < ROUNDS; i++) {
      listings.push(await listRun(collections));
      plans.push(await planRun());
      const start = performance.now();
      await validateManifests({ paths: [dir], env: {}, stack: STACK });
      offline.push(performance.now() - start);
    }
    const cliStart = performance.now();
    const cli = await new Promise((resolve) => {
      const child = spawn(process.execPath, [CLI, 'plan', dir, '--format', 'json', '--stack', STACK], {
        env: { ...process.env, GATEHOUSE_API_URL: server.url, GATEHOUSE_API_KEY: KEY, GATEHOUSE_RATE_LIMIT: 'off', NO_COLOR: '1' },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let out = '';
      child.stdout.on('data', (chunk) => (out += chunk));
      child.on('close', (code) => resolve({ code, out }));
    });
    const cliMs = performance.now() - cliStart;
    const cliPlan = cli.code === 0 ? JSON.parse(cli.out) : undefined;

    const planMs = median(plans.map((r) => r.ms));
    const listMs = median(listings.map((r) => r.ms));
    console.log(`\nplan of ${objects} objects (stack ${STACK}), median of ${ROUNDS} rounds:`);
    console.log(`  gatehouse plan (computePlan over the client): ${planMs.toFixed(0)} ms, ${plans[0].requests} requests, ${changes} changes, ${plans[0].plan.summary.unchanged} unchanged`);
    console.log(`  bare listing of the same ${collections.length} collections:     ${listMs.toFixed(0)} ms, ${listings[0].requests} requests, ${listings[0].items} items`);
    console.log(`  of the plan, reading the manifests offline (load, validate, resolve): ${median(offline).toFixed(0)} ms`);
    console.log(`  the built CLI, one run as a process (node start-up included): ${cliMs.toFixed(0)} ms, exit ${cli.code}, ${cliPlan?.requests ?? '?'} requests, ${cliPlan?.changes.length ?? '?'} changes`);
    console.log(`  ratio plan / listing: ${(planMs / listMs).toFixed(2)}x (aim: <= 1.5x)`);
  } finally {
    server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
