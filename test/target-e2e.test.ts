/**
 * Explicit targets (issue 8, part 1), through the built CLI: a set but empty
 * GATEHOUSE_API_URL / GATEHOUSE_API_KEY (or GATEHOUSE_STACK, as every flag's variable) is an
 * error naming the variable that sends nothing and creates no database; with CI set and no URL every connected command refuses unless
 * --embedded (or GATEHOUSE_API_URL=embedded) is given; every output made against the embedded
 * server says so in its first line (text, JSON, Markdown).
 */
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_SECRETS } from './plan-fixtures.js';
import { REPO_ROOT, runCli, tempDir } from './helpers/cli.js';

const EXAMPLES = join(REPO_ROOT, 'examples/basic');
let cwd: ReturnType<typeof tempDir>;
/** A stand-in API that only counts what reaches it. */
let counter: Server;
let counterUrl = '';
let requests = 0;

beforeAll(async () => {
  cwd = tempDir('gatehouse-target-');
  counter = createServer((req, res) => {
    requests += 1;
    res.writeHead(500).end();
  });
  await new Promise<void>((resolve) => counter.listen(0, '127.0.0.1', resolve));
  counterUrl = `http://127.0.0.1:${(counter.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => counter?.close(resolve));
  cwd?.cleanup();
});

const run = (args: string[], env: Record<string, string>) => runCli(args, { env: { ...EXAMPLE_SECRETS, ...env }, cwd: cwd.path });
const database = () => join(cwd.path, '.gatehouse', 'server.db');

describe('a set but empty variable', () => {
  it.each([
    ['plan', [EXAMPLES]],
    ['apply', [EXAMPLES, '--yes', '--prune']],
  ])('%s with GATEHOUSE_API_URL="" in CI: exit 1 naming the variable, nothing sent, no database', async (command, args) => {
    const result = await run([command, ...args], { CI: 'true', GATEHOUSE_API_URL: '', GATEHOUSE_API_KEY: 'k' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/GATEHOUSE_API_URL is set but empty/);
    expect(result.stdout).toBe('');
    expect(existsSync(join(cwd.path, '.gatehouse'))).toBe(false);
  });

  it('GATEHOUSE_API_KEY="" with a URL: exit 1 naming the variable, and the API receives nothing', async () => {
    const result = await run(['plan', EXAMPLES], { GATEHOUSE_API_URL: counterUrl, GATEHOUSE_API_KEY: '' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/GATEHOUSE_API_KEY is set but empty/);
    expect(requests).toBe(0);
  });

  it('GATEHOUSE_STACK="" with apply --prune: exit 1 naming the variable, never the "default" stack, and the API receives nothing', async () => {
    const before = requests;
    const result = await run(['apply', EXAMPLES, '--yes', '--prune'], { GATEHOUSE_API_URL: counterUrl, GATEHOUSE_API_KEY: 'k', GATEHOUSE_STACK: '' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/GATEHOUSE_STACK is set but empty; name the stack/);
    expect(result.stdout).toBe('');
    expect(requests - before).toBe(0);
  });
});

describe('CI set and no API URL', () => {
  it('drift refuses unless --embedded is given, and creates no database', async () => {
    const result = await run(['drift', EXAMPLES], { CI: 'true' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/no API URL in CI[\s\S]*--embedded/);
    expect(existsSync(database())).toBe(false);
  });

  it('--embedded plans against the embedded server and says so on the first line of text, JSON and Markdown', { timeout: 120_000 }, async () => {
    const text = await run(['plan', EXAMPLES, '--embedded'], { CI: 'true' });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout.split('\n')[0]).toMatch(/embedded reference server/);
    const json = await run(['plan', EXAMPLES, '--format', 'json'], { CI: 'true', GATEHOUSE_API_URL: 'embedded' });
    expect(json.code, json.stderr).toBe(0);
    expect(json.stdout.split('\n')[0]).toMatch(/^\{ "notice": "embedded reference server/);
    expect(JSON.parse(json.stdout)).toMatchObject({ target: { embedded: true } });
    const markdown = await run(['drift', EXAMPLES, '--format', 'markdown', '--embedded'], { CI: 'true' });
    expect(markdown.code, markdown.stderr).toBe(2);
    expect(markdown.stdout.split('\n')[0]).toMatch(/embedded reference server/);
    expect(existsSync(database())).toBe(true);
  });
});
