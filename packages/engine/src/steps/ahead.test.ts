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
  const counter = { ran: 0 };
  const pending = new Promise<string>((resolve) => setTimeout(() => resolve('listed'), 5));
  await expect(workWhileWaiting(pending, counting(counter))).resolves.toBe('listed');
  expect(counter.ran).toBeGreaterThan(0);
  expect(counter.ran).toBeLessThan(1000);
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
