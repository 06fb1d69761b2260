import { beforeAll, describe, expect, it } from 'vitest';
import { walk, WalkError, type Step, type StepOutcome } from './walk.js';

/** A step whose completion the test controls, recording when it started. */
function controlled(key: string, dependsOn: string[] = [], log: string[] = []) {
  let finish!: (ok: boolean) => void;
  const finished = new Promise<boolean>((resolve) => (finish = resolve));
  const step: Step<string> = {
    key,
    dependsOn,
    async run() {
      log.push(`start ${key}`);
      if (!(await finished)) throw new Error(`${key} failed`);
      return key;
    },
  };
  return { step, finish };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('walk', () => {
  // walk imports p-queue on its first call (not at the engine's import): loaded here first, so
  // that the cases below count ticks of the walk itself, not of reading p-queue from disk.
  beforeAll(() => import('p-queue'));

  it('of the steps ready, starts those that others wait for first (independent ones queued before them wait)', async () => {
    const log: string[] = [];
    const steps = [
      ...['i1', 'i2', 'i3'].map((k) => ({ key: k, dependsOn: [] })),
      { key: 'parent', dependsOn: [] },
      { key: 'child', dependsOn: ['parent'] },
      { key: 'grandchild', dependsOn: ['child'] },
    ];
    await walk(
      steps.map((s) => ({ ...s, run: async () => void log.push(s.key) })),
      { parallelism: 1 },
    );
    // grandchild waits for nothing beyond child: it is queued behind the independent ones.
    expect(log).toEqual(['parent', 'child', 'i1', 'i2', 'i3', 'grandchild']);
  });

  it('starts a step as soon as its own dependencies finish, not when a whole level does', async () => {
    const log: string[] = [];
    const a = controlled('a', [], log);
    const slow = controlled('slow', [], log);
    const b = controlled('b', ['a'], log);
    const done = walk([a.step, slow.step, b.step], { parallelism: 10 });
    await tick();
    expect(log).toEqual(['start a', 'start slow']);
    a.finish(true);
    await tick();
    await tick();
    // b runs while `slow`, which is on the same level as a, is still running.
    expect(log).toEqual(['start a', 'start slow', 'start b']);
    b.finish(true);
    slow.finish(true);
    const outcomes = await done;
    expect(outcomes.map((o) => `${o.key}:${o.status}`).sort()).toEqual(['a:done', 'b:done', 'slow:done']);
  });

  it('never runs more than `parallelism` steps at once', async () => {
    let running = 0;
    let peak = 0;
    const steps: Step<number>[] = Array.from({ length: 20 }, (_, i) => ({
      key: `s${i}`,
      dependsOn: [],
      async run() {
        running++;
        peak = Math.max(peak, running);
        await tick();
        running--;
        return i;
      },
    }));
    await walk(steps, { parallelism: 3 });
    expect(peak).toBe(3);
  });

  it('skips the dependents of a failed step, transitively, and goes on with the rest', async () => {
    const seen: StepOutcome<string>[] = [];
    const steps: Step<string>[] = [
      { key: 'policy', dependsOn: [], run: async () => Promise.reject(new Error('boom')) },
      { key: 'rule', dependsOn: ['policy'], run: async () => 'rule' },
      { key: 'restriction', dependsOn: ['rule'], run: async () => 'restriction' },
      { key: 'bot', dependsOn: [], run: async () => 'bot' },
    ];
    const outcomes = await walk(steps, { parallelism: 2, onOutcome: (o) => seen.push(o) });
    const byKey = Object.fromEntries(outcomes.map((o) => [o.key, o]));
    expect(byKey.policy).toMatchObject({ status: 'failed' });
    expect(byKey.rule).toEqual({ key: 'rule', status: 'skipped', because: 'policy' });
    expect(byKey.restriction).toEqual({ key: 'restriction', status: 'skipped', because: 'policy' });
    expect(byKey.bot).toMatchObject({ status: 'done', value: 'bot' });
    expect(seen).toHaveLength(4);
  });

  it('waits for every dependency of a step with several', async () => {
    const order: string[] = [];
    const step = (key: string, dependsOn: string[]): Step<void> => ({
      key,
      dependsOn,
      run: async () => {
        await tick();
        order.push(key);
      },
    });
    await walk([step('join', ['x', 'y']), step('x', []), step('y', ['x'])], { parallelism: 4 });
    expect(order).toEqual(['x', 'y', 'join']);
  });

  it('refuses a cycle or an unknown dependency before running anything', async () => {
    let ran = false;
    const run = async () => {
      ran = true;
    };
    await expect(
      walk(
        [
          { key: 'a', dependsOn: ['b'], run },
          { key: 'b', dependsOn: ['a'], run },
          { key: 'c', dependsOn: [], run },
        ],
        {
          parallelism: 1,
        },
      ),
    ).rejects.toThrow(WalkError);
    await expect(walk([{ key: 'a', dependsOn: ['nope'], run }], { parallelism: 1 })).rejects.toThrow(/unknown step nope/);
    expect(ran).toBe(false);
  });

  it('after an abort starts nothing new; what is still in flight when the grace ends is cancelled', async () => {
    const log: string[] = [];
    const finishes = controlled('finishes', [], log);
    const hangs = controlled('hangs', [], log);
    const queued = controlled('queued', [], log);
    const after = controlled('after', ['finishes'], log);
    const interrupt = new AbortController();
    const done = walk([finishes.step, hangs.step, queued.step, after.step], { parallelism: 2, signal: interrupt.signal, graceMs: 20 });
    await tick();
    expect(log).toEqual(['start finishes', 'start hangs']);
    interrupt.abort();
    finishes.finish(true);
    const outcomes = await done;
    expect(log).toEqual(['start finishes', 'start hangs']);
    expect(Object.fromEntries(outcomes.map((o) => [o.key, o.status]))).toEqual({
      finishes: 'done',
      hangs: 'cancelled',
      queued: 'not_started',
      after: 'not_started',
    });
    hangs.finish(true); // a late outcome changes nothing
    await tick();
    expect(outcomes).toHaveLength(4);
  });
});
