#!/usr/bin/env node
/**
 * Bench: `gatehouse apply` of 1,000 objects from empty, next to creating the same objects with
 * the client directly at the same concurrency, in the same run.
 *
 * Objects: 250 IP policies with one rule each (500), 250 tunnel-group backends, 150 TCP edges
 * whose backend module references one of them, 100 bot users. The direct run is what a
 * careful hand-written script would do: a pool of CONCURRENCY workers, each policy then its
 * rule, backends before the edges that need their ids, every object marked like apply marks
 * it. Apply is `prepareApply` then `executeApply` over the client (reads the manifests, lists
 * live state, plans, then runs the steps with the same parallelism): its time includes
 * planning, which is also printed on its own.
 * Each round uses two fresh `gatehouse serve` processes (one per side, fresh database files);
 * ROUNDS rounds (default 3), alternating which side goes first; medians are reported.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GatehouseClient } from '@gatehouse/client';
import { executeApply, prepareApply } from '@gatehouse/engine';
import { ClientLiveApi } from '../dist/live-api.js';
import { UNRESERVED, benchMetadata, countFromEnv, median, pool, startServe, yamlDoc } from './support.mjs';

const KEY = 'apply-bench-key-0123456789abcdef';
const STACK = 'bench';
const CONCURRENCY = countFromEnv('BENCH_CONCURRENCY', 10);
const ROUNDS = countFromEnv('BENCH_ROUNDS', 3);
const SIZES = { policies: 250, backends: 250, tcpEdges: 150, bots: 100 };
const OBJECTS = SIZES.policies * 2 + SIZES.backends + SIZES.tcpEdges + SIZES.bots;

const pad = (i) => String(i).padStart(4, '0');
const range = (n) => [...Array(n).keys()];
const cidr = (i) => `10.${Math.floor(i / 250)}.${i % 250}.0/24`;
const meta = (name) => benchMetadata(STACK, name);

function writeManifests(dir) {
  const docs = [
    ...range(SIZES.policies).map((i) => yamlDoc('IPPolicy', `policy-${pad(i)}`, { description: `bench ${i}`, rules: [{ cidr: cidr(i), action: 'allow' }] })),
    ...range(SIZES.backends).map((i) => yamlDoc('Backend', `backend-${pad(i)}`, { type: 'tunnel_group', labels: { app: `backend-${pad(i)}` } })),
    ...range(SIZES.tcpEdges).map((i) => yamlDoc('TCPEdge', `tcp-${pad(i)}`, { hostports: [`${i}.tcp.example.com:${20000 + i}`], backend: { backend: `backend-${pad(i)}` } })),
    ...range(SIZES.bots).map((i) => yamlDoc('BotUser', `bot-${pad(i)}`, { active: true })),
  ];
  writeFileSync(join(dir, 'manifests.yaml'), docs.join(''));
}

/** The same objects with the client, at CONCURRENCY; returns requests made. */
async function createDirectly(client) {
  await pool(range(SIZES.policies), CONCURRENCY, async (i) => {
    const name = `policy-${pad(i)}`;
    const p = await client.ipPolicies.create({ description: `bench ${i}`, metadata: meta(name) });
    await client.ipPolicyRules.create({ ip_policy_id: p.id, cidr: cidr(i), action: 'allow', metadata: meta(`${name}/${cidr(i)}`) });
  });
  const backendIds = [];
  await pool(range(SIZES.backends), CONCURRENCY, async (i) => {
    const name = `backend-${pad(i)}`;
    backendIds[i] = (await client.backends.tunnelGroup.create({ labels: { app: name }, metadata: meta(name) })).id;
  });
  await pool(range(SIZES.tcpEdges), CONCURRENCY, async (i) => {
    const hostports = [`${i}.tcp.example.com:${20000 + i}`];
    await client.tcpEdges.create({ hostports, backend: { enabled: true, backend_id: backendIds[i] }, metadata: meta(`tcp-${pad(i)}`) });
  });
  await pool(range(SIZES.bots), CONCURRENCY, async (i) => {
    await client.botUsers.create({ name: `bot-${pad(i)}`, active: true });
  });
}

let servers = 0;
async function timed(dir, fn) {
  const server = await startServe(join(dir, `server-${++servers}.db`), KEY, UNRESERVED);
  const client = new GatehouseClient({ baseUrl: server.url, apiKey: KEY, rateLimit: false });
  try {
    const start = performance.now();
    const value = await fn(client, server);
    return { ms: performance.now() - start, requests: client.requests.total, value };
  } finally {
    await client.close();
    server.stop();
  }
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-apply-bench-'));
  try {
    writeManifests(dir);
    const direct = [];
    const applied = [];
    const runApply = () =>
      timed(dir, async (client, server) => {
        const api = new ClientLiveApi(client, { url: server.url, embedded: false });
        const start = performance.now();
        const prepared = await prepareApply({ api, stack: STACK, paths: [dir], env: {} });
        const planMs = performance.now() - start;
        const result = await executeApply(prepared, api, { parallelism: CONCURRENCY });
        return { result, planned: prepared.plan.changes.length, planMs, runMs: performance.now() - start - planMs };
      });
    for (let round = 0; round < ROUNDS; round++) {
      if (round % 2 === 0) {
        direct.push(await timed(dir, createDirectly));
        applied.push(await runApply());
      } else {
        applied.push(await runApply());
        direct.push(await timed(dir, createDirectly));
      }
      // Every planned change done: the objects, and the records apply writes beside them (the
      // stack's bot user registry).
      const { result, planned } = applied.at(-1).value;
      if (!result.ok || planned < OBJECTS || result.summary.done !== planned) {
        throw new Error(`apply did not make all ${planned} planned changes (${OBJECTS} objects): ${JSON.stringify(result.summary)}`);
      }
    }
    const directMs = median(direct.map((r) => r.ms));
    const applyMs = median(applied.map((r) => r.ms));
    console.log(`\napply of ${OBJECTS} objects from empty (concurrency ${CONCURRENCY}), median of ${ROUNDS} rounds:`);
    const planMs = median(applied.map((r) => r.value.planMs));
    const runMs = median(applied.map((r) => r.value.runMs));
    console.log(`  gatehouse apply (over the client, planning included): ${applyMs.toFixed(0)} ms, ${applied[0].requests} requests`);
    console.log(`    of which planning (read manifests, list live state, plan): ${planMs.toFixed(0)} ms; running the steps: ${runMs.toFixed(0)} ms`);
    console.log(`  the same objects created with the client directly:   ${directMs.toFixed(0)} ms, ${direct[0].requests} requests`);
    console.log(`  ratio apply / direct: ${(applyMs / directMs).toFixed(2)}x (steps alone: ${(runMs / directMs).toFixed(2)}x)`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
