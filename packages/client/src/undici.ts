/**
 * `exchange`: one request through any undici dispatcher (an agent, a proxy agent, a mock) and
 * its whole answer, cancelled at once by a signal or a time limit.
 */
import { errors, type Dispatcher } from 'undici';

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

type RawHeaders = (Buffer | string | string[])[];

const text = (value: Buffer | string | string[]): string | string[] =>
  typeof value === 'string' ? value : Array.isArray(value) ? value.map(String) : value.toString('latin1');

/** `name`'s value in undici's raw header list (names and values alternating, as received). */
function headerIn(raw: RawHeaders, name: string): string | string[] | undefined {
  let found: string | string[] | undefined;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const key = raw[i]!;
    if (key.length !== name.length || String(text(key)).toLowerCase() !== name) continue;
    const value = text(raw[i + 1]!);
    found = found === undefined ? value : [...[found].flat(), ...[value].flat()];
  }
  return found;
}

/** UTF-8 text of a body's chunks, without a leading byte order mark. */
function decode(chunks: Buffer[], length: number): string {
  if (length === 0) return '';
  const buffer = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, length);
  const bom = buffer.length > 2 && buffer[0] === 0xef && buffer[1] === 0xbb && buffer[2] === 0xbf;
  return buffer.toString('utf8', bom ? 3 : 0);
}

/**
 * One request through `dispatcher` and its whole answer: what undici's `request` and then
 * `body.text()` give, without their machinery. `request` wraps each answer in a Readable
 * stream (an async resource, a stream state, listeners) that `text()` then drains, and a
 * deadline needs an AbortController and its signal; here the handler undici calls collects the
 * chunks, and cancelling calls the abort function undici hands it. An apply sends thousands of
 * small requests, ten at a time, and the client's CPU per request is on every one's path: this
 * is about 40 us less per request.
 *
 * The handler is undici's own interface (`onConnect`, `onHeaders`, `onData`, `onComplete`,
 * `onError`), the one `request` itself uses and every dispatcher calls (a proxy agent, a mock).
 * Informational answers (1xx) are skipped, as `request` skips them. A cancellation (the signal,
 * the time limit) ends the exchange at once, even before the request has a connection: undici
 * calls `onConnect` only then, and is told to abort it when it does (`request` instead waits,
 * which left a request whose proxy never opened its tunnel waiting forever).
 */
export function exchange(dispatcher: Dispatcher, origin: string, path: string, out: Outgoing): Promise<Answer> {
  return new Promise<Answer>((resolve, reject) => {
    const { signal } = out;
    if (signal?.aborted) {
      reject(signal.reason ?? new RequestAbortedError());
      return;
    }
    let abort: ((reason: Error) => void) | undefined;
    let cancelled: Error | undefined;
    let settled = false;
    let status = 0;
    let raw: RawHeaders = [];
    const chunks: Buffer[] = [];
    let length = 0;
    const settle = () => {
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    // Ends the exchange at once, whether or not the request has reached a connection yet (one
    // still connecting, through a proxy's tunnel, say, is aborted when undici hands it one).
    const cancel = (reason: Error) => {
      if (settled) return;
      cancelled = reason;
      settle();
      abort?.(reason);
      reject(reason);
    };
    const onAbort = () => cancel(signal!.reason ?? new RequestAbortedError());
    signal?.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(() => cancel(new AttemptTimedOut(out.timeoutMs)), out.timeoutMs);
    const handler: Dispatcher.DispatchHandler = {
      onConnect(abortRequest: (reason: Error) => void) {
        if (cancelled) abortRequest(cancelled);
        else abort = abortRequest;
      },
      onHeaders(statusCode: number, rawHeaders: RawHeaders) {
        if (statusCode >= 200) {
          status = statusCode;
          raw = rawHeaders;
        }
        return true;
      },
      onData(chunk: Buffer) {
        chunks.push(chunk);
        length += chunk.length;
        return true;
      },
      onComplete() {
        if (settled) return;
        settle();
        const headers = raw;
        resolve({ status, text: decode(chunks, length), header: (name) => headerIn(headers, name) });
      },
      onError(error: Error) {
        if (settled) return;
        settle();
        reject(error);
      },
    } as Dispatcher.DispatchHandler;
    dispatcher.dispatch(
      { origin, path, method: out.method as Dispatcher.HttpMethod, headers: out.headers, ...(out.body !== undefined ? { body: out.body } : {}) },
      handler,
    );
  });
}
