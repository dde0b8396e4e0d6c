-- Timing of the benchmarks that compare a growing index with a fresh one (bench/ingest.sh,
-- bench/state_costs.sh), loaded into their database.

-- p50/p99 of one query set over one slice of the queries, in the server (clock_timestamp around
-- EXECUTE), on the growing table and on a reference table (p_ref; the ref_ columns): each query
-- runs on both, one right after the other, the first of them in turns, so that a moment of the
-- shared machine's noise (tens of milliseconds) slows both, not one set, and the ratio of the two
-- is what the index's state costs under the same load. Every sample takes a slice of queries no
-- sample took before, as a crawler checks new pages: the same queries again would find the
-- reference's pages for them hot (usage counts, the backend's recent buffers) and the growing
-- index's, rewritten by a merge meanwhile, cold.
-- The slice is NQ queries, NQ the setting pair_timing.nq.
CREATE FUNCTION time_pair(p_sql text, p_k int, p_ref text, p_slice int, OUT p50_ms float8, OUT p99_ms float8,
                          OUT ref_p50_ms float8, OUT ref_p99_ms float8) LANGUAGE plpgsql AS $$
DECLARE q record; t0 timestamptz; ms float8[] := '{}'; ref_ms float8[] := '{}'; ids bigint[]; on_ref bool;
        nq int := current_setting('pair_timing.nq')::int;
BEGIN
    FOR q IN SELECT qid, h FROM queries WHERE qid > (p_slice - 1) * nq AND qid <= p_slice * nq ORDER BY qid LOOP
        FOR side IN 0..1 LOOP
            on_ref := (side + q.qid) % 2 = 1;
            t0 := clock_timestamp();
            EXECUTE format('SELECT array_agg(id) FROM (' || p_sql || ') s', CASE WHEN on_ref THEN p_ref ELSE 'crawl' END)
                INTO ids USING q.h, p_k;
            IF on_ref THEN
                ref_ms := ref_ms || extract(epoch FROM clock_timestamp() - t0) * 1000;
            ELSE
                ms := ms || extract(epoch FROM clock_timestamp() - t0) * 1000;
            END IF;
        END LOOP;
    END LOOP;
    SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x), percentile_cont(0.99) WITHIN GROUP (ORDER BY x)
    INTO p50_ms, p99_ms FROM unnest(ms) x;
    SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x), percentile_cont(0.99) WITHIN GROUP (ORDER BY x)
    INTO ref_p50_ms, ref_p99_ms FROM unnest(ref_ms) x;
END $$;
