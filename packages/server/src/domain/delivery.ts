/**
 * The deliverer: works through the event outbox (migration 2) after commit and delivers each
 * audit event to each destination of each subscription whose sources include its type.
 *
 * Guarantees:
 * - after commit: the outbox row is written by the recording transaction, and the deliverer
 *   only sees committed rows; it is woken after each response and polls as a safety net;
 * - at least once: a row is settled only after its delivery, in one transaction with the log
 *   record; a crash in between delivers it again after restart (the outbox survives);
 * - in order per destination: rows are taken oldest first, and a destination whose oldest
 *   row failed or waits for its retry holds back its later rows;
 * - exactly as recorded: the event envelope is passed on as the stored text, never rebuilt.
 *
 * The reference server cannot reach AWS targets: delivering to a live destination means
 * logging the delivery (what operators read at `GET /_admin/deliveries`) and, when configured,
 * appending it to a JSON-lines sink file for a person to watch. A destination deleted since the
 * event was queued gets a `dropped` record. A failed sink write is a `failed` record, retried
 * with exponential backoff. Nothing here logs a destination's credentials: only ids travel.
 */
import type { DeliveryLog, PendingDelivery } from './delivery-log.js';
import { JsonLinesSink } from './event-sink.js';

export interface DeliveryOptions {
  /** JSON-lines file each delivered event is appended to; none when absent. */
  sinkPath?: string;
  /** Poll interval (ms) that picks up retries and anything a wake-up missed. Default 1000. */
  pollMs?: number;
  /** First retry delay (ms), doubled per failed attempt up to `MAX_BACKOFF_MS`. Default 500. */
  backoffMs?: number;
}

/** Longest wait before a failed delivery is tried again (ms). */
const MAX_BACKOFF_MS = 60_000;
/** Outbox rows read per pass. */
const BATCH = 500;

export interface DeliveryLogger {
  warn(object: Record<string, unknown>, message: string): void;
}

export class Deliverer {
  private readonly sink: JsonLinesSink | undefined;
  private readonly pollMs: number;
  private readonly backoffMs: number;
  private timer: NodeJS.Timeout | undefined;
  private wakeScheduled = false;
  private stopped = false;
  /** Passes run one at a time, chained here. */
  private chain: Promise<number> = Promise.resolve(0);

  constructor(
    private readonly log: DeliveryLog,
    /** Whether an event destination with this id exists now. */
    private readonly destinationExists: (id: string) => boolean,
    private readonly logger: DeliveryLogger,
    options: DeliveryOptions = {},
  ) {
    this.sink = options.sinkPath !== undefined ? new JsonLinesSink(options.sinkPath) : undefined;
    this.pollMs = options.pollMs ?? 1000;
    this.backoffMs = options.backoffMs ?? 500;
  }

  /** Starts polling (the timer never keeps the process alive) and delivers what is pending. */
  start(): void {
    if (this.stopped || this.timer) return;
    this.timer = setInterval(() => this.wake(), this.pollMs);
    this.timer.unref();
    this.wake();
  }

  /** Asks for a pass soon (after a write, at each poll). Cheap; coalesced. */
  wake(): void {
    if (this.stopped || this.wakeScheduled) return;
    this.wakeScheduled = true;
    setImmediate(() => {
      this.wakeScheduled = false;
      void this.runPass();
    });
  }

  /** Delivers everything deliverable now (not waiting for a retry); resolves when done. */
  async flush(): Promise<void> {
    while (!this.stopped && (await this.runPass()) > 0) {
      // keep going while passes make progress
    }
  }

  /** Stops polling, waits for the pass in progress and closes the sink. Pending rows stay queued. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.chain;
    await this.sink?.close();
  }

  /**
   * Queues one pass after the current one; resolves with the number of rows it delivered or
   * dropped (failures are not progress, so `flush` ends while a destination keeps failing).
   */
  private runPass(): Promise<number> {
    this.chain = this.chain
      .then(
        () => (this.stopped ? 0 : this.pass()),
        () => 0,
      )
      .catch((error: unknown) => {
        this.logger.warn({ err: error }, 'event delivery pass failed');
        return 0;
      });
    return this.chain;
  }

  private async pass(): Promise<number> {
    const now = Date.now();
    const held = new Set<string>();
    let settled = 0;
    const rows = this.log.pending(BATCH);
    for (const row of rows) {
      if (this.stopped) break;
      if (held.has(row.destinationId)) continue;
      if (row.nextAttemptAt !== null && Date.parse(row.nextAttemptAt) > now) {
        held.add(row.destinationId);
        continue;
      }
      if (await this.deliver(row)) settled++;
      else held.add(row.destinationId);
    }
    if (rows.length === BATCH && settled > 0) this.wake();
    return settled;
  }

  /** Delivers one row and records the attempt; false when it failed and will be retried. */
  private async deliver(row: PendingDelivery): Promise<boolean> {
    if (!this.destinationExists(row.destinationId)) {
      this.log.settle(row, 'dropped', 'the event destination was deleted before delivery');
      return true;
    }
    try {
      await this.sink?.append(row);
    } catch (error) {
      const delay = Math.min(this.backoffMs * 2 ** row.attempts, MAX_BACKOFF_MS);
      const detail = `sink write failed: ${(error as Error).message}`;
      this.log.settle(row, 'failed', detail, new Date(Date.now() + delay).toISOString());
      this.logger.warn({ event_id: row.eventId, destination_id: row.destinationId, attempt: row.attempts + 1, retry_in_ms: delay }, detail);
      return false;
    }
    this.log.settle(row, 'delivered', null);
    return true;
  }
}
