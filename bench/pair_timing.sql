-- Timing of the benchmarks that compare a growing index with a fresh one (bench/ingest.sh,
-- bench/state_costs.sh), loaded into their database.

-- p50 and p99 of timings (NULLs for none).
CREATE FUNCTION percentiles(p_ms float8[], OUT p50_ms float8, OUT p99_ms float8) LANGUAGE sql AS $$
    SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x), percentile_cont(0.99) WITHIN GROUP (ORDER BY x)
    FROM unnest(p_ms) x
$$;

-- p50/p99 of one query set over one slice of the queries, in the server (clock_timestamp around
-- EXECUTE), on the growing table and on a reference table (p_ref; the ref_ columns): each query
-- runs on both, one right after the other, so that a moment of the shared machine's noise (tens of
-- milliseconds) slows both, not one set, and the ratio of the two is what the index's state costs
-- under the same load. The tables take every order in turn: what a query leaves in the processor's
-- caches weighs on the next one, so each table must come first, and right after each other table
-- (the last of the query before included), as often as the rest: each order starts with the table
-- the one before ended with. Every sample takes a slice of queries no sample took before, as a
-- crawler checks new pages: the same queries again would find the reference's pages for them hot
-- (usage counts, the backend's recent buffers) and the growing index's, rewritten by a merge
-- meanwhile, cold.
-- The slice is NQ queries, NQ the setting pair_timing.nq. With p_ref2 (the ref2_ columns), each
-- query runs on three tables, in the six orders in turn.
CREATE FUNCTION time_pair(p_sql text, p_k int, p_ref text, p_slice int, p_ref2 text DEFAULT NULL,
                          OUT p50_ms float8, OUT p99_ms float8, OUT ref_p50_ms float8, OUT ref_p99_ms float8,
                          OUT ref2_p50_ms float8, OUT ref2_p99_ms float8) LANGUAGE plpgsql AS $$
DECLARE q record; t0 timestamptz; ids bigint[]; tabs text[] := array_remove(ARRAY['crawl', p_ref, p_ref2], NULL);
        orders int[] := CASE WHEN p_ref2 IS NULL THEN '{{1,2},{2,1}}'::int[]
                        ELSE '{{1,2,3},{3,2,1},{1,3,2},{2,1,3},{3,1,2},{2,3,1}}'::int[] END;
        tab int; took float8;
        ms float8[] := '{}'; ref_ms float8[] := '{}'; ref2_ms float8[] := '{}';
        nq int := current_setting('pair_timing.nq')::int;
BEGIN
    FOR q IN SELECT qid, h FROM queries WHERE qid > (p_slice - 1) * nq AND qid <= p_slice * nq ORDER BY qid LOOP
        FOR side IN 1..cardinality(tabs) LOOP
            tab := orders[q.qid % array_length(orders, 1) + 1][side];
            t0 := clock_timestamp();
            EXECUTE format('SELECT array_agg(id) FROM (' || p_sql || ') s', tabs[tab]) INTO ids USING q.h, p_k;
            took := extract(epoch FROM clock_timestamp() - t0) * 1000;
            CASE tab WHEN 1 THEN ms := ms || took; WHEN 2 THEN ref_ms := ref_ms || took; ELSE ref2_ms := ref2_ms || took;
            END CASE;
        END LOOP;
    END LOOP;
    SELECT * INTO p50_ms, p99_ms FROM percentiles(ms);
    SELECT * INTO ref_p50_ms, ref_p99_ms FROM percentiles(ref_ms);
    SELECT * INTO ref2_p50_ms, ref2_p99_ms FROM percentiles(ref2_ms);
END $$;
