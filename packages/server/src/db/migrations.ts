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
];
