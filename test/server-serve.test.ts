/**
 * `gatehouse serve` as a user runs it (the built CLI): what it prints, the key it generates
 * once, the options and environment variables it honours, the service's limits (rolling rate
 * limit, concurrency cap, latency), the test-only fault injection, and the errors for bad
 * flag values.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { apiHeaders, freePort, runCli, startServe, tempDir, type ServeProcess, type SpawnOptions } from './helpers/cli.js';

// Each test starts real processes (a few seconds each on a busy machine): a generous ceiling.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 60_000 });
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function dir(): string {
  const d = tempDir();
  cleanups.push(d.cleanup);
  return d.path;
}

async function serve(args: string[], options: SpawnOptions = {}): Promise<ServeProcess> {
  const server = await startServe(args, options);
  cleanups.push(() => server.stop('SIGKILL'));
  return server;
}

async function status(server: ServeProcess, key: string, path = '/ip_policies', method = 'GET') {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: apiHeaders(key, method === 'POST'),
    ...(method === 'POST' ? { body: '{}' } : {}),
  });
  return { status: res.status, headers: res.headers, body: (await res.text()) || undefined };
}

describe('start-up output and the generated key', () => {
  it('without a terminal, keeps stdout to JSON log lines: the start-up lines go to stderr; with pretty logs, to stdout', async () => {
    const json = await serve(['--port', '0', '--db', ':memory:', '--api-key', 'json-key-0123456789']);
    expect((await status(json, 'json-key-0123456789')).status).toBe(200);
    await json.waitForOutput(/"msg":"request"/);
    const lines = json
      .stdout()
      .split('\n')
      .filter((l) => l !== '');
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
    expect(json.stderr()).toMatch(/^gatehouse reference API listening on http:\/\/127\.0\.0\.1:\d+\n {2}database: :memory:\n/);
    const pretty = await serve(['--port', '0', '--db', ':memory:', '--api-key', 'pretty-key-0123456789', '--log-format', 'pretty']);
    expect(pretty.stdout()).toContain('gatehouse reference API listening on ');
    expect(pretty.stderr()).not.toContain('listening on');
  });

  it('prints its URL and a generated key once; a restart on the same database generates none', async () => {
    const db = join(dir(), 'server.db');
    const first = await serve(['--port', '0', '--db', db]);
    expect(first.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(first.generatedKey).toMatch(/^gh_\S{20,}$/);
    const key = first.generatedKey!;
    expect(first.stderr().split(key).length - 1).toBe(1);
    expect((await status(first, key)).status).toBe(200);
    expect((await status(first, 'some-other-key')).status).toBe(401);
    await first.stop('SIGTERM');

    const second = await serve(['--port', '0', '--db', db]);
    expect(second.generatedKey).toBeUndefined();
    expect(second.stderr()).not.toContain(key);
    expect(second.stderr()).toMatch(/API keys: 1 stored in the database/);
    expect((await status(second, key)).status).toBe(200);
  });

  it('uses .gatehouse/server.db under the working directory by default', async () => {
    const cwd = dir();
    const server = await serve(['--port', '0'], { cwd });
    expect(server.stderr()).toContain('database: .gatehouse/server.db');
    expect(existsSync(join(cwd, '.gatehouse/server.db'))).toBe(true);
  });

  it('with --db :memory: keeps nothing on disk', async () => {
    const cwd = dir();
    const server = await serve(['--port', '0', '--db', ':memory:'], { cwd });
    expect(server.generatedKey).toBeDefined();
    expect(existsSync(join(cwd, '.gatehouse'))).toBe(false);
  });
});

describe('keys given by the user', () => {
  it('--api-key (repeatable) is accepted, generates nothing and is never printed', async () => {
    const server = await serve(['--port', '0', '--db', ':memory:', '--api-key', 'alpha-key-1', '--api-key', 'beta-key-2']);
    expect(server.generatedKey).toBeUndefined();
    expect(server.stderr()).toMatch(/API keys: 2 given/);
    expect(server.stderr()).not.toContain('alpha-key-1');
    expect((await status(server, 'alpha-key-1')).status).toBe(200);
    expect((await status(server, 'beta-key-2')).status).toBe(200);
    expect((await status(server, 'gamma-key-3')).status).toBe(401);
  });

  it('GATEHOUSE_API_KEYS takes a comma-separated list', async () => {
    const server = await serve(['--port', '0', '--db', ':memory:'], {
      env: { GATEHOUSE_API_KEYS: 'env-key-one, env-key-two' },
    });
    expect(server.generatedKey).toBeUndefined();
    expect((await status(server, 'env-key-one')).status).toBe(200);
    expect((await status(server, 'env-key-two')).status).toBe(200);
    expect(server.stderr()).not.toContain('env-key-one');
  });
});

describe('environment variables', () => {
  it('GATEHOUSE_DB names the database file', async () => {
    const db = join(dir(), 'from-env.db');
    const server = await serve(['--port', '0', '--api-key', 'k-env-db'], { env: { GATEHOUSE_DB: db } });
    expect(server.stderr()).toContain(`database: ${db}`);
    expect((await status(server, 'k-env-db', '/ip_policies', 'POST')).status).toBe(201);
    expect(existsSync(db)).toBe(true);
  });

  it('GATEHOUSE_PORT names the port, and --port wins over it', async () => {
    const port = await freePort();
    const fromEnv = await serve(['--db', ':memory:', '--api-key', 'k'], { env: { GATEHOUSE_PORT: String(port) } });
    expect(fromEnv.url).toBe(`http://127.0.0.1:${port}`);
    expect((await status(fromEnv, 'k')).status).toBe(200);
    await fromEnv.stop();

    const fromFlag = await serve(['--port', '0', '--db', ':memory:', '--api-key', 'k'], {
      env: { GATEHOUSE_PORT: String(port) },
    });
    expect(fromFlag.url).not.toBe(`http://127.0.0.1:${port}`);
  });

  it('--base-url is the base of every uri', async () => {
    const server = await serve(['--port', '0', '--db', ':memory:', '--api-key', 'k', '--base-url', 'https://api.example.test']);
    const res = await status(server, 'k', '/ip_policies', 'POST');
    expect(JSON.parse(res.body!).uri).toMatch(/^https:\/\/api\.example\.test\/ip_policies\/ipp_/);
  });
});

describe('--rate-limit', () => {
  it('is off by default', async () => {
    const server = await serve(['--port', '0', '--db', ':memory:', '--api-key', 'k']);
    for (let i = 0; i < 150; i++) expect((await status(server, 'k')).status).toBe(200);
  });

  it('answers 429 rate_limited with Retry-After beyond the limit', async () => {
    const server = await serve(['--port', '0', '--db', ':memory:', '--api-key', 'k', '--rate-limit', '3/1m']);
    for (let i = 0; i < 3; i++) expect((await status(server, 'k')).status).toBe(200);
    const limited = await status(server, 'k');
    expect(limited.status).toBe(429);
    expect(JSON.parse(limited.body!)).toMatchObject({ error_code: 'rate_limited', status_code: 429 });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  // The parser's cases are unit-tested in packages/server; here, that the CLI reports them.
  it.each(['fast', '0/60s'])('rejects --rate-limit %s with exit 1 and a message', async (value) => {
    const result = await runCli(['serve', '--port', '0', '--db', ':memory:', '--rate-limit', value]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('--rate-limit');
    expect(result.stdout).not.toContain('listening on');
  });
});

describe("the service's limits", () => {
  it('--rate-limit is a rolling window: refused with the envelope and Retry-After, accepted again after it', async () => {
    const server = await serve(['--port', '0', '--db', ':memory:', '--api-key', 'k', '--rate-limit', '2/2s']);
    expect(server.stderr()).toContain('rate limit: 2/2s per key, rolling');
    for (let i = 0; i < 2; i++) expect((await status(server, 'k')).status).toBe(200);
    const limited = await status(server, 'k', '/ip_policies', 'POST');
    expect(limited.status).toBe(429);
    const body = JSON.parse(limited.body!);
    expect(body).toMatchObject({
      error_code: 'rate_limited',
      status_code: 429,
      details: { service_error_code: 'ERR_NGROK_226', operation_id: expect.stringMatching(/^op_/) },
    });
    expect(body.msg).toMatch(/^Your account is rate limited to 2 API requests per 2 s; retry after [12] s\.$/);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect([1, 2]).toContain(retryAfter);
    // The refused create changed nothing; after Retry-After a request is accepted.
    await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000 + 100));
    const list = await status(server, 'k');
    expect(list.status).toBe(200);
    expect(JSON.parse(list.body!).ip_policies).toEqual([]);
  });

  it('--max-concurrent refuses a request over the cap with 429 too_many_concurrent_requests; --latency delays every answer', async () => {
    const server = await serve(['--port', '0', '--db', ':memory:', '--api-key', 'k', '--max-concurrent', '2', '--latency', '400ms']);
    expect(server.stderr()).toContain('concurrent requests: at most 2 per key');
    expect(server.stderr()).toContain('latency: 400 ms before every answer');
    const started = performance.now();
    const answers = await Promise.all([0, 1, 2].map(() => status(server, 'k')));
    expect(performance.now() - started).toBeGreaterThanOrEqual(390);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 429]);
    const refused = JSON.parse(answers.find((a) => a.status === 429)!.body!);
    expect(refused).toMatchObject({
      error_code: 'too_many_concurrent_requests',
      status_code: 429,
      msg: 'Your account is limited to 2 simultaneous API requests; wait for one to finish.',
      details: { service_error_code: 'ERR_NGROK_225', operation_id: expect.stringMatching(/^op_/) },
    });
    expect((await status(server, 'k')).status).toBe(200);
  });

  it.each([
    [['--max-concurrent', '0'], '--max-concurrent'],
    [['--latency', 'slow'], '--latency'],
  ])('rejects %j with exit 1 before listening', async (flags, flag) => {
    const result = await runCli(['serve', '--port', '0', '--db', ':memory:', ...flags]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(flag);
    expect(result.stdout).not.toContain('listening on');
  });
});

describe('empty values', () => {
  // Each was read as left out: every interface, a key nobody has, no limit, a throw-away database.
  it.each([
    [['--host', ''], '--host is empty'],
    [['--api-key', ' '], '--api-key is empty'],
    [['--rate-limit', ''], '--rate-limit is empty'],
    [['--event-sink', ''], '--event-sink is empty'],
  ])('serve %j exits 1 before listening', async (flags, message) => {
    const result = await runCli(['serve', '--port', '0', '--db', ':memory:', ...flags]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(message);
    expect(result.stdout).not.toContain('listening on');
  });

  it('serve --db "" exits 1: SQLite would open a temporary database and lose every write', async () => {
    const result = await runCli(['serve', '--port', '0', '--db', '']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('--db is empty');
  });
});

describe('--inject-faults (tests only, hidden)', () => {
  it('is not shown in help', async () => {
    const result = await runCli(['serve', '--help']);
    expect(result.stdout).toContain('--rate-limit');
    expect(result.stdout).not.toContain('inject-faults');
  });

  it('fails requests as configured and says so at start-up', async () => {
    const server = await serve(['--port', '0', '--db', ':memory:', '--api-key', 'k', '--inject-faults', '1', '--fault-seed', '5', '--fault-modes', 'before']);
    expect(server.stderr()).toMatch(/FAULT INJECTION ON \(tests only\)/);
    const res = await status(server, 'k');
    expect(res.status).toBe(503);
    expect(JSON.parse(res.body!).error_code).toBe('service_unavailable');
  });

  it('after-503 commits the change while the answer says 503', async () => {
    const db = join(dir(), 'faults.db');
    const faulty = await serve(['--port', '0', '--db', db, '--api-key', 'k', '--inject-faults', '1', '--fault-modes', 'after-503']);
    expect((await status(faulty, 'k', '/ip_policies', 'POST')).status).toBe(503);
    await faulty.stop();
    const healthy = await serve(['--port', '0', '--db', db, '--api-key', 'k']);
    const list = JSON.parse((await status(healthy, 'k')).body!);
    expect(list.ip_policies).toHaveLength(1);
  });

  it.each([[['--inject-faults', '2']], [['--inject-faults', '0.5', '--fault-modes', 'never']]])('rejects %j with exit 1', async (flags) => {
    const result = await runCli(['serve', '--port', '0', '--db', ':memory:', ...flags]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('--inject-faults');
  });
});
