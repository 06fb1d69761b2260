/**
 * Posts notifications (notify.ts) to `--notify-webhook`: one JSON POST each through the client's
 * connections (the proxy HTTPS_PROXY/HTTP_PROXY/NO_PROXY name for the webhook's URL, as for the
 * API), 10 s per attempt, 3 attempts for a failure that another attempt may mend (no answer,
 * 429, 5xx). A message that still fails is reported to `onFailure` and dropped: the next change
 * of state sends again. The URL is never written anywhere: failures name its origin only (a
 * Slack or Teams webhook's path is its credential).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { postJson } from '@gatehouse/client';
import { proxyFor } from '../connection/transport.js';
import type { Notification } from './notify.js';
import { webhookOrigin } from './settings.js';

const ATTEMPTS = 3;
const TIMEOUT_MS = 10_000;

export interface WebhookSender {
  send(notification: Notification): Promise<void>;
}

export function webhookSender(url: URL, onFailure: (message: string) => void, options: { retryDelayMs?: number } = {}): WebhookSender {
  const retryDelayMs = options.retryDelayMs ?? 1000;
  const proxy = proxyFor(url.href);
  return {
    async send(notification) {
      let why = '';
      for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
        try {
          const answer = await postJson(url, notification, { timeoutMs: TIMEOUT_MS, ...(proxy ? { proxy } : {}) });
          if (answer.status >= 200 && answer.status < 300) return;
          why = `answered ${answer.status}`;
          if (answer.status !== 429 && answer.status < 500) break;
        } catch (error) {
          // The error's code (ECONNREFUSED, ENOTFOUND) or name: never its message, which may quote the URL.
          const { code, name } = error as { code?: unknown; name?: string };
          why = typeof code === 'string' ? code : (name ?? 'Error');
        }
        if (attempt < ATTEMPTS) await sleep(retryDelayMs * attempt);
      }
      onFailure(
        `the ${notification.event} notification could not be posted to the webhook at ${webhookOrigin(url)} (${why}); it is dropped, the next change of state is sent again`,
      );
    },
  };
}
