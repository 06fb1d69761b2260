/**
 * The pacer on a fake clock: a rolling window counted from each attempt's end, the cap on
 * requests in flight, and what the server says (Retry-After, remaining/reset, a concurrency
 * refusal) overriding what it assumes; deadlines refused as soon as they are known to be missed.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Pacer, PaceRefused, type Slot } from './pace.js';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
});

const now = () => performance.now();

/** Starts `n` acquisitions; `granted` lists, in order, the times they were served. */
function line(pacer: Pacer, n: number, notAfter?: number) {
  const granted: number[] = [];
  const slots: Slot[] = [];
  const refused: PaceRefused[] = [];
  for (let i = 0; i < n; i++) {
    pacer.acquire(notAfter).then(
      (slot) => {
        granted.push(now());
        slots.push(slot);
      },
      (error: PaceRefused) => refused.push(error),
    );
  }
  return { granted, slots, refused };
}

describe('a rolling window', () => {
  it('never puts more than the budget into any window, counting from each answer, not each send', async () => {
    const pacer = new Pacer({ budget: { requests: 3, windowMs: 1000 }, concurrency: 10 });
    const { granted, slots } = line(pacer, 7);
    await vi.advanceTimersByTimeAsync(0);
    expect(granted).toEqual([0, 0, 0]);
    // The three take 100 ms, 200 ms and 300 ms: room comes a window after each answer.
    await vi.advanceTimersByTimeAsync(100);
    slots[0]!.release();
    await vi.advanceTimersByTimeAsync(100);
    slots[1]!.release();
    await vi.advanceTimersByTimeAsync(100);
    slots[2]!.release();
    await vi.advanceTimersByTimeAsync(2000);
    expect(granted).toEqual([0, 0, 0, 1100, 1200, 1300]);
    // The fourth to sixth are answered now (at 2300): the seventh waits a window after that.
    for (const slot of slots.slice(3)) slot.release();
    await vi.advanceTimersByTimeAsync(999);
    expect(granted).toHaveLength(6);
    await vi.advanceTimersByTimeAsync(1);
    expect(granted.at(-1)).toBe(3300);
  });

  it('lets no burst across a boundary exceed the budget (where fixed intervals allow twice as many)', async () => {
    const pacer = new Pacer({ budget: { requests: 4, windowMs: 1000 }, concurrency: 100 });
    const sent: number[] = [];
    // Requests arrive steadily and each is answered at once.
    for (let t = 0; t < 5000; t += 50) {
      setTimeout(
        () =>
          void pacer.acquire().then((slot) => {
            sent.push(now());
            slot.release();
          }),
        t,
      );
    }
    await vi.advanceTimersByTimeAsync(30_000);
    for (const start of sent) expect(sent.filter((t) => t >= start && t < start + 1000).length).toBeLessThanOrEqual(4);
    expect(sent.length).toBe(100);
  });

  it('counts a request in flight for as long as it is in flight; a cancelled one not at all', async () => {
    const pacer = new Pacer({ budget: { requests: 2, windowMs: 1000 }, concurrency: 10 });
    const { granted, slots } = line(pacer, 3);
    await vi.advanceTimersByTimeAsync(5000);
    expect(granted).toEqual([0, 0]);
    slots[0]!.cancel();
    await vi.advanceTimersByTimeAsync(0);
    expect(granted).toEqual([0, 0, 5000]);
  });

  it('holds at most `concurrency` in flight, first come first served', async () => {
    const pacer = new Pacer({ concurrency: 2 });
    const { granted, slots } = line(pacer, 4);
    await vi.advanceTimersByTimeAsync(10);
    expect(granted).toHaveLength(2);
    slots[1]!.release();
    await vi.advanceTimersByTimeAsync(0);
    expect(granted).toHaveLength(3);
  });
});

describe('what the server says', () => {
  it('holds every request for Retry-After', async () => {
    const pacer = new Pacer({ budget: { requests: 100, windowMs: 1000 }, concurrency: 10 });
    const first = await pacer.acquire();
    first.release({ retryAfterMs: 3000 });
    const { granted } = line(pacer, 2);
    await vi.advanceTimersByTimeAsync(2999);
    expect(granted).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(granted).toEqual([3000, 3000]);
  });

  it('sends no more than the server says remain until its window resets, less those still in flight', async () => {
    const pacer = new Pacer({ budget: { requests: 100, windowMs: 60_000 }, concurrency: 10 });
    const inFlight = await pacer.acquire();
    const answered = await pacer.acquire();
    // Two remain, one of which the request still in flight may take.
    answered.release({ remaining: 2, resetMs: 5000 });
    const { granted } = line(pacer, 3);
    await vi.advanceTimersByTimeAsync(4999);
    expect(granted).toEqual([0]);
    await vi.advanceTimersByTimeAsync(1);
    expect(granted).toEqual([0, 5000, 5000]);
    inFlight.release();
  });

  it('lowers the cap on requests in flight after a refusal for too many, to the number the server names', async () => {
    const pacer = new Pacer({ concurrency: 8 });
    const slots = await Promise.all([1, 2, 3].map(() => pacer.acquire()));
    slots[0]!.release({ concurrencyRefused: {} });
    expect(pacer.concurrency).toBe(2);
    slots[1]!.release({ concurrencyRefused: { limit: 5 } });
    expect(pacer.concurrency).toBe(2);
    const other = new Pacer({ concurrency: 8 });
    (await other.acquire()).release({ concurrencyRefused: { limit: 5 } });
    expect(other.concurrency).toBe(5);
  });
});

describe('deadlines and cancellation', () => {
  it('refuses at once a turn that would come after the deadline, saying when it would have come', async () => {
    const pacer = new Pacer({ budget: { requests: 1, windowMs: 10_000 }, concurrency: 10 });
    (await pacer.acquire()).release();
    const { granted, refused } = line(pacer, 1, 5000);
    await vi.advanceTimersByTimeAsync(0);
    expect(granted).toEqual([]);
    expect(refused[0]).toBeInstanceOf(PaceRefused);
    expect(refused[0]!.readyAt).toBe(10_000);
    expect(refused[0]!.message).toMatch(/in 10000 ms/);
  });

  it('refuses at the deadline a turn that waits on requests in flight', async () => {
    const pacer = new Pacer({ concurrency: 1 });
    const held = await pacer.acquire();
    const { refused } = line(pacer, 1, 300);
    await vi.advanceTimersByTimeAsync(299);
    expect(refused).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(refused[0]!.message).toBe('the deadline passed while it waited for its turn');
    held.release();
  });

  it('takes a waiter whose signal aborts out of the line, and serves the next', async () => {
    const pacer = new Pacer({ concurrency: 1 });
    const held = await pacer.acquire();
    const controller = new AbortController();
    const aborted = pacer.acquire(Infinity, controller.signal).catch((error: unknown) => error);
    const next = pacer.acquire();
    controller.abort(new Error('stop'));
    expect(await aborted).toMatchObject({ message: 'stop' });
    held.release();
    await expect(next).resolves.toMatchObject({ waitedMs: 0 });
  });
});

describe('the estimate of how long requests will take', () => {
  it('is the latency alone while the window has room, then a window per budget', () => {
    const pacer = new Pacer({ budget: { requests: 60, windowMs: 3000 }, concurrency: 10 });
    expect(pacer.estimateMs(0, 50)).toBe(0);
    // 10 requests of 50 ms, 10 at a time: one round trip.
    expect(pacer.estimateMs(10, 50)).toBe(50);
    // 60 fit in the window: six round trips of ten.
    expect(pacer.estimateMs(60, 50)).toBe(300);
    // The 61st leaves when the first has left the window: its answer came at 50 ms.
    expect(pacer.estimateMs(61, 50)).toBe(50 + 3000 + 50);
    // 1,000 requests: the budget's pace, 60 per 3 s, about 50 s.
    const thousand = pacer.estimateMs(1000, 50);
    expect(thousand).toBeGreaterThan((1000 / 60 - 1) * 3000);
    expect(thousand).toBeLessThan((1000 / 60 + 1) * 3000);
  });

  it('counts what the window already holds and what is in flight', async () => {
    const pacer = new Pacer({ budget: { requests: 3, windowMs: 1000 }, concurrency: 10 });
    const slots = [await pacer.acquire(), await pacer.acquire()];
    await vi.advanceTimersByTimeAsync(100);
    slots[0]!.release();
    // One ended at 100, one in flight (ends at 110 by the estimate): one more fits at once,
    // the next after the first has left the window (1100), answered 10 ms later.
    expect(pacer.estimateMs(1, 10)).toBe(10);
    expect(pacer.estimateMs(2, 10)).toBe(1100 + 10 - 100);
    slots[1]!.release();
  });

  it('waits out a hold the server asked for, and without a budget only the cap on requests in flight counts', () => {
    const unpaced = new Pacer({ concurrency: 4 });
    expect(unpaced.estimateMs(9, 20)).toBe(60);
    unpaced.hold(500);
    expect(unpaced.estimateMs(1, 20)).toBe(520);
  });
});
