-- An ingest changes several documents (a chain, its owner, a user): lock them all in the given order
-- and read them in one round trip instead of one per document. The final read is a statement of its
-- own, so its fresh snapshot sees what every lock's previous holder committed.
CREATE FUNCTION lock_and_read_documents(p_models text[], p_keys text[])
RETURNS TABLE (document_index integer, document_data text)
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    FOR i IN 1 .. coalesce(array_length(p_keys, 1), 0) LOOP
        PERFORM pg_advisory_xact_lock(hashtextextended(p_models[i] || '/' || p_keys[i], 0));
    END LOOP;
    -- A subquery per document keeps each a primary-key lookup: a join was planned as a hash join
    -- over the whole table.
    RETURN QUERY
        SELECT named.ordinality::integer,
               (SELECT p.data FROM projections p WHERE p.model = named.model AND p.key = named.key)
        FROM unnest(p_models, p_keys) WITH ORDINALITY AS named(model, key, ordinality);
END
$$;
