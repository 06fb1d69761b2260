/**
 * The audit log: every create, update and delete of an audited kind records its event in the
 * same transaction as the change (the caller is inside `Store.transaction`), so no event is
 * lost and none is recorded for a change that did not happen. Delivery reads this table.
 */
import type { Db } from '../db/database.js';
import { newId } from '../ids.js';
import type { Urls } from '../http/urls.js';

export type AuditAction = 'created' | 'updated' | 'deleted';

export interface Principal {
  /** Id of the API key that made the request. */
  apiKeyId: string;
}

export interface AuditEvent {
  event_id: string;
  event_type: string;
  event_timestamp: string;
  principal: { source: 'API'; credential: { id: string; uri: string } };
  object: unknown;
}

export class AuditLog {
  private readonly insert;
  private readonly select;

  constructor(
    db: Db,
    private readonly urls: Urls,
  ) {
    this.insert = db.prepare('INSERT INTO audit_events (event_id, event_type, event_timestamp, body) VALUES (?, ?, ?, ?)');
    this.select = db.prepare('SELECT body FROM audit_events WHERE seq > ? ORDER BY seq ASC LIMIT ?');
  }

  /**
   * Records `<name>_<action>.v0` for `object` (the resource as it is now). The stored body is
   * `JSON.stringify(event)`, which delivery passes on byte for byte.
   */
  record(name: string, action: AuditAction, object: unknown, principal: Principal): AuditEvent {
    const event: AuditEvent = {
      event_id: newId('ev'),
      event_type: `${name}_${action}.v0`,
      event_timestamp: new Date().toISOString(),
      principal: { source: 'API', credential: this.urls.ref(principal.apiKeyId) },
      object,
    };
    this.insert.run(event.event_id, event.event_type, event.event_timestamp, JSON.stringify(event));
    return event;
  }

  /** Events in the order they were recorded, after position `afterSeq`. */
  read(afterSeq = 0, limit = 1000): AuditEvent[] {
    return (this.select.all(afterSeq, limit) as { body: string }[]).map((r) => JSON.parse(r.body) as AuditEvent);
  }
}
