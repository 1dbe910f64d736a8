-- Read models are written and read whole by the service and never queried inside, so keep the JSON
-- text exactly as written: jsonb parsed every document on write (a replay's swap spent most of its
-- time there) and printed it again on every read.
ALTER TABLE projections ALTER COLUMN data TYPE text USING data::text;

-- A chain's document grows with its renewals (tens of kilobytes), so it is compressed on every write:
-- lz4 costs a fraction of the default pglz. A server built without lz4 keeps pglz.
DO $$
BEGIN
    ALTER TABLE projections ALTER COLUMN data SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
    RAISE NOTICE 'lz4 is not available in this PostgreSQL build: read models stay compressed with pglz';
END
$$;
