-- The request id a refusal was answered with (X-Request-ID), so a row in rejections can be matched
-- to its log lines and to what the sender was told. NULL for rows kept before this migration.
ALTER TABLE rejections ADD COLUMN request_id text;
