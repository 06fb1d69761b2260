/**
 * The bot user registry end to end (packages/engine/src/bot-registry/registry.ts): the built CLI
 * against `gatehouse serve`. A bot user renamed twice through `spec.name` keeps its id and the
 * replan is empty; a plain export writes only the bot users the stack's registry records, `--all`
 * every one; a rename made by hand is drift "changed outside gatehouse".
 */
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type GatehouseClient, collect } from '@gatehouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type tempDir, type ServeProcess } from './helpers/cli.js';
import { serveWithClient } from './helpers/served.js';

const KEY = 'bot-registry-e2e-key-0123456789';
let server: ServeProcess;
let dir: ReturnType<typeof tempDir>;
let client: GatehouseClient;
let close: (() => Promise<void>) | undefined;

const env = () => ({ GATEHOUSE_API_URL: server.url, GATEHOUSE_API_KEY: KEY });
const cli = (args: string[]) => runCli(args, { env: env() });

function manifests(name: string, text: string): string {
  const path = join(dir.path, name);
  mkdirSync(path, { recursive: true });
  writeFileSync(join(path, 'bots.yaml'), text);
  return path;
}
const ciBot = (apiName: string) =>
  `kind: BotUser\nname: ci\nspec: {name: "${apiName}", active: true}\n---\nkind: IPPolicy\nname: office\nspec: {description: office}\n`;

beforeAll(async () => {
  ({ dir, server, client, close } = await serveWithClient(KEY));
});
afterAll(async () => {
  await close?.();
});

// Each step runs the built CLI (node start-up each), slow on a busy machine.
describe('bot user registry', { timeout: 180_000 }, () => {
  it("renames a bot user twice through spec.name: the same id, the replan empty; plain export writes only the stack's bot users", async () => {
    const team = manifests('team', ciBot('CI bot'));
    const applied = await cli(['apply', team, '--yes']);
    expect(applied.code, applied.stderr).toBe(0);
    const [created] = await collect(client.botUsers.list());
    expect(created).toMatchObject({ name: 'CI bot' });

    // Bot users this stack did not apply: one made by hand, one of another stack.
    await client.botUsers.create({ name: 'made-by-hand', active: true });
    const other = await cli(['apply', manifests('other', 'kind: BotUser\nname: deployer\nspec: {}\n'), '--yes', '--stack', 'team-b']);
    expect(other.code, other.stderr).toBe(0);

    for (const name of ['CI bot (renamed)', 'ci-bot-3']) {
      writeFileSync(join(team, 'bots.yaml'), ciBot(name));
      const plan = await cli(['plan', team, '--format', 'json', '--detailed-exitcode']);
      expect(plan.code, plan.stderr).toBe(2);
      const changes = (JSON.parse(plan.stdout) as { changes: { address: string; action: string; id: string | null; cause?: string }[] }).changes;
      expect(changes.map((c) => [c.address, c.action])).toEqual([
        ['BotUser/ci', 'update'],
        ['BotUserRegistry/default', 'update'],
      ]);
      expect(changes[0]!.id).toBe(created!.id);
      const renamed = await cli(['apply', team, '--yes']);
      expect(renamed.code, renamed.stderr).toBe(0);
      const bots = await collect(client.botUsers.list());
      expect(bots.filter((b) => b.id === created!.id)).toEqual([expect.objectContaining({ name })]);
      expect(bots).toHaveLength(3);
      const replan = await cli(['plan', team, '--detailed-exitcode']);
      expect(replan.code, replan.stdout).toBe(0);
    }

    const plain = join(dir.path, 'export-plain');
    const exported = await cli(['export', '--out', plain]);
    expect(exported.code, exported.stderr).toBe(0);
    // The file the registry records the bot user was applied from.
    const text = readFileSync(join(plain, 'bots.yaml'), 'utf8');
    expect(text).toContain('name: ci\n');
    expect(text).toContain('name: ci-bot-3');
    expect(text).not.toContain('adopt:');
    expect(text).not.toContain('made-by-hand');
    expect(text).not.toContain('deployer');
    // The exported manifests are the stack's, in the file the registry records: planning them
    // changes nothing, not even the registry.
    const again = await cli(['plan', plain, '--format', 'json']);
    expect(again.code, again.stderr).toBe(0);
    expect((JSON.parse(again.stdout) as { changes: unknown[] }).changes).toEqual([]);

    const everything = join(dir.path, 'export-all');
    expect((await cli(['export', '--out', everything, '--all'])).code).toBe(0);
    // The stack's own in its file, the others in the file of their kind.
    const all = readFileSync(join(everything, 'bots.yaml'), 'utf8') + readFileSync(join(everything, 'bot-users.yaml'), 'utf8');
    for (const name of ['ci-bot-3', 'made-by-hand', 'deployer']) expect(all).toContain(name);

    // Renamed by hand: drift says it changed outside gatehouse.
    await client.botUsers.update(created!.id, { name: 'renamed in the console' });
    const drift = await cli(['drift', team, '--format', 'json']);
    expect(drift.code, drift.stderr).toBe(2);
    const report = JSON.parse(drift.stdout) as { objects: { address: string; drift: string }[] };
    expect(report.objects).toEqual([expect.objectContaining({ address: 'BotUser/ci', drift: 'changed_outside' })]);
  });
});
