/**
 * What the benches share: starting the built `gatehouse serve` as a process, a worker pool,
 * the ownership metadata apply writes, one manifest document, the median of the rounds, and
 * counts read from the environment.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { composeMetadata, KINDS } from '@gatehouse/engine';

export const CLI = fileURLToPath(new URL('../bin/run.js', import.meta.url));

/**
 * Starts `gatehouse serve` on a free port over `db` with API key `key` (and `args`, more flags of
 * serve); resolves with its URL and a `stop` once it has printed its start-up lines, rejects if
 * it exits first. `stop()` resolves once the server has exited.
 */
export function startServe(db, key, args = []) {
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--db', db, '--api-key', key, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.on('exit', (code) => reject(new Error(`gatehouse serve exited ${code}: ${out}`)));
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const url = /listening on (\S+)/.exec(out)?.[1];
      if (url && /API key/.test(out)) resolve({ url, stop: () => stopChild(child) });
    });
  });
}

/** Asks `child` to end (SIGTERM) if it still runs, and resolves once it has exited. */
export async function stopChild(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

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

/** Runs `fn` over `items` with `n` at a time. */
export async function pool(items, n, fn) {
  let next = 0;
  await Promise.all(Array.from({ length: n }, async () => {
    while (next < items.length) await fn(items[next++]);
  }));
}

/**
 * Flags of `gatehouse serve` for the benches whose TCP edges use addresses they do not reserve
 * first: the server does not refuse them (reservations are not what a bench measures).
 */
export const UNRESERVED = ['--no-reservation-check'];

/** Every collection a plan may list, `[path, listKey]`, as the kinds' descriptors list them. */
export const LISTED_COLLECTIONS = KINDS.flatMap((d) => ('lists' in d.observe ? d.observe.lists.map((c) => [c.path, c.listKey]) : []));

/** The metadata apply writes on an object of `stack` named `name` (a fixed hash). */
export const benchMetadata = (stack, name) => composeMetadata(undefined, { stack, name, hash: '0'.repeat(16) });

/** One manifest document, spec as JSON (which is YAML). */
export const yamlDoc = (kind, name, spec) => `---\nkind: ${kind}\nname: ${name}\nspec: ${JSON.stringify(spec)}\n`;

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
