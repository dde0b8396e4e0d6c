-- ===== Near-duplicate-aware ingestion ======================================================
-- Two hashes within k share one of their k + 1 band keys, so inserters that lock every band key
-- of their page before looking for its near-duplicates are serialized exactly when their pages
-- could be near-duplicates of each other, and no two near-duplicates are ever checked blind to
-- each other. Transaction-scoped advisory locks, taken in sorted order (no deadlock between
-- callers), released at commit or rollback.
CREATE FUNCTION simhash_lock_neighbourhood(sh simhash, k integer DEFAULT 5) RETURNS integer
    LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    lock_key bigint;
    taken integer := 0;
BEGIN
    -- The keys are mixed so that they do not collide with an application's small lock numbers.
    FOR lock_key IN
        SELECT DISTINCT pg_catalog.hashint8extended(b, 3263827) FROM pg_catalog.unnest(@extschema@.simhash_band_keys(sh, k)) b
        ORDER BY 1
    LOOP
        PERFORM pg_catalog.pg_advisory_xact_lock(lock_key);
        taken := taken + 1;
    END LOOP;
    RETURN taken;
END
$$;

COMMENT ON FUNCTION simhash_lock_neighbourhood(simhash, integer) IS
    'locks, until the transaction ends, every page that could lie within k bits of sh: run it in its own statement before inserting and checking sh';
