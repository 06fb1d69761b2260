/**
 * The bot user registry (registry.ts), in-process against the in-memory API: identity through
 * renames, the plan's registry change and what apply writes, the edge cases of a registry edited
 * or left behind by hand, other stacks' records, and the 4,096-byte limit.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { manifestDirs } from '../testing/manifest-dirs.js';
import { METADATA_MAX_BYTES } from '@gatehouse/schemas/runtime';
import { applyPlan } from '../apply/apply.js';
import { MemoryLiveApi } from '../apply/memory-api.js';
import { computePlan } from '../engine.js';
import { exportLive } from '../export/export.js';
import { detectDrift } from '../drift/detect.js';
import { isLockObject } from '../lock/record.js';
import type { ApiObject } from '../ports.js';
import { countChanges } from '../render/values.js';
import { renderText } from '../render/text.js';
import { renderMarkdown } from '../render/markdown.js';
import { toJsonPlan } from '../render/json.js';
import { ManifestProblems } from '../problems.js';
import { formatRecords, isRegistryObject, readRegistry, recordDescription, REGISTRY_PREFIX } from './records.js';

const { manifests, rewrite, cleanup } = manifestDirs('gatehouse-bots-');
afterEach(cleanup);
const bot = (name: string, apiName?: string, active = true) =>
  `kind: BotUser\nname: ${name}\nspec: {active: ${active}${apiName ? `, name: "${apiName}"` : ''}}\n`;

const plan = (api: MemoryLiveApi, dir: string, stack = 'default') => computePlan({ paths: [dir], env: {}, api, stack });
const apply = async (api: MemoryLiveApi, dir: string, stack = 'default', prune = false) => {
  const result = await applyPlan({ api, stack, paths: [dir], env: {}, prune, force: true });
  expect(result.ok, JSON.stringify(result.steps.filter((s) => s.status !== 'done'))).toBe(true);
  return result;
};
const records = (api: MemoryLiveApi) => api.objects('/ip_policies').filter((p) => isRegistryObject('IPPolicy', p));
const entries = (api: MemoryLiveApi, stack = 'default') => Object.fromEntries([...readRegistry(stack, records(api)).entries].map(([name, e]) => [name, e.id]));
const summary = (changes: { address: string; action: string }[]) => changes.map((c) => `${c.action} ${c.address}`);

/** A bot user `ci` in main.yaml and an IP policy in policy.yaml of one directory, applied. */
async function botAndPolicyApplied(): Promise<{ api: MemoryLiveApi; dir: string }> {
  const api = new MemoryLiveApi();
  const dir = manifests(bot('ci', 'CI bot'));
  writeFileSync(join(dir, 'policy.yaml'), 'kind: IPPolicy\nname: office\nspec: {description: Office}\n');
  await apply(api, dir);
  return { api, dir };
}

describe('prune scope', () => {
  it('planning one file keeps the entries of bot users other files declare; a plan of every file drops them', async () => {
    const { api, dir } = await botAndPolicyApplied();
    const id = String(api.objects('/bot_users')[0]!.id);
    expect(readRegistry('default', records(api)).entries.get('ci')).toMatchObject({ id, path: expect.stringMatching(/main\.yaml$/) });

    const one = await computePlan({ paths: [join(dir, 'policy.yaml')], env: {}, api, stack: 'default' });
    expect(one.changes).toEqual([]);
    api.log.length = 0;
    await applyPlan({ api, stack: 'default', paths: [join(dir, 'policy.yaml')], env: {} });
    expect(entries(api)).toEqual({ ci: id });

    rewrite(dir, '');
    const all = await plan(api, dir);
    expect(all.changes.map((c) => c.reason)).toEqual([expect.stringContaining('drops "ci"')]);
  });
});

describe('identity through renames', () => {
  it('renaming spec.name twice updates the same bot user in place; the replan is empty', async () => {
    const api = new MemoryLiveApi();
    const dir = manifests(bot('ci', 'CI bot'));
    const first = await apply(api, dir);
    expect(first.steps.map((s) => `${s.action} ${s.address}`).sort()).toEqual(['create BotUser/ci', 'create BotUserRegistry/default']);
    const id = String(api.objects('/bot_users')[0]!.id);
    expect(entries(api)).toEqual({ ci: id });

    for (const name of ['CI bot (renamed)', 'ci-bot-3']) {
      rewrite(dir, bot('ci', name));
      const renamed = await plan(api, dir);
      expect(summary(renamed.changes)).toEqual(['update BotUser/ci', 'update BotUserRegistry/default']);
      expect(renamed.changes[0]!.fields).toEqual([expect.objectContaining({ path: 'name', after: name })]);
      // The registry write waits for the bot user's, and says why it is made.
      expect(renamed.changes[1]).toMatchObject({
        cause: 'registry',
        dependsOn: ['BotUser/ci'],
        reason: expect.stringContaining('records which bot users stack "default" manages'),
      });
      api.log.length = 0;
      await apply(api, dir);
      expect(api.log.map((r) => `${r.method} ${r.path.replace(/_\d+$/, '_N')}`)).toEqual(['PATCH /bot_users/bot_N', 'PATCH /ip_policies/ipp_N']);
      expect(api.objects('/bot_users')).toEqual([expect.objectContaining({ id, name })]);
      expect((await plan(api, dir)).changes).toEqual([]);
    }
  });

  it("a bot user declared under a new manifest name takes nothing from the registry; an entry wins over another manifest's API name", async () => {
    const api = new MemoryLiveApi();
    const dir = manifests(bot('ci', 'shared-name'));
    await apply(api, dir);
    const id = String(api.objects('/bot_users')[0]!.id);
    // ci is renamed away from "shared-name" while a new manifest declares that name: ci keeps its bot user.
    rewrite(dir, `${bot('ci', 'ci-now')}---\n${bot('newcomer', 'shared-name')}`);
    const next = await plan(api, dir);
    expect(next.changes.find((c) => c.address === 'BotUser/ci')).toMatchObject({ action: 'update', id });
    // Names are unique: the create of "shared-name" waits for ci's rename away from it.
    expect(next.changes.find((c) => c.address === 'BotUser/newcomer')).toMatchObject({ action: 'create', dependsOn: ['BotUser/ci'] });
    api.log.length = 0;
    await apply(api, dir);
    expect(api.log.filter((r) => r.path.startsWith('/bot_users')).map((r) => `${r.method} ${String(r.body?.name)}`)).toEqual([
      'PATCH ci-now',
      'POST shared-name',
    ]);
    expect((await plan(api, dir)).changes).toEqual([]);
  });

  it('two manifests giving one bot user name is a validate problem (the service keeps names unique)', async () => {
    const api = new MemoryLiveApi();
    const dir = manifests(`${bot('a')}---\n${bot('b', 'a')}`);
    const error = await plan(api, dir).catch((e: unknown) => e);
    expect((error as ManifestProblems).problems.map((p) => [p.code, p.at?.line, p.message])).toEqual([
      ['duplicate_name', 7, expect.stringContaining('bot user name "a" is already claimed by BotUser/a')],
    ]);
    expect(api.log).toEqual([]);
  });

  it('two bot users exchanging their names is a problem at each spec.name, before any write', async () => {
    const api = new MemoryLiveApi();
    const dir = manifests(`${bot('a', 'first')}---\n${bot('b', 'second')}`);
    await apply(api, dir);
    rewrite(dir, `${bot('a', 'second')}---\n${bot('b', 'first')}`);
    const error = await plan(api, dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ManifestProblems);
    const problems = (error as ManifestProblems).problems;
    expect(problems.map((p) => [p.code, p.at?.line])).toEqual([
      ['bot_user_name_cycle', 3],
      ['bot_user_name_cycle', 7],
    ]);
    expect(problems[0]!.message).toContain('rename a to a temporary name first, apply, then give it its new name');
    // Through a temporary name, in two applies, it works.
    rewrite(dir, `${bot('a', 'temporary')}---\n${bot('b', 'first')}`);
    await apply(api, dir);
    rewrite(dir, `${bot('a', 'second')}---\n${bot('b', 'first')}`);
    await apply(api, dir);
    expect(api.objects('/bot_users').map((o) => o.name)).toEqual(['second', 'first']);
  });

  it('an existing stack without a registry gets one on its next apply, shown in the plan', async () => {
    const api = new MemoryLiveApi();
    await api.create('/bot_users', { name: 'ci', active: true });
    api.log.length = 0;
    const dir = manifests(bot('ci'));
    const first = await plan(api, dir);
    expect(summary(first.changes)).toEqual(['create BotUserRegistry/default']);
    expect(countChanges(first.summary)).toBe(1);
    expect(first.changes[0]!.reason).toContain('a new registry');
    await apply(api, dir);
    expect(api.log.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /ip_policies']);
    expect(records(api)[0]!.description).toBe('gatehouse: bot users of stack "default" (no rules: restricts no traffic)');
    expect((await plan(api, dir)).changes).toEqual([]);
  });
});

describe('edge cases', () => {
  it('an entry whose bot user was deleted outside gatehouse: created again, the registry updated', async () => {
    const api = new MemoryLiveApi();
    const dir = manifests(bot('ci', 'CI bot'));
    await apply(api, dir);
    const old = String(api.objects('/bot_users')[0]!.id);
    api.objects('/bot_users').splice(0, 1);
    const next = await plan(api, dir);
    expect(summary(next.changes)).toEqual(['create BotUser/ci', 'update BotUserRegistry/default']);
    expect(next.changes[1]!.fields).toEqual([expect.objectContaining({ path: 'bots.ci', before: old, after: '(id known after its create)' })]);
    await apply(api, dir);
    expect(entries(api)).toEqual({ ci: api.objects('/bot_users')[0]!.id });
    expect((await plan(api, dir)).changes).toEqual([]);
  });

  it('two manifest names recorded for one bot user: the first declared gets it, the other goes by its API name', async () => {
    const api = new MemoryLiveApi();
    const dir = manifests(`${bot('a', 'A')}---\n${bot('b', 'B')}`);
    await apply(api, dir);
    const [a, b] = api.objects('/bot_users').map((o) => String(o.id));
    const record = records(api)[0]!;
    record.metadata = String(record.metadata).replace(`"id":"${b}"`, `"id":"${a}"`);
    const next = await plan(api, dir);
    // b is still found by its API name; only the registry is corrected.
    expect(summary(next.changes)).toEqual(['update BotUserRegistry/default']);
    expect(next.changes[0]!.fields).toEqual([expect.objectContaining({ path: 'bots.b', before: a, after: b })]);
    await apply(api, dir);
    expect(entries(api)).toEqual({ a, b });
  });

  it('a registry edited into invalid JSON never stops a run: the plan says it is rewritten, apply fixes it', async () => {
    const api = new MemoryLiveApi();
    const dir = manifests(bot('ci'));
    await apply(api, dir);
    const record = records(api)[0]!;
    record.metadata = `${REGISTRY_PREFIX}{"stack":"default","bots":{"ci":`;
    const next = await plan(api, dir);
    expect(summary(next.changes)).toEqual(['update BotUserRegistry/default']);
    expect(next.changes[0]!.reason).toContain(`rewrites ${String(record.id)} (its metadata is not valid JSON)`);
    await apply(api, dir);
    expect(records(api)).toHaveLength(1);
    expect(entries(api)).toEqual({ ci: api.objects('/bot_users')[0]!.id });
    // A broken record that names no stack is nobody's: left alone, never a crash.
    const stray = await api.create('/ip_policies', { metadata: `${REGISTRY_PREFIX}not json` });
    expect((await plan(api, dir)).changes).toEqual([]);
    expect(api.objects('/ip_policies')).toContainEqual(expect.objectContaining({ id: stray.id }));
  });

  it("a bot user adopted by two stacks: both registries record it, each plan says so, neither touches the other's record", async () => {
    const api = new MemoryLiveApi();
    await apply(api, manifests(bot('ci', 'CI bot')), 'team-a');
    const id = String(api.objects('/bot_users')[0]!.id);
    const teamA = String(records(api)[0]!.metadata);
    const dir = manifests(`kind: BotUser\nname: deploy\nadopt: ${id}\nspec: {name: CI bot}\n`);
    const next = await plan(api, dir, 'team-b');
    expect(summary(next.changes)).toEqual(['create BotUserRegistry/team-b']);
    expect(next.changes[0]!.reason).toContain('"deploy" is also recorded by stack "team-a"');
    await apply(api, dir, 'team-b');
    expect(entries(api, 'team-a')).toEqual({ ci: id });
    expect(entries(api, 'team-b')).toEqual({ deploy: id });
    expect(records(api).map((r) => r.metadata)).toContain(teamA);
  });

  it("registry records are no user objects: never in unmanaged, never exported, never pruned; never taken for the lock's", async () => {
    const api = new MemoryLiveApi();
    const dir = manifests(`${bot('ci')}---\nkind: IPPolicy\nname: office\nspec: {description: office}\n`);
    await apply(api, dir);
    rewrite(dir, bot('ci'));
    const pruned = await apply(api, dir, 'default', true);
    expect(pruned.steps.map((s) => `${s.action} ${s.address}`)).toEqual(['delete IPPolicy/office']);
    expect(records(api)).toHaveLength(1);
    await api.create('/ip_policies', { description: 'by hand' });
    const next = await plan(api, dir);
    expect(next.unmanaged.map((u) => u.label)).toEqual(['by hand']);
    const exported = await exportLive({ api, stack: 'default', all: true });
    expect(exported.files.map((f) => f.text).join('\n')).not.toContain('gatehouse-bots');
    expect(isLockObject('IPPolicy', records(api)[0]!)).toBe(false);
    expect(isRegistryObject('IPPolicy', { metadata: 'gatehouse-lock:v1 {"stack":"default"}' })).toBe(false);
  });

  it('a stack that stops declaring bot users keeps one empty record; the bot users stay', async () => {
    const api = new MemoryLiveApi();
    const dir = manifests(`${bot('ci')}---\n${bot('deploy')}`);
    await apply(api, dir);
    rewrite(dir, 'kind: IPPolicy\nname: office\nspec: {description: office}\n');
    const next = await plan(api, dir);
    expect(next.changes.find((c) => c.cause === 'registry')).toMatchObject({
      action: 'update',
      reason: expect.stringContaining('drops "ci", "deploy" (no longer declared; the bot user is left in place, never pruned)'),
    });
    await apply(api, dir, 'default', true);
    expect(api.objects('/bot_users')).toHaveLength(2);
    expect(entries(api)).toEqual({});
    expect((await plan(api, dir)).changes).toEqual([]);
  });
});

describe('failures', () => {
  it("a lost answer to the registry's create is looked up before a retry: one record, never two", async () => {
    const api = new MemoryLiveApi();
    let lost = 0;
    api.intercept = (request) => (request.method === 'POST' && request.path === '/ip_policies' && lost++ === 0 ? 'lost' : undefined);
    const dir = manifests(bot('ci'));
    await apply(api, dir);
    expect(api.log.filter((r) => r.method === 'POST' && r.path === '/ip_policies')).toHaveLength(1);
    expect(records(api)).toHaveLength(1);
    expect((await plan(api, dir)).changes).toEqual([]);
  });

  it('a failed bot user create skips the registry write; the next apply records the bot user', async () => {
    const api = new MemoryLiveApi();
    api.intercept = (request) => {
      if (request.path === '/bot_users') throw new Error('refused');
      return undefined;
    };
    const dir = manifests(bot('ci'));
    const result = await applyPlan({ api, stack: 'default', paths: [dir], env: {} });
    expect(result.steps.map((s) => [s.address, s.status]).sort()).toEqual([
      ['BotUser/ci', 'failed'],
      ['BotUserRegistry/default', 'skipped'],
    ]);
    expect(records(api)).toEqual([]);
    api.intercept = undefined;
    await apply(api, dir);
    expect(entries(api)).toEqual({ ci: api.objects('/bot_users')[0]!.id });
  });
});

describe('limits', () => {
  it('a registry past 4,096 bytes is split over several records, each within the limit, and joined again', async () => {
    const api = new MemoryLiveApi();
    const names = Array.from({ length: 60 }, (_, i) => `bot-${String(i).padStart(2, '0')}-${'x'.repeat(60)}`);
    const dir = manifests(names.map((n) => bot(n)).join('---\n'));
    // The records are written at once: each POST is held until a second one arrives (or 200 ms).
    let writing = 0;
    let together = 0;
    let arrived: () => void = () => undefined;
    api.intercept = async (request) => {
      if (request.method !== 'POST' || request.path !== '/ip_policies') return undefined;
      together = Math.max(together, ++writing);
      arrived();
      await new Promise<void>((resolve) => {
        arrived = resolve;
        setTimeout(resolve, 200);
      });
      writing -= 1;
      return undefined;
    };
    await apply(api, dir);
    api.intercept = undefined;
    expect(records(api).length).toBeGreaterThan(1);
    expect(together).toBeGreaterThan(1);
    for (const r of records(api)) expect(Buffer.byteLength(String(r.metadata), 'utf8')).toBeLessThanOrEqual(METADATA_MAX_BYTES);
    expect(Object.keys(entries(api)).sort()).toEqual(names);
    expect((await plan(api, dir)).changes).toEqual([]);
    // Records whose ids are not in the entries' order (written at once) are left as they are.
    const [first, second] = records(api).map((r) => ({ id: String(r.id), metadata: r.metadata }));
    await api.update(`/ip_policies/${first!.id}`, { metadata: second!.metadata });
    await api.update(`/ip_policies/${second!.id}`, { metadata: first!.metadata });
    expect(records(api)[0]!.metadata).toBe(second!.metadata);
    expect(Object.keys(entries(api)).sort()).toEqual(names);
    expect((await plan(api, dir)).changes).toEqual([]);
    // Fewer bot users: surplus records go within the same change.
    const before = records(api).length;
    rewrite(
      dir,
      names
        .slice(0, 3)
        .map((n) => bot(n))
        .join('---\n'),
    );
    api.log.length = 0;
    const result = await apply(api, dir);
    expect(result.steps.map((s) => [s.address, s.requests])).toEqual([['BotUserRegistry/default', before]]);
    expect(records(api)).toHaveLength(1);
    expect(api.log.map((r) => r.method).sort()).toEqual([...Array<string>(before - 1).fill('DELETE'), 'PATCH']);
    expect((await plan(api, dir)).changes).toEqual([]);
  });

  it("a registry of many bot users names a few of them in its reason (plan text, Markdown, apply's progress); JSON has them all", async () => {
    const api = new MemoryLiveApi();
    const names = Array.from({ length: 40 }, (_, i) => `bot-${String(i).padStart(2, '0')}`);
    const dir = manifests(names.map((n) => bot(n)).join('---\n'));
    const planned = await plan(api, dir);
    const few = 'a new registry; records "bot-00", "bot-01", "bot-02", "bot-03", "bot-04" and 35 more once created';
    const change = planned.changes.find((c) => c.cause === 'registry')!;
    expect(change.reason).toBe(`records which bot users stack "default" manages: ${few}`);
    const reasonLines = (text: string) => text.split('\n').filter((line) => line.includes('records which bot users'));
    for (const rendered of [renderText(planned), renderMarkdown(planned)]) {
      expect(reasonLines(rendered)).toEqual([expect.stringContaining(few)]);
      expect(reasonLines(rendered)[0]).not.toContain('"bot-05"');
    }
    expect(Object.keys((toJsonPlan(planned).changes.find((c) => c.address === change.address)!.after as { bots: object }).bots)).toEqual(names);
    const result = await apply(api, dir);
    expect(result.steps.find((s) => s.kind === 'BotUserRegistry')!.note).toContain(few);
    // Six names are listed in full ("and 1 more" would say no less).
    rewrite(
      dir,
      names
        .slice(0, 34)
        .map((n) => bot(n))
        .join('---\n'),
    );
    expect((await plan(api, dir)).changes[0]!.reason).toContain('drops "bot-34", "bot-35", "bot-36", "bot-37", "bot-38", "bot-39" (no longer declared');
  });

  it('formatRecords packs entries greedily and always gives one record; descriptions stay within 255 bytes', () => {
    const entry = (i: number) => ({ name: `n${i}`, entry: { id: `bot_${i}`, hash: '0123456789abcdef' } });
    expect(formatRecords('s', [])).toEqual([`${REGISTRY_PREFIX}{"stack":"s","bots":{}}`]);
    const split = formatRecords('s', [entry(1), entry(2), entry(3)], 120);
    expect(split.length).toBeGreaterThan(1);
    for (const r of split) expect(Buffer.byteLength(r)).toBeLessThanOrEqual(120);
    const joined = readRegistry(
      's',
      split.map((metadata, i): ApiObject => ({ id: `ipp_${i}`, metadata })),
    );
    expect([...joined.entries.keys()]).toEqual(['n1', 'n2', 'n3']);
    const long = recordDescription('é'.repeat(300));
    expect(Buffer.byteLength(long, 'utf8')).toBeLessThanOrEqual(255);
    expect(long.startsWith('gatehouse: bot users of stack "é')).toBe(true);
  });
});

describe('--target', () => {
  it('a targeted create of a bot user records it (a targeted rename later updates it in place); other entries are left as recorded', async () => {
    const api = new MemoryLiveApi();
    const dir = manifests(bot('old', 'Old bot'));
    await apply(api, dir);
    const oldId = String(api.objects('/bot_users')[0]!.id);
    const oldEntry = readRegistry('default', records(api)).entries.get('old')!;
    // Two new bot users and a change of the recorded one; only `ci` is targeted.
    rewrite(dir, bot('old', 'Old bot', false) + '---\n' + bot('ci', 'CI bot') + '---\n' + bot('other', 'Other bot'));
    const targeted = await computePlan({ paths: [dir], env: {}, api, stack: 'default', targets: ['BotUser/ci'] });
    expect(summary(targeted.changes)).toEqual(['create BotUser/ci', 'update BotUserRegistry/default']);
    expect(targeted.changes[1]!.after).toEqual({ bots: { ci: '(id known after its create)', old: oldId } });
    const result = await applyPlan({ api, stack: 'default', paths: [dir], env: {}, targets: ['BotUser/ci'] });
    expect(result.ok).toBe(true);
    const ciId = String(api.objects('/bot_users').find((b) => b.name === 'CI bot')!.id);
    const registry = readRegistry('default', records(api));
    expect(entries(api)).toEqual({ ci: ciId, old: oldId });
    // The untargeted bot user's entry is as recorded (its update was not applied).
    expect(registry.entries.get('old')).toEqual(oldEntry);
    // plan = apply: the targeted replan is empty.
    expect((await computePlan({ paths: [dir], env: {}, api, stack: 'default', targets: ['BotUser/ci'] })).changes).toEqual([]);

    // A targeted rename of spec.name is the same bot user.
    rewrite(dir, bot('old', 'Old bot', false) + '---\n' + bot('ci', 'CI bot renamed') + '---\n' + bot('other', 'Other bot'));
    const renamed = await applyPlan({ api, stack: 'default', paths: [dir], env: {}, targets: ['BotUser/ci'] });
    expect(renamed.steps.map((s) => `${s.action} ${s.address}`)).toContain('update BotUser/ci');
    expect(
      api
        .objects('/bot_users')
        .filter((b) => String(b.name).startsWith('CI bot'))
        .map((b) => [b.id, b.name]),
    ).toEqual([[ciId, 'CI bot renamed']]);

    // A target with no bot user never writes the registry.
    writeFileSync(join(dir, 'policy.yaml'), 'kind: IPPolicy\nname: office\nspec: {description: Office}\n');
    expect(summary((await computePlan({ paths: [dir], env: {}, api, stack: 'default', targets: ['IPPolicy/office'] })).changes)).toEqual([
      'create IPPolicy/office',
    ]);
  });
});

describe('--from-stack', () => {
  it("moving bot users drops them from the old stack's registry (its export no longer lists them); plan = apply", async () => {
    const api = new MemoryLiveApi();
    const dir = manifests(bot('ci', 'CI bot') + '---\n' + bot('nightly', 'Nightly'));
    await apply(api, dir, 'default');
    const ids = Object.values(entries(api, 'default'));
    expect(ids).toHaveLength(2);
    // A bot user the old stack keeps (not declared by the new stack's manifests) stays recorded there.
    rewrite(dir, bot('ci', 'CI bot'));
    const moving = await computePlan({ paths: [dir], env: {}, api, stack: 'blue', fromStack: 'default' });
    expect(summary(moving.changes).sort()).toEqual(['create BotUserRegistry/blue', 'update BotUserRegistry/default']);
    expect(moving.changes.find((c) => c.address === 'BotUserRegistry/default')!.reason).toContain('stops recording "ci" (moved to stack "blue"');
    const result = await applyPlan({ api, stack: 'blue', paths: [dir], env: {}, fromStack: 'default' });
    expect(result.ok).toBe(true);
    const ciId = String(api.objects('/bot_users').find((b) => b.name === 'CI bot')!.id);
    expect(entries(api, 'blue')).toEqual({ ci: ciId });
    expect(Object.keys(entries(api, 'default'))).toEqual(['nightly']);
    expect((await computePlan({ paths: [dir], env: {}, api, stack: 'blue', fromStack: 'default' })).changes).toEqual([]);
    const exported = await exportLive({ api, stack: 'default' });
    expect(JSON.stringify(exported)).not.toContain('CI bot');
  });

  it("a targeted move drops only the targeted bot users from the old stack's registry", async () => {
    const api = new MemoryLiveApi();
    const dir = manifests(bot('ci', 'CI bot') + '---\n' + bot('nightly', 'Nightly'));
    await apply(api, dir, 'default');
    const targeted = { paths: [dir], env: {}, api, stack: 'blue', fromStack: 'default', targets: ['BotUser/ci'] };
    const moving = await computePlan(targeted);
    expect(summary(moving.changes).sort()).toEqual(['create BotUserRegistry/blue', 'update BotUserRegistry/default']);
    await applyPlan(targeted);
    expect(Object.keys(entries(api, 'blue'))).toEqual(['ci']);
    expect(Object.keys(entries(api, 'default'))).toEqual(['nightly']);
    expect((await computePlan(targeted)).changes).toEqual([]);
  });

  it("a move together with a rename of spec.name keeps the bot user (the old stack's registry identifies it)", async () => {
    const api = new MemoryLiveApi();
    const dir = manifests(bot('ci', 'CI bot'));
    await apply(api, dir, 'default');
    const id = String(api.objects('/bot_users')[0]!.id);
    rewrite(dir, bot('ci', 'CI bot v2'));
    const moving = await computePlan({ paths: [dir], env: {}, api, stack: 'blue', fromStack: 'default' });
    expect(summary(moving.changes).sort()).toEqual(['create BotUserRegistry/blue', 'update BotUser/ci', 'update BotUserRegistry/default']);
    await applyPlan({ api, stack: 'blue', paths: [dir], env: {}, fromStack: 'default' });
    expect(api.objects('/bot_users').map((b) => [b.id, b.name])).toEqual([[id, 'CI bot v2']]);
    expect(entries(api, 'blue')).toEqual({ ci: id });
    expect(entries(api, 'default')).toEqual({});
  });
});

describe('prune scope and unmanaged objects', () => {
  it("planning or checking drift of one file never lists the stack's own bot users, declared in another file, as unmanaged", async () => {
    const { api, dir } = await botAndPolicyApplied();
    // A bot user nobody recorded is unmanaged still.
    api.objects('/bot_users').push({ id: 'bot_stranger', name: 'stranger', active: true, created_at: '2026-01-01T00:00:00Z', uri: 'x' });
    const one = await computePlan({ paths: [join(dir, 'policy.yaml')], env: {}, api, stack: 'default' });
    expect(one.unmanaged.map((u) => u.id)).toEqual(['bot_stranger']);
    const drift = await detectDrift({ paths: [join(dir, 'policy.yaml')], env: {}, api, stack: 'default' });
    expect(drift.unmanaged.map((u) => u.id)).toEqual(['bot_stranger']);
    // With every file read and the bot user no longer declared, the registry drops it: listed.
    rewrite(dir, '');
    expect((await plan(api, dir)).unmanaged.map((u) => u.id).sort()).toHaveLength(2);
  });
});
