/**
 * What a command spent of the API's request budget: the numbers of the JSON documents
 * (`api_requests`, `RequestUsage`) and the line every plan, apply and drift ends with, such as
 *
 *   43 requests (36% of one minute's budget of 120)
 *
 * Against the service every request costs half a second of the account's budget, shared with
 * every other tool on the account, so the count is what a run costs; the budget named is the one
 * in use (`--rate-limit`, the service's by default, none for the embedded server).
 */
import type { GatehouseClient } from '@gatehouse/client';
import type { RequestUsage } from '@gatehouse/engine/core';

/** The usage of `client` so far. */
export function requestUsage(client: Pick<GatehouseClient, 'requests' | 'transport'>): RequestUsage {
  const counts = client.requests;
  const budget = client.transport.pace.budget;
  return {
    total: counts.total,
    by_method: { ...counts.byMethod },
    rate_limited: counts.rateLimited,
    budget: budget ? { requests: budget.requests, window_seconds: budget.intervalMs / 1000 } : null,
    budget_share: budget ? Math.round((counts.total / budget.requests) * 1000) / 1000 : null,
  };
}

/** `3 s`, `1.5 s`, `2 min`: a window's length as people say it. */
function windowText(seconds: number): string {
  if (seconds === 60) return 'one minute';
  if (seconds % 60 === 0) return `${seconds / 60} minutes`;
  return `${seconds} s`;
}

/**
 * The line: how many requests, and what share of the budget in use they were (or that none
 * was in use: `embedded` says why).
 */
export function formatUsage(usage: RequestUsage, embedded: boolean): string {
  const count = `${usage.total} request${usage.total === 1 ? '' : 's'}`;
  const refused = usage.rate_limited > 0 ? `; ${usage.rate_limited} answered 429 (too many requests: another process on the account?)` : '';
  if (usage.budget === null || usage.budget_share === null) {
    return `${count} (${embedded ? 'the embedded server has no budget' : 'not paced: --rate-limit off'}${refused})`;
  }
  const { requests, window_seconds: seconds } = usage.budget;
  const budget = seconds === 60 ? `one minute's budget of ${requests}` : `one window's budget of ${requests} per ${windowText(seconds)}`;
  return `${count} (${Math.round(usage.budget_share * 100)}% of ${budget}${refused})`;
}
