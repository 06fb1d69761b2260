/**
 * `--format json` always prints one JSON document on stdout, an error document on failure
 * (`{"error": {"code", "message"}}`, exit 1), for apply, plan and drift: whether the manifests
 * are broken, the API refuses or fails while live state is read, or a flag is wrong.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir, type CliResult } from './helpers/cli.js';

let api: Server;
let url: string;
const dir = tempDir('gatehouse-json-errors-');

beforeAll(async () => {
  // An API that refuses every key: reading live state fails at the first request.
  api = createServer((_, res) => {
    res.writeHead(401, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error_code: 'unauthorized', status_code: 401, msg: 'The API key is not valid.', details: {} }));
  });
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
  writeFileSync(join(dir.path, 'good.yaml'), 'kind: BotUser\nname: ci\nspec: {}\n');
  writeFileSync(join(dir.path, 'bad.yml'), 'kind: BotUser\nname: ci2\nspec: {colour: red}\n');
});
afterAll(async () => {
  await new Promise((resolve) => api.close(resolve));
  dir.cleanup();
});

function errorOf(result: CliResult): { code: string; message: string; [key: string]: unknown } {
  expect(result.code, result.stderr).toBe(1);
  const document = JSON.parse(result.stdout) as { error: { code: string; message: string } };
  expect(Object.keys(document)).toEqual(['error']);
  expect(typeof document.error.message).toBe('string');
  return document.error;
}

describe('--format json on failure', () => {
  it('prints the error document for manifest problems, API failures and bad flags', { timeout: 90_000 }, async () => {
    const remote = { env: { GATEHOUSE_API_URL: url, GATEHOUSE_API_KEY: 'wrong-key' } };
    const good = join(dir.path, 'good.yaml');
    const [planProblems, applyApi, driftApi, planApi, applyFlag, driftFlag] = await Promise.all([
      runCli(['plan', dir.path, '--format', 'json'], remote),
      runCli(['apply', good, '--format', 'json', '--yes'], remote),
      runCli(['drift', good, '--format=json'], remote),
      runCli(['plan', good, '--format', 'json'], remote),
      runCli(['apply', good, '--format', 'json', '--parallelism', 'many'], remote),
      runCli(['drift', good, '--format', 'json', '--max-file-size', 'huge'], remote),
    ]);
    const problems = errorOf(planProblems);
    expect(problems.code).toBe('manifest_problems');
    expect(problems.problems).toEqual([expect.objectContaining({ code: 'unknown_field', at: expect.objectContaining({ line: 3 }) })]);
    for (const result of [applyApi, driftApi, planApi]) {
      const error = errorOf(result);
      expect(error).toMatchObject({ code: 'api_failure', status: 401, api_code: 'unauthorized' });
      expect(result.stderr).toContain('The API key is not valid');
    }
    expect(errorOf(applyFlag).code).toBe('usage');
    expect(errorOf(driftFlag)).toMatchObject({ code: 'usage', message: expect.stringContaining('--max-file-size') });
  });
});
