/**
 * When and how long to wait before trying a request again.
 *
 * Safe to retry automatically: GET, PUT, DELETE and PATCH. In this API a PATCH replaces each
 * given field whole and never increments or appends (service-behaviour.md, "Updates"), so
 * sending the same body twice leaves the same object: it is idempotent, and retrying it after
 * a lost answer is safe. POST creates an object each time it is carried out, so a POST is
 * never retried here after anything that may have reached the server (5xx, reset, timeout):
 * the caller must first look for the object by its identity (the engine's apply does). A POST
 * is retried only when the server provably did not carry it out: a 429 (refused before
 * handling) or a refused connection (never sent). 4xx other than 429 are never retried.
 */
import type { GatehouseApiError } from './errors.js';

export interface RetryOptions {
  /** Attempts in all, the first included. Default 5. */
  maxAttempts?: number;
  /** First backoff in milliseconds; doubled each attempt. Default 200. */
  baseDelayMs?: number;
  /** Longest single wait, Retry-After included. Default 30,000. */
  maxDelayMs?: number;
}

export const DEFAULT_RETRY: Required<RetryOptions> = { maxAttempts: 5, baseDelayMs: 200, maxDelayMs: 30_000 };

const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'PATCH']);

/** Whether a failed attempt of `method` may be sent again. */
export function shouldRetry(method: string, error: GatehouseApiError): boolean {
  if (!error.retryable) return false;
  if (IDEMPOTENT.has(method)) return true;
  // Not idempotent: only when the server certainly did nothing.
  return error.status === 429 || error.errorCode === 'connection_refused';
}

/**
 * Wait before attempt `attempt + 1` (attempt counts from 1): the server's Retry-After when
 * given, otherwise exponential backoff with full jitter (a random wait between 0 and
 * base * 2^(attempt-1)), so that many clients that failed together do not retry together.
 */
export function retryDelay(attempt: number, error: GatehouseApiError, options: Required<RetryOptions>, random = Math.random): number {
  if (error.retryAfter !== undefined) return Math.min(error.retryAfter * 1000, options.maxDelayMs);
  const ceiling = Math.min(options.baseDelayMs * 2 ** (attempt - 1), options.maxDelayMs);
  return Math.round(random() * ceiling);
}

/** Parses `Retry-After` as seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || text.trim() === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(text.trim())) return Number(text);
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - now) / 1000);
}
