import { afterEach, describe, expect, it, vi } from 'vitest';
import { newId } from './ids.js';

afterEach(() => vi.useRealTimers());

describe('newId', () => {
  it('is the prefix, an underscore and 26 base62 characters', () => {
    expect(newId('ipp')).toMatch(/^ipp_[0-9A-Za-z]{26}$/);
  });

  it('begins with the creation time, so later ids sort after earlier ones', () => {
    vi.useFakeTimers({ now: new Date('2026-11-23T16:00:00.000Z'), toFake: ['Date'] });
    const first = newId('ipp');
    vi.setSystemTime(new Date('2026-11-23T16:00:00.001Z'));
    const second = newId('ipp');
    vi.setSystemTime(new Date('2027-01-01T00:00:00.000Z'));
    const third = newId('ipp');
    expect([third, first, second].sort()).toEqual([first, second, third]);
    expect(first.slice(0, 11)).not.toBe(second.slice(0, 11));
  });

  it('draws the rest at random: ids of one millisecond differ', () => {
    vi.useFakeTimers({ now: new Date('2026-11-23T16:00:00.000Z'), toFake: ['Date'] });
    const ids = Array.from({ length: 10_000 }, () => newId('ev'));
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(ids.map((id) => id.slice(0, 10))).size).toBe(1);
    // Every base62 character appears in the random part.
    expect(new Set(ids.join('').replace(/ev_[0-9A-Za-z]{7}/g, '')).size).toBe(62);
  });
});
