/**
 * The audit log: every create, update and delete of an audited kind records its event in the
 * same transaction as the change (the caller is inside `Store.transaction`), so no event is
 * lost and none is recorded for a change that did not happen. Delivery reads this table.
 */
import type { Db } from '../db/database.js';
import { isoNow } from '../clock.js';
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

/** Principals whose JSON is remembered at most (one per API key in use). */
const PRINCIPALS_MAX = 64;

export class AuditLog {
  private readonly insert;
  private readonly select;
  /** `"<type>"` by event type, and `{"source":"API","credential":{...}}` by API key id under `principalsBase`. */
  private readonly typeJson = new Map<string, string>();
  private readonly principalJson = new Map<string, string>();
  private principalsBase = '';

  constructor(
    db: Db,
    private readonly urls: Urls,
  ) {
    this.insert = db.prepare(
      'INSERT INTO audit_events (event_id, event_type, event_timestamp, body) VALUES (?, ?, ?, ?)',
    );
    this.select = db.prepare('SELECT body FROM audit_events WHERE seq > ? ORDER BY seq ASC LIMIT ?');
  }

  /**
   * Records `<name>_<action>.v0` for `object` (the resource as it is now).
   *
   * The stored body is exactly `JSON.stringify(event)` (delivery passes it on byte for byte),
   * but put together from parts: the event's type and principal are the same for many events
   * and are serialized once, its id and timestamp are known to need no escaping (base62, ISO
   * 8601), and only the object is serialized per event. `JSON.stringify` of a whole event took
   * about 1.5 us, two thirds of it on the parts that do not change.
   */
  record(name: string, action: AuditAction, object: unknown, principal: Principal): AuditEvent {
    const eventType = `${name}_${action}.v0`;
    const event: AuditEvent = {
      event_id: newId('ev'),
      event_type: eventType,
      event_timestamp: isoNow(),
      principal: { source: 'API', credential: this.urls.ref(principal.apiKeyId) },
      object,
    };
    let typeJson = this.typeJson.get(eventType);
    if (typeJson === undefined) this.typeJson.set(eventType, (typeJson = JSON.stringify(eventType)));
    const objectJson = JSON.stringify(object) as string | undefined;
    // As in JSON.stringify(event): a member whose value serializes to nothing is left out.
    const body =
      `{"event_id":"${event.event_id}","event_type":${typeJson},"event_timestamp":"${event.event_timestamp}",` +
      `"principal":${this.principalOf(event.principal)}${objectJson === undefined ? '' : `,"object":${objectJson}`}}`;
    this.insert.run(event.event_id, eventType, event.event_timestamp, body);
    return event;
  }

  /**
   * The principal's JSON, remembered per API key id while the base URL (part of the
   * credential's `uri`) stays the same; bounded, emptied when full.
   */
  private principalOf(principal: AuditEvent['principal']): string {
    const base = this.urls.of('');
    if (base !== this.principalsBase || this.principalJson.size >= PRINCIPALS_MAX) {
      this.principalJson.clear();
      this.principalsBase = base;
    }
    const id = principal.credential.id;
    let json = this.principalJson.get(id);
    if (json === undefined) this.principalJson.set(id, (json = JSON.stringify(principal)));
    return json;
  }

  /** Events in the order they were recorded, after position `afterSeq`. */
  read(afterSeq = 0, limit = 1000): AuditEvent[] {
    return (this.select.all(afterSeq, limit) as { body: string }[]).map((r) => JSON.parse(r.body) as AuditEvent);
  }
}
