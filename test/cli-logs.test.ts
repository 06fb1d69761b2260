/**
 * Request logs on both sides: `--verbose` / `GATEHOUSE_LOG=debug` prints one line per request
 * of the CLI on stderr, and `gatehouse serve` logs one JSON line per request with the same
 * operation_id (also sent as the `operation-id` header); neither shows the key. The pretty
 * format is checked in-process through the same logger `serve` builds.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { startServer } from '@gatehouse/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chooseLogFormat, serverLogger } from '../packages/cli/src/serve/logger.js';
import { runCli, startServe, tempDir, type ServeProcess, besideUsage } from './helpers/cli.js';

const KEY = 'gh_logs_test_key_0123456789';
const dir = tempDir('gatehouse-logs-');
const MANIFEST = join(dir.path, 'policy.yaml');
writeFileSync(MANIFEST, 'kind: IPPolicy\nname: office\nspec:\n  rules:\n    - action: allow\n      cidr: 10.0.0.0/8\n');
let serve: ServeProcess;

beforeAll(async () => {
  serve = await startServe(['--port', '0', '--db', ':memory:', '--api-key', KEY]);
});

afterAll(async () => {
  await serve?.stop();
  dir.cleanup();
});

const LINE =
  /^request (GET|POST|PATCH|PUT|DELETE) (\/\S*) status=(\d{3}|[a-z_]+) duration=\d+ms attempt=(\d+)(?: waited=\d+ms)?(?: operation_id=(op_\w+))?( retrying)?$/;

describe('--verbose', () => {
  it('prints one line per request on stderr whose operation_id the server logged for the same request', async () => {
    const result = await runCli(['plan', MANIFEST, '--verbose'], { env: { GATEHOUSE_API_URL: serve.url, GATEHOUSE_API_KEY: KEY } });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('+   IPPolicy office');
    const lines = besideUsage(result.stderr).trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(3);
    expect(result.stderr.trimEnd().split('\n').at(-1)).toBe(
      `${lines.length} requests (${Math.round((lines.length / 120) * 100)}% of one minute's budget of 120)`,
    );
    const serverLines = serve
      .stdout()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((r) => r.msg === 'request');
    for (const line of lines) {
      const match = LINE.exec(line);
      expect(match, line).not.toBeNull();
      const [, method, path, status, attempt, operationId] = match!;
      expect(attempt).toBe('1');
      expect(serverLines).toContainEqual(expect.objectContaining({ operation_id: operationId, method, path, status: Number(status) }));
    }
    expect(result.stderr + serve.stdout()).not.toContain(KEY);
  });

  it('GATEHOUSE_LOG=debug does the same; without either, stderr stays empty', async () => {
    const env = { GATEHOUSE_API_URL: serve.url, GATEHOUSE_API_KEY: KEY };
    const [debug, quiet] = await Promise.all([runCli(['plan', MANIFEST], { env: { ...env, GATEHOUSE_LOG: 'debug' } }), runCli(['plan', MANIFEST], { env })]);
    expect(debug.stderr.split('\n')[0]).toMatch(LINE);
    expect(besideUsage(quiet.stderr)).toBe('');
  });
});

describe('gatehouse serve logs', () => {
  it('writes one JSON line per request with operation_id, method, path, status and duration, never headers', async () => {
    const response = await fetch(`${serve.url}/bot_users`, { headers: { authorization: 'Bearer not-the-key', 'service-version': '2' } });
    const operationId = response.headers.get('operation-id');
    expect(response.status).toBe(401);
    expect(operationId).toMatch(/^op_/);
    expect(((await response.json()) as { details: { operation_id: string } }).details.operation_id).toBe(operationId);
    const line = await serve.waitForOutput(new RegExp(`^\\{.*"operation_id":"${operationId}".*$`, 'm'));
    const record = JSON.parse(line) as Record<string, unknown>;
    expect(record).toMatchObject({ level: 30, msg: 'request', method: 'GET', path: '/bot_users', status: 401 });
    expect(typeof record.duration_ms).toBe('number');
    expect(line).not.toContain('not-the-key');
    expect(line).not.toMatch(/authorization|headers/i);
  });

  it('--log-format pretty writes readable lines; the default is pretty on a terminal, JSON otherwise', async () => {
    expect(chooseLogFormat(undefined, true)).toBe('pretty');
    expect(chooseLogFormat(undefined, false)).toBe('json');
    expect(chooseLogFormat('json', true)).toBe('json');
    const out = new PassThrough();
    let text = '';
    out.on('data', (chunk: Buffer) => (text += chunk.toString()));
    const server = await startServer({
      host: '127.0.0.1',
      port: 0,
      db: ':memory:',
      apiKeys: [KEY],
      logger: (await serverLogger('info', 'pretty', false, out)).logger,
    });
    try {
      await fetch(`${server.url}/ip_policies`, { headers: { authorization: `Bearer ${KEY}`, 'service-version': '2' } });
    } finally {
      await server.close();
    }
    expect(text).toMatch(
      /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: request \{"operation_id":"op_\w+","method":"GET","path":"\/ip_policies","status":200,"duration_ms":[\d.]+\}$/m,
    );
    expect(text).not.toContain(KEY);
  });
});
