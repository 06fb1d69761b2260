/**
 * The rate-limit notation shared by `gatehouse serve --rate-limit` (the server's per-key
 * limit) and the CLI's client-side `--rate-limit`: `120/60s` is 120 requests per 60 seconds.
 * One parser, so that both sides read the same text the same way; it lives here because the
 * CLI must parse it without loading the (optional) server.
 */
export interface RateLimit {
  max: number;
  windowMs: number;
}

/** Parses `120/60s`, `100/1m`, `10/500ms` (requests per window); throws saying the form. */
export function parseRateLimit(text: string): RateLimit {
  const match = /^(\d+)\s*\/\s*(\d+)\s*(ms|s|m)?$/.exec(text.trim());
  if (!match) throw new Error(`rate limit '${text}' must look like 120/60s (requests per window)`);
  const max = Number(match[1]);
  const amount = Number(match[2]);
  const unit = match[3] ?? 's';
  const windowMs = amount * (unit === 'ms' ? 1 : unit === 's' ? 1000 : 60_000);
  if (max < 1 || windowMs < 1) throw new Error(`rate limit '${text}' must allow at least one request per window`);
  return { max, windowMs };
}
