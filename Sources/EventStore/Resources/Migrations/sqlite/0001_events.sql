-- subledger event store, SQLite (the embedded default). Same semantics as the PostgreSQL schema.
-- SQLite commits one writer at a time in position order, so no transaction id is needed for readers.

CREATE TABLE streams (
    stream_id  TEXT    PRIMARY KEY,
    version    INTEGER NOT NULL CHECK (version >= 0),
    head_hash  BLOB    NOT NULL
) STRICT;

CREATE TABLE events (
    position        INTEGER PRIMARY KEY AUTOINCREMENT,   -- never reused
    event_id        TEXT    NOT NULL UNIQUE,
    stream_id       TEXT    NOT NULL,
    stream_version  INTEGER NOT NULL CHECK (stream_version >= 1),
    type            TEXT    NOT NULL,
    schema_version  INTEGER NOT NULL,
    data            TEXT    NOT NULL CHECK (json_valid(data) AND json_type(data) = 'object'),
    metadata        TEXT    NOT NULL CHECK (json_valid(metadata) AND json_type(metadata) = 'object'),
    recorded_at     INTEGER NOT NULL,                    -- microseconds since 1970
    dedupe_key      TEXT    UNIQUE,
    hash            BLOB    NOT NULL,
    UNIQUE (stream_id, stream_version)
) STRICT;

CREATE TRIGGER events_immutable_update BEFORE UPDATE ON events
BEGIN
    SELECT RAISE(ABORT, 'subledger events are immutable: UPDATE on events is refused');
END;

-- SQLite has no TRUNCATE; a DELETE without WHERE fires this trigger too.
CREATE TRIGGER events_immutable_delete BEFORE DELETE ON events
BEGIN
    SELECT RAISE(ABORT, 'subledger events are immutable: DELETE on events is refused');
END;

CREATE TABLE checkpoints (
    name        TEXT    PRIMARY KEY,
    cursor      TEXT    NOT NULL,
    updated_at  INTEGER NOT NULL
) STRICT;

CREATE TABLE projections (
    model  TEXT NOT NULL,
    key    TEXT NOT NULL,
    data   TEXT NOT NULL,
    PRIMARY KEY (model, key)
) STRICT;
