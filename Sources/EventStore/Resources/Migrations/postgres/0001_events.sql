-- subledger event store, PostgreSQL.
-- Events are facts: once written they are never updated or deleted (see the triggers below).

CREATE TABLE streams (
    stream_id  text   PRIMARY KEY,
    version    bigint NOT NULL CHECK (version >= 0),   -- number of events in the stream
    head_hash  bytea  NOT NULL                         -- hash of the stream's last event
);

CREATE TABLE events (
    position        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    -- The committing transaction; readers gate on it so a late commit is never skipped.
    tx_id           xid8        NOT NULL DEFAULT pg_current_xact_id(),
    event_id        uuid        NOT NULL UNIQUE,
    stream_id       text        NOT NULL,
    stream_version  bigint      NOT NULL CHECK (stream_version >= 1),
    type            text        NOT NULL,
    schema_version  integer     NOT NULL,
    -- The bytes as appended (text, not jsonb, which would reorder keys and drop spaces): the hash
    -- chain covers exactly what is stored. Cast to jsonb to query: data::jsonb ->> 'raw'.
    data            text        NOT NULL CHECK (json_typeof(data::json) = 'object'),
    metadata        text        NOT NULL CHECK (json_typeof(metadata::json) = 'object'),
    recorded_at     timestamptz NOT NULL,
    dedupe_key      text        UNIQUE,
    hash            bytea       NOT NULL,
    UNIQUE (stream_id, stream_version)
);

CREATE INDEX events_tx_position ON events (tx_id, position);

CREATE FUNCTION subledger_refuse_event_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'subledger events are immutable: % on events is refused', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END
$$;

CREATE TRIGGER events_immutable_rows
    BEFORE UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION subledger_refuse_event_change();

CREATE TRIGGER events_immutable_truncate
    BEFORE TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION subledger_refuse_event_change();

-- Wake-up: the store sends one payload-less NOTIFY subledger_events per burst of appends from its own
-- connection. A NOTIFY inside every append transaction serialises commits on PostgreSQL's
-- notification queue lock (measured: 4x fewer inserts/s with 16 writers), so there is no trigger.

-- Where each named projector has got to; moved by compare-and-set with the projector's writes.
CREATE TABLE checkpoints (
    name        text PRIMARY KEY,
    cursor      text NOT NULL,
    updated_at  timestamptz NOT NULL DEFAULT now()
);

-- Read models: disposable JSON documents rebuilt from the events.
CREATE TABLE projections (
    model  text  NOT NULL,
    key    text  NOT NULL,
    data   jsonb NOT NULL,
    PRIMARY KEY (model, key)
);
