/**
 * One JSON POST to any URL (a notification webhook of `gatehouse watch`) through the same kind of
 * connection as the API's requests: the proxy the caller names, extra CAs, a time limit. Nothing
 * is retried or paced here: the caller decides. The answer's body is read and dropped.
 */
import { createDispatcher, type ConnectionOptions } from './dispatcher.js';
import { exchange } from './undici.js';

export type PostOptions = Pick<ConnectionOptions, 'timeoutMs' | 'proxy' | 'ca'>;

/** Resolves with the answer's status; rejects when no answer came (refused, timed out, a proxy's refusal). */
export async function postJson(url: URL, body: unknown, options: PostOptions): Promise<{ status: number }> {
  const dispatcher = createDispatcher({ connections: 1, ...options });
  try {
    const answer = await exchange(dispatcher, url.origin, `${url.pathname}${url.search}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      timeoutMs: options.timeoutMs,
    });
    return { status: answer.status };
  } finally {
    await dispatcher.close();
  }
}
