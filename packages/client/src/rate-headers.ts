/**
 * What an answer's headers say about the server's rate limit, for the pacer (`pace.ts`):
 *
 * - `Retry-After` (RFC 9110): seconds, or an HTTP date.
 * - `RateLimit-Remaining` and `RateLimit-Reset` (the IETF draft's first form, and the
 *   `X-RateLimit-*` headers many servers and @fastify/rate-limit send): requests left in the
 *   current window and seconds until it frees. A reset above 10^9 is a Unix time in seconds
 *   (GitHub's form), not a number of seconds to wait.
 * - `RateLimit: "policy";r=<remaining>;t=<seconds>` (the draft's later structured form).
 *
 * Unreadable values are ignored: a header never makes the client wait longer than a minute
 * (`MAX_SERVER_WAIT_MS`) on its own.
 */
import type { Answer } from './pace.js';

/** The longest wait a header can impose; beyond it the request fails with the server's word. */
export const MAX_SERVER_WAIT_MS = 60_000;

export type HeaderReader = (name: string) => string | string[] | undefined;

const first = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value)?.trim() || undefined;

/** Parses `Retry-After` as seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const text = first(value);
  if (text === undefined) return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text);
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - now) / 1000);
}

/** A non-negative number of a header, or undefined. */
function count(value: string | string[] | undefined): number | undefined {
  const text = first(value);
  if (text === undefined || !/^\d+(\.\d+)?$/.test(text)) return undefined;
  return Number(text);
}

/** Seconds until a reset given as seconds to wait or, above 10^9, as a Unix time. */
function resetSeconds(value: number | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  return value > 1e9 ? Math.max(0, value - now / 1000) : value;
}

/** `r` and `t` of a structured `RateLimit` header (the first policy listed). */
function structured(value: string | string[] | undefined): { remaining?: number; reset?: number } {
  const text = first(value);
  if (text === undefined) return {};
  const params = Object.fromEntries(
    text
      .split(',')[0]!
      .split(';')
      .slice(1)
      .map((part) => part.trim().split('=') as [string, string | undefined]),
  );
  return { ...(count(params.r) !== undefined ? { remaining: count(params.r)! } : {}), ...(count(params.t) !== undefined ? { reset: count(params.t)! } : {}) };
}

/** The limits an answer's headers state (nothing when they state none). */
export function limitsOf(header: HeaderReader, now = Date.now()): Answer {
  const answer: Answer = {};
  const retryAfter = parseRetryAfter(header('retry-after'), now);
  if (retryAfter !== undefined) answer.retryAfterMs = Math.round(retryAfter * 1000);
  const fromStructured = structured(header('ratelimit'));
  const remaining = count(header('ratelimit-remaining')) ?? count(header('x-ratelimit-remaining')) ?? fromStructured.remaining;
  const reset = resetSeconds(count(header('ratelimit-reset')) ?? count(header('x-ratelimit-reset')) ?? fromStructured.reset, now);
  if (remaining !== undefined && reset !== undefined) {
    answer.remaining = remaining;
    answer.resetMs = Math.round(Math.min(reset * 1000, MAX_SERVER_WAIT_MS));
  }
  return answer;
}
