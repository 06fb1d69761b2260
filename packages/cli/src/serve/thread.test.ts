import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ServingRefused, startServingThread, type ServingSettings } from './thread.js';

const dir = mkdtempSync(join(tmpdir(), 'serving-thread-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A stand-in for serving-thread.ts: `body` runs in the thread with `port` and `settings`. */
function entry(name: string, body: string): URL {
  const path = join(dir, `${name}.mjs`);
  writeFileSync(path, `import { parentPort as port, workerData as settings } from 'node:worker_threads';\n${body}\n`);
  return pathToFileURL(path);
}

const SETTINGS: ServingSettings = {
  host: '127.0.0.1',
  port: 0,
  db: ':memory:',
  apiKeys: ['k'],
  reservationCheck: true,
  logLevel: 'info',
  logFormat: 'json',
  colour: false,
};

describe('startServingThread', () => {
  it('hands the thread its settings, resolves with where it listens, and stops it on request', async () => {
    const url = entry(
      'listens',
      `port.postMessage({ type: 'listening', url: 'http://' + settings.host + ':1', storedKeyCount: 2, generatedKey: 'gk' });
       port.once('message', (m) => { if (m.type === 'stop') { port.postMessage({ type: 'closed' }); port.close(); } });`,
    );
    const server = await startServingThread(SETTINGS, url);
    expect(server).toMatchObject({ url: 'http://127.0.0.1:1', storedKeyCount: 2, generatedKey: 'gk' });
    await server.stop();
  });

  it('rejects with ServingRefused for a refused setting, with the message as written', async () => {
    const url = entry(
      'refuses',
      `port.postMessage({ type: 'failed', refused: true, error: { name: 'Error', message: '--rate-limit: no' } }); port.close();`,
    );
    const start = startServingThread(SETTINGS, url);
    await expect(start).rejects.toBeInstanceOf(ServingRefused);
    await expect(start).rejects.toThrow('--rate-limit: no');
  });

  it("rejects with the server's own error, its code kept, when it cannot start", async () => {
    const url = entry(
      'in-use',
      `port.postMessage({ type: 'failed', refused: false, error: { name: 'Error', message: 'listen EADDRINUSE', code: 'EADDRINUSE' } }); port.close();`,
    );
    await expect(startServingThread(SETTINGS, url)).rejects.toMatchObject({ message: 'listen EADDRINUSE', code: 'EADDRINUSE' });
  });

  it('rejects when the thread throws or ends before it says anything', async () => {
    await expect(startServingThread(SETTINGS, entry('throws', `throw new Error('broken install');`))).rejects.toThrow('broken install');
    await expect(startServingThread(SETTINGS, entry('exits', `process.exit(3);`))).rejects.toThrow(/ended \(exit code 3\) before it listened/);
  });
});
