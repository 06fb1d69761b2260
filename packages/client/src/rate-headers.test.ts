/** What a server's rate-limit headers tell the pacer, in each of the forms servers send. */
import { describe, expect, it } from 'vitest';
import { limitsOf, parseRetryAfter } from './rate-headers.js';

const headers = (values: Record<string, string>) => (name: string) => values[name];
const NOW = Date.parse('2026-01-01T00:00:00Z');

describe('limitsOf', () => {
  it('reads Retry-After as seconds or an HTTP date', () => {
    expect(limitsOf(headers({ 'retry-after': '7' }), NOW)).toEqual({ retryAfterMs: 7000 });
    expect(limitsOf(headers({ 'retry-after': new Date(NOW + 2500).toUTCString() }), NOW)).toEqual({ retryAfterMs: 2000 });
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });

  it('reads remaining and reset from RateLimit-*, X-RateLimit-* and the structured RateLimit header', () => {
    expect(limitsOf(headers({ 'ratelimit-remaining': '3', 'ratelimit-reset': '20' }), NOW)).toEqual({ remaining: 3, resetMs: 20_000 });
    expect(limitsOf(headers({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '5' }), NOW)).toEqual({ remaining: 0, resetMs: 5000 });
    expect(limitsOf(headers({ ratelimit: '"default";r=10;t=30' }), NOW)).toEqual({ remaining: 10, resetMs: 30_000 });
  });

  it("takes a reset above 10^9 as a Unix time (GitHub's form), and never waits more than a minute for one", () => {
    expect(limitsOf(headers({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(NOW / 1000 + 12) }), NOW)).toEqual({ remaining: 0, resetMs: 12_000 });
    expect(limitsOf(headers({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '3600' }), NOW)).toEqual({ remaining: 0, resetMs: 60_000 });
  });

  it('ignores what it cannot read, and a remaining count without a reset', () => {
    expect(limitsOf(headers({ 'ratelimit-remaining': '-1', 'ratelimit-reset': 'x', 'retry-after': '' }), NOW)).toEqual({});
    expect(limitsOf(headers({ 'x-ratelimit-remaining': '4' }), NOW)).toEqual({});
  });
});
