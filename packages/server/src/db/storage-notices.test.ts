/**
 * What the group commit tells an operator reaches the server's log (app.ts wires Store's
 * `notice` to it): here a checkpoint thread that cannot open the database, the one loss a test
 * can cause through the app itself. The other notices are tested where they are made
 * (group-commit-fsync.test.ts, group-commit.test.ts).
 */
import { mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, expect, it, vi } from 'vitest';
import { startHarness, type Harness } from '../testing/harness.js';
import { CHECKPOINT_EVERY } from './checkpointer.js';

let h: Harness | undefined;
let dir: string;
afterEach(async () => {
  await h?.close();
  rmSync(dir, { recursive: true, force: true });
});

it('logs once, as a warning, that the checkpoint thread failed, and goes on answering writes', async () => {
  dir = mkdtempSync(join(tmpdir(), 'gatehouse-notices-'));
  const logs: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      logs.push(String(chunk));
      done();
    },
  });
  h = await startHarness({ db: join(dir, 'server.db'), logger: { level: 'warn', stream } });
  const create = (i: number) => h!.call('POST', '/ip_policies', { description: `p${i}` });
  // The first write starts the fsync thread, which opens the WAL; then the database's directory
  // moves, so the checkpoint worker that the CHECKPOINT_EVERY-th group starts cannot open it.
  expect((await create(0)).status).toBe(201);
  renameSync(dir, `${dir}-moved`);
  dir = `${dir}-moved`;
  for (let i = 1; i <= CHECKPOINT_EVERY; i++) expect((await create(i)).status).toBe(201);
  const failed = () => logs.filter((line) => line.includes('checkpoint thread failed'));
  await vi.waitFor(() => expect(failed()).toHaveLength(1));
  const line = JSON.parse(failed()[0]!);
  expect(line.level).toBe(40);
  expect(line.msg).toMatch(/^the WAL's checkpoint thread failed: SQLite checkpoints inside commits from now on/);
  expect(line.err.message).toMatch(/directory does not exist/);
  expect((await create(-1)).status).toBe(201);
  expect(failed()).toHaveLength(1);
});
