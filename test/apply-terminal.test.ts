/**
 * `gatehouse apply` on a terminal (a pseudo-terminal made by util-linux `script`): it shows the
 * plan and asks; only "yes" applies, any other answer cancels with exit 1 and writes nothing.
 * Skipped where `script` is not installed.
 */
import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type GatehouseClient, collect } from '@gatehouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, type tempDir, type ServeProcess } from './helpers/cli.js';
import { serveWithClient } from './helpers/served.js';

const KEY = 'apply-terminal-key-0123456789abcdef';
const hasScript = spawnSync('script', ['--version']).status === 0;
let server: ServeProcess;
let dir: ReturnType<typeof tempDir>;
let client: GatehouseClient;
let close: (() => Promise<void>) | undefined;

beforeAll(async () => {
  if (!hasScript) return;
  ({ dir, server, client, close } = await serveWithClient(KEY));
  writeFileSync(join(dir.path, 'main.yaml'), 'kind: IPPolicy\nname: tty\nspec: {description: on a terminal}\n');
});
afterAll(async () => {
  await close?.();
});

/** Runs apply under a pseudo-terminal and answers `answer` once the question is asked. */
function applyOnTerminal(answer: string): Promise<{ code: number | null; output: string }> {
  const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} apply main.yaml`;
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    cwd: dir.path,
    env: { ...process.env, GATEHOUSE_API_URL: server.url, GATEHOUSE_API_KEY: KEY, NO_COLOR: '1' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  let answered = false;
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    if (!answered && output.includes('Only "yes" is accepted')) {
      answered = true;
      child.stdin.write(`${answer}\n`);
    }
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, output })));
}

describe.skipIf(!hasScript)('gatehouse apply on a terminal', { timeout: 120_000 }, () => {
  it('cancels on any answer but "yes", writing nothing', async () => {
    const result = await applyOnTerminal('y');
    expect(result.output).toContain('Plan: 1 to create');
    expect(result.output).toContain('apply cancelled; nothing was written');
    expect(result.code).toBe(1);
    expect(await collect(client.ipPolicies.list())).toEqual([]);
  });

  it('applies after "yes", with a counter and one line per step', async () => {
    const result = await applyOnTerminal('yes');
    expect(result.code).toBe(0);
    expect(result.output).toMatch(/\[0\/1\] 1 running/);
    expect(result.output).toMatch(/done\s+create\s+IPPolicy\/tty\s+ipp_\S+\s+\d+ ms/);
    expect(result.output).toContain('Apply complete: 1 done');
    expect(await collect(client.ipPolicies.list())).toHaveLength(1);
  });
});
