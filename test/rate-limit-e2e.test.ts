/**
 * A paced apply against `gatehouse serve --rate-limit`: with the client's budget set to the
 * server's (a scaled window, 20 requests per 2 s, so that a run needing several windows takes
 * seconds), the apply spends more requests than one window allows and not one is answered 429.
 * The server's limit is shown to be real by a burst that ignores it.
 */
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EXAMPLE_SECRETS } from './plan-fixtures.js';
import { REPO_ROOT, runCli, startServe, tempDir, type ServeProcess } from './helpers/cli.js';

const KEY = 'rate-limit-e2e-key-0123456789abcdef';
const LIMIT = { requests: 20, windowMs: 2000 };
let dir: ReturnType<typeof tempDir>;
let serve: ServeProcess;

beforeAll(async () => {
  dir = tempDir();
  cpSync(join(REPO_ROOT, 'examples/basic'), join(dir.path, 'manifests'), { recursive: true });
  serve = await startServe(['--port', '0', '--db', ':memory:', '--api-key', KEY, '--rate-limit', `${LIMIT.requests}/${LIMIT.windowMs}ms`]);
});
afterAll(async () => {
  await serve?.stop();
  dir?.cleanup();
});

it("applies at the server's pace with no answer 429, in as many windows as its requests need", { timeout: 120_000 }, async () => {
  const env = { ...EXAMPLE_SECRETS, GATEHOUSE_API_URL: serve.url, GATEHOUSE_API_KEY: KEY };
  const began = performance.now();
  const result = await runCli(['apply', join(dir.path, 'manifests'), '--yes', '--verbose', '--rate-limit', `${LIMIT.requests}/${LIMIT.windowMs}ms`], { env });
  const elapsed = performance.now() - began;
  expect(result.code, result.stderr).toBe(0);

  const requests = result.stderr.split('\n').filter((line) => line.startsWith('request '));
  const refused = requests.filter((line) => / status=429 /.test(line));
  expect(refused).toEqual([]);
  // More than one window's worth, so the pace was needed: each full window waited for.
  expect(requests.length).toBeGreaterThan(2 * LIMIT.requests);
  const windows = Math.ceil(requests.length / LIMIT.requests) - 1;
  expect(elapsed).toBeGreaterThanOrEqual(windows * LIMIT.windowMs);

  // The server's limit is real: a burst that ignores it is refused past the budget.
  const burst = await Promise.all(
    Array.from({ length: LIMIT.requests + 5 }, () =>
      fetch(`${serve.url}/bot_users`, { headers: { authorization: `Bearer ${KEY}`, 'service-version': '2' } }).then((r) => r.status),
    ),
  );
  expect(burst.filter((status) => status === 429).length).toBeGreaterThan(0);
});
