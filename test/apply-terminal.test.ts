/**
 * `gatehouse apply` on a terminal (a pseudo-terminal made by util-linux `script`): it shows the
 * plan and asks; only "yes" applies, any other answer cancels with exit 1 and writes nothing.
 * While it runs, a progress bar is drawn on the terminal and erased: nothing of it stays on the
 * screen. The server answers 150 ms late, so that the apply lasts long enough for the bar.
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
  ({ dir, server, client, close } = await serveWithClient(KEY, ['--latency', '150ms']));
  writeFileSync(
    join(dir.path, 'main.yaml'),
    ['tty', 'tty-2', 'tty-3', 'tty-4', 'tty-5'].map((name) => `---\nkind: IPPolicy\nname: ${name}\nspec: {description: on a terminal}\n`).join(''),
  );
});
afterAll(async () => {
  await close?.();
});

/** Runs apply under a pseudo-terminal and answers `answer` once the question is asked. */
function applyOnTerminal(answer: string): Promise<{ code: number | null; output: string }> {
  // One change at a time: five round trips, longer than progress waits before it draws.
  const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} apply main.yaml --parallelism 1`;
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
    expect(result.output).toContain('Plan: 5 to create');
    expect(result.output).toContain('apply cancelled; nothing was written');
    expect(result.code).toBe(1);
    expect(await collect(client.ipPolicies.list())).toEqual([]);
  });

  it('applies after "yes", with a bar that is erased, one line per step and the requests it cost', async () => {
    const result = await applyOnTerminal('yes');
    expect(result.code).toBe(0);
    expect(result.output).toMatch(/\[[█░]{16}\] \d\/5 changes, \d running, \d+ requests/);
    expect(result.output).toMatch(/done\s+create\s+IPPolicy\/tty\s+ipp_\S+\s+\d+ ms/);
    // What stays on the screen: no bar, no half line; the summary and the requests last.
    const screen = screenLines(result.output);
    expect(screen.filter((line) => /[█░]/.test(line))).toEqual([]);
    // No glyph of the progress (a spinner, an ellipsis, a bar) is left on any row.
    expect(screen.filter((line) => /[^\x20-\x7e]/.test(line))).toEqual([]);
    expect(screen.filter((line) => line.startsWith('done '))).toHaveLength(5);
    expect(screen.slice(-2)).toEqual([
      'Apply complete: 5 done in ' + /(\d+\.\d) s\./.exec(result.output)![1] + ' s.',
      expect.stringMatching(/^\d+ requests \(\d+% of one minute's budget of 120\)$/),
    ]);
    expect(await collect(client.ipPolicies.list())).toHaveLength(5);
  });
});

/**
 * The lines a terminal shows after `output`: each row as the last redraw left it (a row is
 * rewritten from its start after `\r`, and `\x1b[2K` clears it), empty rows left out.
 */
function screenLines(output: string): string[] {
  return (
    output
      .split('\n')
      .map((row) => row.replace(/\r$/, ''))
      .map((row) =>
        row.split('\r').reduce((shown, part) => {
          const cleared = part.startsWith('\x1b[2K') ? part.slice(4) : part;
          return part.startsWith('\x1b[2K') || cleared.length >= shown.length ? cleared : cleared + shown.slice(cleared.length);
        }, ''),
      )
      // The prompt's own cursor movements (readline) are not progress.
      .map((row) => row.replace(/\x1b\[\d*[GJ]/g, ''))
      .filter((row) => row.trim() !== '')
  );
}
