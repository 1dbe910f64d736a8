-- Webhook inputs that were refused, kept for operators (bounded to the most recent rows).
CREATE TABLE rejections (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    received_at  INTEGER NOT NULL,
    source       TEXT NOT NULL,
    code         TEXT NOT NULL,
    detail       TEXT NOT NULL,
    body         TEXT NOT NULL
) STRICT;
