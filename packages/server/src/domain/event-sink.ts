/**
 * The optional JSON-lines event sink (`gatehouse serve --event-sink FILE`): one line per
 * delivery, so a person can `tail -f` events as they arrive:
 *
 *     {"destination_id":"ed_...","subscription_id":"esb_...","attempt":1,"event":{...}}
 *
 * `event` is the recorded envelope spliced in as stored, not re-serialized. Lines are
 * appended in delivery order; the file is opened on first use and created if missing.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { makeDirectory } from '@gatehouse/schemas/runtime';
import type { PendingDelivery } from './delivery-log.js';

export class JsonLinesSink {
  private handle: Promise<FileHandle> | undefined;

  /** Throws for an empty path, which names no file: every delivery would fail later. */
  constructor(private readonly path: string) {
    if (path.trim() === '') throw new Error('the event sink path is empty; name a file to append events to, or leave the event sink out');
  }

  async append(row: PendingDelivery): Promise<void> {
    const head = JSON.stringify({
      destination_id: row.destinationId,
      subscription_id: row.subscriptionId,
      attempt: row.attempts + 1,
    });
    const line = `${head.slice(0, -1)},"event":${row.body}}\n`;
    const handle = await this.open();
    await handle.appendFile(line, 'utf8');
  }

  async close(): Promise<void> {
    const handle = this.handle;
    this.handle = undefined;
    if (handle) await (await handle.catch(() => undefined))?.close();
  }

  private open(): Promise<FileHandle> {
    if (!this.handle) {
      const opening = Promise.resolve()
        .then(() => makeDirectory(dirname(this.path)))
        .then(() => open(this.path, 'a'));
      this.handle = opening;
      // A failed open is retried on the next append rather than remembered.
      opening.catch(() => {
        if (this.handle === opening) this.handle = undefined;
      });
    }
    return this.handle;
  }
}
