-- Webhook inputs that were refused (bad signature, unknown app, wrong password, ...): what arrived,
-- why it was refused and when. Not events: nothing was learnt from them. Bounded: the store keeps
-- the most recent rows only (see PostgresSQL.trimRejections).
CREATE TABLE rejections (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    received_at  timestamptz NOT NULL DEFAULT now(),
    source       text NOT NULL,
    code         text NOT NULL,
    detail       text NOT NULL,
    body         text NOT NULL
);
