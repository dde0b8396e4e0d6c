-- The multi-index-hashing GIN index (simhash_mih_ops) answers radius queries exactly as a
-- sequential scan does, for every block count, radius, and after changes.
CREATE TABLE mt (id int, sh simhash);
INSERT INTO mt SELECT i, ('x' || substr(md5(i::text), 1, 16))::bit(64)::simhash FROM generate_series(1, 3000) i;
INSERT INTO mt
SELECT 10000 + b * 100 + m,
       base # (CASE WHEN m % 3 = 0 THEN '0' ELSE ((1::bigint << (m * 7 % 64)) | (1::bigint << (m * 13 % 64)))::simhash END)
            # (CASE WHEN m % 4 = 1 THEN (1::bigint << (m % 64))::simhash ELSE '0' END)
FROM (SELECT b, ('x' || substr(md5('base' || b), 1, 16))::bit(64)::simhash AS base FROM generate_series(1, 100) b) bases,
     generate_series(1, 1 + (b % 20)) m;
INSERT INTO mt VALUES (99999, NULL);
ANALYZE mt;
CREATE TABLE mq AS
SELECT sh AS q FROM mt WHERE id % 97 = 0 AND sh IS NOT NULL
UNION ALL SELECT ('x' || substr(md5('q' || i), 1, 16))::bit(64)::simhash FROM generate_series(1, 20) i;

-- mih_mismatches(k): queries whose answer through the index differs from a sequential scan's.
CREATE FUNCTION mih_mismatches(k int) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE n bigint := 0; q_ simhash; a bigint[]; b bigint[];
BEGIN
    FOR q_ IN SELECT q FROM mq LOOP
        SET LOCAL enable_seqscan = off; SET LOCAL enable_indexscan = off;
        SELECT array_agg(id ORDER BY id) INTO a FROM mt WHERE hamming(sh, q_) <= k;
        SET LOCAL enable_seqscan = on; SET LOCAL enable_bitmapscan = off;
        SELECT array_agg(id ORDER BY id) INTO b FROM mt WHERE hamming(sh, q_) <= k;
        RESET enable_seqscan; RESET enable_indexscan; RESET enable_bitmapscan;
        IF a IS DISTINCT FROM b THEN n := n + 1; END IF;
    END LOOP;
    RETURN n;
END $$;

CREATE INDEX mt_mih ON mt USING gin (sh simhash_mih_ops);
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM mt WHERE hamming(sh, '0123456789abcdef') <= 5;
EXPLAIN (COSTS OFF) SELECT id FROM mt WHERE sh <@ hamming_ball('0123456789abcdef', 5);
RESET enable_seqscan;
SELECT k, mih_mismatches(k) FROM unnest(ARRAY[-1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 32, 64, 100]) k;

-- Every allowed block count, and the limits of the option.
DO $$
DECLARE m int; bad bigint;
BEGIN
    FOR m IN 3..8 LOOP
        DROP INDEX mt_mih;
        EXECUTE format('CREATE INDEX mt_mih ON mt USING gin (sh simhash_mih_ops (blocks = %s))', m);
        SELECT sum(mih_mismatches(k)) INTO bad FROM unnest(ARRAY[0, 2, 3, 5, 8, 12]) k;
        RAISE NOTICE 'blocks=%: % mismatches', m, bad;
    END LOOP;
END $$;
CREATE INDEX ON mt USING gin (sh simhash_mih_ops (blocks = 2));
CREATE INDEX ON mt USING gin (sh simhash_mih_ops (blocks = 9));

-- After inserts, deletes, updates and VACUUM (with the GIN pending list in play).
DROP INDEX mt_mih;
CREATE INDEX mt_mih ON mt USING gin (sh simhash_mih_ops (blocks = 4));
INSERT INTO mt SELECT 50000 + i, ('x' || substr(md5('new' || i), 1, 16))::bit(64)::simhash FROM generate_series(1, 1000) i;
INSERT INTO mt SELECT 60000 + id, sh # '0000000000000101' FROM mt WHERE id BETWEEN 10000 AND 10500;
DELETE FROM mt WHERE id % 5 = 0;
UPDATE mt SET sh = sh # '8000000000000000' WHERE id % 7 = 0;
SELECT k, mih_mismatches(k) FROM unnest(ARRAY[0, 3, 5, 8, 64]) k;
VACUUM mt;
SELECT k, mih_mismatches(k) FROM unnest(ARRAY[0, 3, 5, 8, 64]) k;

-- NULLs and an empty table.
SELECT count(*) FROM mt WHERE hamming(sh, NULL) <= 5;
CREATE TABLE me (sh simhash);
CREATE INDEX ON me USING gin (sh simhash_mih_ops);
SET enable_seqscan = off;
SELECT count(*) FROM me WHERE hamming(sh, '0') <= 5;
RESET enable_seqscan;

-- The parameterized self-join can use it too.
EXPLAIN (COSTS OFF) SELECT count(*) FROM mt a JOIN mt b ON hamming(a.sh, b.sh) <= 3 AND a.id < b.id;
DROP TABLE mt, mq, me;
DROP FUNCTION mih_mismatches(int);
