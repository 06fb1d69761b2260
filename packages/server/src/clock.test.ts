import { afterEach, describe, expect, it, vi } from 'vitest';
import { isoNow } from './clock.js';

afterEach(() => vi.useRealTimers());

describe('isoNow', () => {
  it('is what new Date().toISOString() returns, within a millisecond and across them', () => {
    vi.useFakeTimers({ now: new Date('2026-11-27T14:00:00.000Z'), toFake: ['Date'] });
    expect(isoNow()).toBe('2026-11-27T14:00:00.000Z');
    expect(isoNow()).toBe(new Date().toISOString());
    vi.setSystemTime(new Date('2026-11-27T14:00:00.001Z'));
    expect(isoNow()).toBe('2026-11-27T14:00:00.001Z');
    // Time going back (a clock set back) is followed too: the string is the current time's.
    vi.setSystemTime(new Date('2026-11-27T13:59:59.999Z'));
    expect(isoNow()).toBe('2026-11-27T13:59:59.999Z');
  });

  it('follows the real clock', () => {
    const before = Date.now();
    const now = Date.parse(isoNow());
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
  });
});
