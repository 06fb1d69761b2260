/**
 * The waiting of ahead.ts: steps run one per turn of the event loop while the promise is
 * pending, never after, and the promise's own outcome is returned.
 */
import { expect, test } from 'vitest';
import { workWhileWaiting } from './ahead.js';

function* counting(counter: { ran: number }, steps = 1000): Generator<void, void> {
  for (let i = 0; i < steps; i++) {
    counter.ran++;
    yield;
  }
}

test('steps run while the promise is pending, and stop when it settles', async () => {
  // The promise settles during the third step: no step runs after it, whatever the machine's speed.
  const counter = { ran: 0 };
  let settle!: (value: string) => void;
  const pending = new Promise<string>((resolve) => (settle = resolve));
  function* settlingOnThird(): Generator<void, void> {
    for (const step of counting(counter)) {
      if (counter.ran === 3) settle('listed');
      yield step;
    }
  }
  await expect(workWhileWaiting(pending, settlingOnThird())).resolves.toBe('listed');
  expect(counter.ran).toBe(3);
});

test('each step runs in a turn of the event loop of its own, after I/O callbacks queued before it', async () => {
  const order: string[] = [];
  let settle!: () => void;
  const pending = new Promise<void>((resolve) => (settle = resolve));
  function* steps(): Generator<void, void> {
    order.push('step 1');
    setImmediate(() => order.push('callback'));
    yield;
    order.push('step 2');
    settle();
    yield;
  }
  await workWhileWaiting(pending, steps());
  expect(order).toEqual(['step 1', 'callback', 'step 2']);
});

test('a promise settled already, or rejected, runs no step and is returned as it settled', async () => {
  const counter = { ran: 0 };
  await expect(workWhileWaiting(Promise.resolve(3), counting(counter))).resolves.toBe(3);
  await expect(workWhileWaiting(Promise.reject(new Error('listing failed')), counting(counter))).rejects.toThrow('listing failed');
  expect(counter.ran).toBe(0);
});

test('steps that end first: the promise is still awaited', async () => {
  const counter = { ran: 0 };
  await expect(workWhileWaiting(new Promise((resolve) => setTimeout(() => resolve(7), 20)), counting(counter, 2))).resolves.toBe(7);
  expect(counter.ran).toBe(2);
});
