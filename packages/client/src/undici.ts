/**
 * `exchange`: one request through any undici dispatcher (an agent, a proxy agent, a mock) and
 * its whole answer, cancelled at once by a signal or a time limit.
 */
import { errors, request, type Dispatcher } from 'undici';

const { RequestAbortedError } = errors;

/** What `exchange` sends: an HTTP request with a string body, if any. */
export interface Outgoing {
  method: string;
  headers: Record<string, string>;
  body?: string;
  /** Cancels the exchange: it rejects with the signal's reason (undici's `RequestAbortedError` without one). */
  signal?: AbortSignal;
  /** The exchange rejects with `AttemptTimedOut` when the answer is not complete within this time. */
  timeoutMs: number;
}

/** The answer of `exchange`, read to its end. */
export interface Answer {
  status: number;
  /** The body, decoded as UTF-8 (a byte order mark dropped, as undici's `body.text()` does). */
  text: string;
  /** A response header by lower-case name: its value, its values when repeated, else undefined. */
  header(name: string): string | string[] | undefined;
}

/** `exchange` found no complete answer within `timeoutMs`. */
export class AttemptTimedOut extends Error {
  constructor(timeoutMs: number) {
    super(`no complete answer within ${timeoutMs} ms`);
    this.name = 'AttemptTimedOut';
  }
}

/**
 * One request through `dispatcher` and its whole answer: undici's `request`, then
 * `body.text()` (which drops a byte order mark). Informational answers (1xx) are skipped.
 *
 * A cancellation (the signal, the time limit) ends the exchange at once, even before the
 * request has a connection: undici's `request` reports an abort only once the request is
 * connected (which left a request whose proxy never opened its tunnel waiting for ever), so the
 * exchange does not wait for that; undici drops the request itself when it connects.
 */
export function exchange(dispatcher: Dispatcher, origin: string, path: string, out: Outgoing): Promise<Answer> {
  const { signal } = out;
  if (signal?.aborted) return Promise.reject(signal.reason ?? new RequestAbortedError());
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort = () => {};
  const cancelled = new Promise<never>((_, reject) => {
    const cancel = (reason: Error) => {
      controller.abort(reason);
      reject(reason);
    };
    timer = setTimeout(() => cancel(new AttemptTimedOut(out.timeoutMs)), out.timeoutMs);
    onAbort = () => cancel(signal!.reason ?? new RequestAbortedError());
    signal?.addEventListener('abort', onAbort, { once: true });
  });
  const answered = (async (): Promise<Answer> => {
    const response = await request(`${origin}${path}`, {
      dispatcher,
      method: out.method as Dispatcher.HttpMethod,
      headers: out.headers,
      ...(out.body !== undefined ? { body: out.body } : {}),
      signal: controller.signal,
    });
    const text = await response.body.text();
    return { status: response.statusCode, text, header: (name) => response.headers[name] };
  })();
  return Promise.race([answered, cancelled]).finally(() => {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  });
}
