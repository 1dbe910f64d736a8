-- Inline projections lock a document and then read it, once per document on every ingest: one round
-- trip instead of two. Each statement of a VOLATILE function takes a fresh snapshot, so the read sees
-- whatever the lock's previous holder committed. The lock is the one LockDocumentStatement takes.
CREATE FUNCTION lock_and_read_document(p_model text, p_key text) RETURNS text
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(hashtextextended(p_model || '/' || p_key, 0));
    RETURN (SELECT data FROM projections WHERE model = p_model AND key = p_key);
END
$$;
