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
  // 3: fewer pages written per create (each is a WAL frame of the group commit, written,
  // fsynced and checkpointed): a create wrote about seven pages, a group of four about ten.
  // - `objects` and `audit_events` without AUTOINCREMENT: it kept a row per table in
  //   `sqlite_sequence`, one more page per commit. Rows of both are never deleted (an object
  //   is kept as a tombstone, an event for ever), so the next `seq` is the largest plus one,
  //   exactly as before, and every `seq` (cursors, `event_outbox.event_seq`) is kept.
  // - `audit_events.event_id` without its UNIQUE index: nothing looks an event up by id, and
  //   the ids are 19 random base62 characters after the time (src/ids.ts).
  // - `objects_parent` indexes only objects that have a parent: the lookups by parent
  //   (`parent_id = ?`) imply `parent_id IS NOT NULL`, so they still use it, and creating a
  //   top-level object (an IP policy, an edge) no longer writes a page of it.
  // Tables are rebuilt as SQLite's ALTER TABLE documentation says (migrate() turns foreign
  // keys off around migrations and checks them before committing); dropping `audit_events`
  // drops its trigger, which is created again, unchanged, once `objects` is back.
  `
  CREATE TABLE audit_events_new (
    seq             INTEGER PRIMARY KEY,
    event_id        TEXT NOT NULL,
    event_type      TEXT NOT NULL,
    event_timestamp TEXT NOT NULL,
    body            TEXT NOT NULL
  );
  INSERT INTO audit_events_new (seq, event_id, event_type, event_timestamp, body)
    SELECT seq, event_id, event_type, event_timestamp, body FROM audit_events;
  DROP TABLE audit_events;
  ALTER TABLE audit_events_new RENAME TO audit_events;

  CREATE TABLE objects_new (
    seq        INTEGER PRIMARY KEY,
    id         TEXT NOT NULL UNIQUE,
    kind       TEXT NOT NULL,
    parent_id  TEXT,
    created_at TEXT NOT NULL,
    deleted_at TEXT,
    data       TEXT NOT NULL
  );
  INSERT INTO objects_new (seq, id, kind, parent_id, created_at, deleted_at, data)
    SELECT seq, id, kind, parent_id, created_at, deleted_at, data FROM objects;
  DROP TABLE objects;
  ALTER TABLE objects_new RENAME TO objects;
  CREATE INDEX objects_kind_seq ON objects (kind, seq) WHERE deleted_at IS NULL;
  CREATE INDEX objects_parent ON objects (parent_id, seq) WHERE parent_id IS NOT NULL AND deleted_at IS NULL;

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
  // 4: static backends under the service's own path (`/backends/static`). Earlier servers
  // stored them as `backend_static_address` (served at `/backends/static_address`); the kind is
  // renamed and every id stays, so edges' backend modules, failover and weighted backends that
  // list them, and the ownership markers in their metadata all still hold.
  `
  UPDATE objects SET kind = 'backend_static' WHERE kind = 'backend_static_address';
  `,
];
