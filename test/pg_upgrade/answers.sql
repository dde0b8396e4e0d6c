-- What the crawl database answers, run before and after the upgrade (the outputs must be equal),
-- with each index checked against a sequential scan of its own table.
\pset tuples_only on
\pset format unaligned
CREATE FUNCTION pg_temp.digest(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE d text;
BEGIN
    EXECUTE format('SELECT md5(coalesce(string_agg(r::text, '';'' ORDER BY r::text), '''')) FROM (%s) r', q) INTO d;
    RETURN d;
END $$;
-- Each table's radius answers (k = 3 and 8) and, for the indexes that order, its 10 nearest
-- distances, through its index and through a sequential scan.
CREATE FUNCTION pg_temp.answers(t text, scan text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r text;
BEGIN
    -- Every setting named each time: the call before may have set it either way.
    PERFORM set_config('enable_seqscan', (scan <> 'index')::text, true),
            set_config('enable_indexscan', (scan = 'index')::text, true),
            set_config('enable_bitmapscan', (scan = 'index')::text, true),
            set_config('enable_indexonlyscan', (scan = 'index')::text, true);
    r := pg_temp.digest(format('SELECT q.q, array_agg(t.id ORDER BY t.id) FROM queries q, %I t
                                WHERE hamming(t.sh, q.q) <= 3 GROUP BY q.q', t))
         || ' ' || pg_temp.digest(format('SELECT q.q, array_agg(t.id ORDER BY t.id) FROM queries q, %I t
                                          WHERE hamming(t.sh, q.q) <= 8 GROUP BY q.q', t));
    IF t IN ('t_mih', 't_compact', 't_gist') THEN
        r := r || ' ' || pg_temp.digest(format('SELECT q.q, (SELECT array_agg(d) FROM (SELECT t.sh <-> q.q AS d FROM %I t
                                                ORDER BY t.sh <-> q.q LIMIT 10) s) FROM queries q', t));
    END IF;
    RETURN r;
END $$;
SELECT t, pg_temp.answers(t, 'index') = pg_temp.answers(t, 'seq') AS index_equals_seq_scan, pg_temp.answers(t, 'seq')
FROM unnest(ARRAY['t_mih', 't_compact', 't_gist', 't_gin', 't_btree']) t;
SELECT 'check ' || i, blocks, sorted_rows, live_sorted_rows
FROM unnest(ARRAY['t_mih_idx', 't_compact_idx']) i, simhash_mih_check(i::regclass, heapallindexed => true);
SELECT 'generated columns recomputed alike', count(*) FILTER (WHERE sh <> simhash(body) OR sk <> resemblance_sketch(body))
FROM pages;
SELECT 'view', pg_temp.digest('SELECT * FROM near_first');
REFRESH MATERIALIZED VIEW dup_pairs;
SELECT 'materialized view', count(*), pg_temp.digest('SELECT * FROM dup_pairs') FROM dup_pairs;
SELECT 'extension', extversion FROM pg_extension WHERE extname = 'simhash';
