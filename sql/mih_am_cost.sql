-- The planner's costs of a simhash_mih index follow its real shape (mih_am_cost.c): its table
-- count (the "blocks" option, or the build's choice) and the pages its tables fill, read from its
-- meta page (table 0 packs its rows' tids: more than the 582 rows a page of layout 2 held).
CREATE TABLE costed (id int, sh simhash);
INSERT INTO costed SELECT i, ('x' || substr(md5(i::text), 1, 16))::bit(64)::simhash FROM generate_series(1, 20000) i;
ANALYZE costed;
-- The startup and total cost of the plan's index scan.
CREATE FUNCTION pg_temp.index_costs(q text) RETURNS float8[] LANGUAGE plpgsql AS $$
DECLARE
    plan jsonb;
    node jsonb;
BEGIN
    EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO plan;
    node := jsonb_path_query_first(plan, 'strict $.** ? (@."Node Type" == "Index Scan")');
    RETURN ARRAY[(node->>'Startup Cost')::float8, (node->>'Total Cost')::float8];
END $$;
CREATE TABLE costs (blocks int, knn float8[], radius float8[]);
SET enable_seqscan = off; SET enable_bitmapscan = off;
DO $$
BEGIN
    FOR b IN 2 .. 6 BY 2 LOOP
        EXECUTE format('CREATE INDEX costed_mih ON costed USING simhash_mih (sh) WITH (blocks = %s)', b);
        INSERT INTO costs SELECT b,
            pg_temp.index_costs($q$SELECT id FROM costed ORDER BY sh <-> '0123456789abcdef' LIMIT 10$q$),
            pg_temp.index_costs($q$SELECT id FROM costed WHERE hamming(sh, '0123456789abcdef') <= 5$q$);
        DROP INDEX costed_mih;
    END LOOP;
END $$;
RESET enable_seqscan; RESET enable_bitmapscan;
-- More tables: more searches before the first neighbour and before a radius query's rows (the
-- old model took the table count from the rows alone and added nothing to a radius scan's
-- startup, so neither grew).
SELECT blocks, knn[1] > lag(knn[1]) OVER w AS knn_startup_grows, radius[1] > lag(radius[1]) OVER w AS radius_startup_grows
FROM costs WINDOW w AS (ORDER BY blocks) ORDER BY blocks;
DROP TABLE costs;
DROP TABLE costed;
