/**
 * Posts notifications (notify.ts) to `--notify-webhook`: one JSON POST each, with Node's own
 * `fetch` (the CLI makes no connection of its own beyond this one; the API's go through the
 * client), 10 s per attempt, 3 attempts for a failure that another attempt may mend (no answer,
 * 429, 5xx). A message that still fails is reported to `onFailure` and dropped: the next change
 * of state sends again. The URL is never written anywhere: failures name its origin only (a
 * Slack or Teams webhook's path is its credential).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Notification } from './notify.js';
import { webhookOrigin } from './settings.js';

const ATTEMPTS = 3;
const TIMEOUT_MS = 10_000;

export interface WebhookSender {
  send(notification: Notification): Promise<void>;
}

export function webhookSender(url: URL, onFailure: (message: string) => void, options: { retryDelayMs?: number } = {}): WebhookSender {
  const retryDelayMs = options.retryDelayMs ?? 1000;
  return {
    async send(notification) {
      const body = JSON.stringify(notification);
      let why = '';
      for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
        try {
          const answer = await fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json' }, redirect: 'error', signal: AbortSignal.timeout(TIMEOUT_MS) });
          await answer.arrayBuffer().catch(() => undefined);
          if (answer.ok) return;
          why = `answered ${answer.status}`;
          if (answer.status !== 429 && answer.status < 500) break;
        } catch (error) {
          // The cause's code (ECONNREFUSED, ENOTFOUND) or the error's name: never its message, which may quote the URL.
          const cause = (error as { cause?: { code?: unknown } }).cause;
          why = typeof cause?.code === 'string' ? cause.code : (error as Error).name;
        }
        if (attempt < ATTEMPTS) await sleep(retryDelayMs * attempt);
      }
      onFailure(`the ${notification.event} notification could not be posted to the webhook at ${webhookOrigin(url)} (${why}); it is dropped, the next change of state is sent again`);
    },
  };
}
