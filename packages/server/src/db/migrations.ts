/**
 * Schema migrations, applied in order at start-up. `PRAGMA user_version` records how many
 * have run, so an old database file is brought forward and a new one is created whole.
 * Append new migrations; never edit one that has shipped.
 */
export const MIGRATIONS: readonly string[] = [
  // 1: objects of every kind, the audit log and the API keys.
  `
  CREATE TABLE objects (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    id         TEXT NOT NULL UNIQUE,
    kind       TEXT NOT NULL,
    parent_id  TEXT,
    created_at TEXT NOT NULL,
    deleted_at TEXT,
    data       TEXT NOT NULL
  );
  CREATE INDEX objects_kind_seq ON objects (kind, seq) WHERE deleted_at IS NULL;
  CREATE INDEX objects_parent ON objects (parent_id, seq) WHERE deleted_at IS NULL;

  -- Keys that must be unique across live objects (a bot user's name, a rule's CIDR within its
  -- policy, a hostport...), claimed and released with their object.
  CREATE TABLE unique_keys (
    key       TEXT PRIMARY KEY,
    object_id TEXT NOT NULL
  );
  CREATE INDEX unique_keys_object ON unique_keys (object_id);

  CREATE TABLE audit_events (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    event_id        TEXT NOT NULL UNIQUE,
    event_type      TEXT NOT NULL,
    event_timestamp TEXT NOT NULL,
    body            TEXT NOT NULL
  );

  CREATE TABLE api_keys (
    id         TEXT PRIMARY KEY,
    token_hash TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL
  );
  `,
  // 2: event delivery (api-spec 6). The audit log is the source; `event_outbox` holds one row
  // per (event, subscription, destination) to deliver, filled by a trigger in the very
  // transaction that records the event, from the subscriptions live at that moment (a
  // subscription's stored `sources[].type` and `destination_ids`): a committed event is never
  // lost to a crash before delivery, and none is queued for a change that rolled back. The
  // deliverer (domain/delivery.ts) works through the outbox after commit, oldest first per
  // destination, and logs every attempt in `event_deliveries`.
  `
  CREATE TABLE event_outbox (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    event_seq       INTEGER NOT NULL REFERENCES audit_events (seq),
    subscription_id TEXT NOT NULL,
    destination_id  TEXT NOT NULL,
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TEXT,
    done_at         TEXT
  );
  CREATE INDEX event_outbox_pending ON event_outbox (seq) WHERE done_at IS NULL;

  CREATE TABLE event_deliveries (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    outbox_seq      INTEGER NOT NULL REFERENCES event_outbox (seq),
    event_id        TEXT NOT NULL,
    event_type      TEXT NOT NULL,
    subscription_id TEXT NOT NULL,
    destination_id  TEXT NOT NULL,
    attempt         INTEGER NOT NULL,
    outcome         TEXT NOT NULL CHECK (outcome IN ('delivered', 'failed', 'dropped')),
    detail          TEXT,
    recorded_at     TEXT NOT NULL
  );
  CREATE INDEX event_deliveries_event ON event_deliveries (event_id);

  CREATE TRIGGER audit_events_fan_out AFTER INSERT ON audit_events
  BEGIN
    INSERT INTO event_outbox (event_seq, subscription_id, destination_id)
    SELECT NEW.seq, s.id, d.value
    FROM objects AS s, json_each(s.data, '$.destination_ids') AS d
    WHERE s.kind = 'event_subscription'
      AND s.deleted_at IS NULL
      AND EXISTS (
        SELECT 1 FROM json_each(s.data, '$.sources') AS src
        WHERE json_extract(src.value, '$.type') = NEW.event_type
      )
    ORDER BY s.seq, d.key;
  END;
  `,
];
