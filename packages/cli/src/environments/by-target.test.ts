import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { budgetKey, byTarget } from './by-target.js';

const flags = (url: string | undefined, key = 'key-0123456789abcdef') => ({ stack: 'default', 'api-url': url, 'api-key': key });

describe('environments by target', () => {
  it('one budget per URL and key; the embedded server is one', () => {
    expect(budgetKey(flags('https://API.example.com/', 'key-1-0123456789'), {})).toBe(budgetKey(flags('https://api.example.com', 'key-1-0123456789'), {}));
    expect(budgetKey(flags('https://api.example.com', 'key-1-0123456789'), {})).not.toBe(budgetKey(flags('https://api.example.com', 'key-2-0123456789'), {}));
    expect(budgetKey(flags('https://eu.api.example.com', 'key-1-0123456789'), {})).not.toBe(
      budgetKey(flags('https://api.example.com', 'key-1-0123456789'), {}),
    );
    expect(budgetKey(flags('embedded'), {})).toBe(budgetKey(flags(undefined), {}));
  });

  it("runs different targets at once, one target in order; results in the items' order", async () => {
    const log: string[] = [];
    const items = [
      { name: 'a', key: 'x', ms: 60 },
      { name: 'b', key: 'y', ms: 10 },
      { name: 'c', key: 'x', ms: 10 },
      { name: 'd', key: 'z', ms: 30 },
    ];
    const results = await byTarget(
      items,
      (i) => i.key,
      async (item) => {
        log.push(`start ${item.name}`);
        await sleep(item.ms);
        log.push(`end ${item.name}`);
        return item.name.toUpperCase();
      },
    );
    expect(results).toEqual(['A', 'B', 'C', 'D']);
    // a, b and d start together, before any ends; c, on a's target, only after a.
    expect(log.slice(0, 3).sort()).toEqual(['start a', 'start b', 'start d']);
    expect(log.indexOf('start c')).toBeGreaterThan(log.indexOf('end a'));
  });

  it('starts nothing after a failure, lets what runs end, and throws the first failure in order', async () => {
    const ended: string[] = [];
    const failure = await byTarget(
      ['a', 'b', 'c', 'd'],
      (i) => (i === 'c' ? 'x' : i === 'a' ? 'x' : i),
      async (item) => {
        if (item === 'b') throw new Error('b failed');
        await sleep(item === 'd' ? 30 : 20);
        if (item === 'a') throw new Error('a failed');
        ended.push(item);
        return item;
      },
    ).catch((error: Error) => error.message);
    expect(failure).toBe('a failed');
    // d was running and ended; c (after a, on its target) never started.
    expect(ended).toEqual(['d']);
  });
});
