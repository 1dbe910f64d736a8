-- An event's data holds Apple's payload as received (a signed notification is several kilobytes),
-- so PostgreSQL compresses it on insert: with the default pglz that was a tenth of the server's work
-- on every webhook. lz4 compresses several times faster. Compression is transparent: the text reads
-- back byte for byte, and rows written before keep pglz. A server built without lz4 keeps pglz.
DO $$
BEGIN
    ALTER TABLE events ALTER COLUMN data SET COMPRESSION lz4;
    ALTER TABLE events ALTER COLUMN metadata SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
    RAISE NOTICE 'lz4 is not available in this PostgreSQL build: events stay compressed with pglz';
END
$$;
