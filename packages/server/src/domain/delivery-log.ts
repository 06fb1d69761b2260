/**
 * The delivery tables of migration 2: the outbox the deliverer works through and the log of
 * every delivery attempt that operators read (`GET /_admin/deliveries`). SQL only; the policy
 * (order, retries, what a delivery is) lives in `delivery.ts`.
 */
import { Nullable, StringEnum } from '@gatehouse/schemas';
import { Type, type Static } from '@sinclair/typebox';
import type { Db } from '../db/database.js';

const DeliveryOutcome = StringEnum(['delivered', 'failed', 'dropped']);
export type DeliveryOutcome = Static<typeof DeliveryOutcome>;

/** An outbox row with the audit event it carries, exactly as recorded (`body`). */
export interface PendingDelivery {
  outboxSeq: number;
  eventId: string;
  eventType: string;
  /** The recorded event envelope, as stored: delivered byte for byte. */
  body: string;
  subscriptionId: string;
  destinationId: string;
  /** Attempts made before this one. */
  attempts: number;
  /** ISO time before which the row must not be retried, or null. */
  nextAttemptAt: string | null;
}

/** One attempt, as the admin route shows it (its response schema). */
export const DeliveryRecord = Type.Object({
  seq: Type.Integer(),
  event_id: Type.String(),
  event_type: Type.String(),
  subscription_id: Type.String(),
  destination_id: Type.String(),
  attempt: Type.Integer(),
  outcome: DeliveryOutcome,
  detail: Nullable(Type.String()),
  recorded_at: Type.String(),
});
export type DeliveryRecord = Static<typeof DeliveryRecord>;

export interface DeliveryQuery {
  /** Records after this sequence number (a cursor), oldest first. */
  after?: number;
  limit: number;
  event_id?: string;
  subscription_id?: string;
  destination_id?: string;
}

export class DeliveryLog {
  private readonly stmts;

  constructor(private readonly db: Db) {
    this.stmts = {
      pending: db.prepare(`
        SELECT o.seq AS outboxSeq, e.event_id AS eventId, e.event_type AS eventType, e.body AS body,
               o.subscription_id AS subscriptionId, o.destination_id AS destinationId,
               o.attempts AS attempts, o.next_attempt_at AS nextAttemptAt
        FROM event_outbox AS o JOIN audit_events AS e ON e.seq = o.event_seq
        WHERE o.done_at IS NULL ORDER BY o.seq ASC LIMIT ?`),
      pendingCount: db.prepare('SELECT count(*) AS n FROM event_outbox WHERE done_at IS NULL'),
      record: db.prepare(`
        INSERT INTO event_deliveries (outbox_seq, event_id, event_type, subscription_id, destination_id,
                                      attempt, outcome, detail, recorded_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      finish: db.prepare('UPDATE event_outbox SET attempts = attempts + 1, done_at = ? WHERE seq = ?'),
      postpone: db.prepare('UPDATE event_outbox SET attempts = attempts + 1, next_attempt_at = ? WHERE seq = ?'),
    };
  }

  /** Undelivered rows, oldest first. */
  pending(limit: number): PendingDelivery[] {
    return this.stmts.pending.all(limit) as PendingDelivery[];
  }

  pendingCount(): number {
    return (this.stmts.pendingCount.get() as { n: number }).n;
  }

  /**
   * Logs an attempt and, in the same transaction, settles its outbox row: done for
   * `delivered` and `dropped`, postponed to `retryAt` for `failed`. Durable when it returns.
   */
  settle(row: PendingDelivery, outcome: DeliveryOutcome, detail: string | null, retryAt?: string): void {
    const now = new Date().toISOString();
    this.db
      .transaction(() => {
        this.stmts.record.run(row.outboxSeq, row.eventId, row.eventType, row.subscriptionId, row.destinationId, row.attempts + 1, outcome, detail, now);
        if (outcome === 'failed') this.stmts.postpone.run(retryAt ?? now, row.outboxSeq);
        else this.stmts.finish.run(now, row.outboxSeq);
      })
      .immediate();
  }

  /** Logged attempts matching `query`, oldest first. */
  records(query: DeliveryQuery): DeliveryRecord[] {
    const where: string[] = ['seq > ?'];
    const params: (string | number)[] = [query.after ?? 0];
    for (const column of ['event_id', 'subscription_id', 'destination_id'] as const) {
      const value = query[column];
      if (value !== undefined) {
        where.push(`${column} = ?`);
        params.push(value);
      }
    }
    const sql = `SELECT seq, event_id, event_type, subscription_id, destination_id, attempt, outcome, detail, recorded_at
      FROM event_deliveries WHERE ${where.join(' AND ')} ORDER BY seq ASC LIMIT ?`;
    return this.db.prepare(sql).all(...params, query.limit) as DeliveryRecord[];
  }
}
