import { GatehouseClient } from '@gatehouse/client';
import { describe, expect, it } from 'vitest';
import { formatUsage, requestUsage } from './request-usage.js';

const usage = (total: number, budget: { requests: number; window_seconds: number } | null, rateLimited = 0) => ({
  total,
  by_method: { GET: total, POST: 0, PATCH: 0, PUT: 0, DELETE: 0 },
  rate_limited: rateLimited,
  budget,
  budget_share: budget ? total / budget.requests : null,
});

describe('the request line', () => {
  it('says the share of the budget in use', () => {
    expect(formatUsage(usage(43, { requests: 120, window_seconds: 60 }), false)).toBe("43 requests (36% of one minute's budget of 120)");
    expect(formatUsage(usage(1, { requests: 120, window_seconds: 60 }), false)).toBe("1 request (1% of one minute's budget of 120)");
    expect(formatUsage(usage(90, { requests: 60, window_seconds: 3 }), false)).toBe("90 requests (150% of one window's budget of 60 per 3 s)");
    expect(formatUsage(usage(30, { requests: 60, window_seconds: 120 }), false)).toBe("30 requests (50% of one window's budget of 60 per 2 minutes)");
  });

  it('says when there is no budget, and why', () => {
    expect(formatUsage(usage(17, null), true)).toBe('17 requests (the embedded server has no budget)');
    expect(formatUsage(usage(17, null), false)).toBe('17 requests (not paced: --rate-limit off)');
  });

  it('counts refusals', () => {
    expect(formatUsage(usage(50, { requests: 120, window_seconds: 60 }, 2), false)).toMatch(/^50 requests \(42% of one minute's budget of 120; 2 answered 429/);
  });

  it('reads the numbers from the client', () => {
    const paced = requestUsage(new GatehouseClient({ baseUrl: 'http://api.test', apiKey: 'k', rateLimit: { requests: 60, intervalMs: 3000 } }));
    expect(paced).toEqual({
      total: 0,
      by_method: { GET: 0, POST: 0, PATCH: 0, PUT: 0, DELETE: 0 },
      rate_limited: 0,
      budget: { requests: 60, window_seconds: 3 },
      budget_share: 0,
    });
    expect(requestUsage(new GatehouseClient({ baseUrl: 'http://api.test', apiKey: 'k', rateLimit: false })).budget).toBeNull();
  });
});
