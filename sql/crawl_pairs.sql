-- simhash_pairs, simhash_clusters, simhash_cluster_summary and simhash_band_keys.
\i sql/include/try.sql

-- Small exact cases: identical hashes, several pages sharing one hash, a chain of pages.
CREATE TABLE small (id bigint, sh simhash);
INSERT INTO small VALUES (1, '0'), (2, '0'), (3, '0'),          -- three identical
                         (10, 'f000'), (11, 'f001'), (12, 'f003'), (13, 'f007'), -- a chain, 1 bit apart
                         (20, 'ffffffffffffffff'), (30, NULL), (NULL, '1');
SELECT * FROM simhash_pairs('SELECT id, sh FROM small', 0) ORDER BY 1, 2;
SELECT * FROM simhash_pairs('SELECT id, sh FROM small', 1) ORDER BY 1, 2;
-- The chain 10-11-12-13 is one cluster at k=1 although 10 and 13 are 3 bits apart.
SELECT * FROM simhash_clusters('SELECT id, sh FROM small', 1) ORDER BY id;
SELECT * FROM simhash_clusters('SELECT id, sh FROM small', 1, singletons => true) ORDER BY id;
SELECT * FROM simhash_cluster_summary('SELECT id, sh FROM small', 1);
-- An empty source (or one of only NULLs) has no pairs and no clusters.
SELECT count(*) FROM simhash_pairs('SELECT id, sh FROM small WHERE false', 5);
SELECT count(*) FROM simhash_clusters('SELECT id, sh FROM small WHERE id IS NULL', 5, singletons => true);
-- k = 64: every pair; integer ids and bigint hashes are accepted too.
SELECT count(*) FROM simhash_pairs('SELECT id::int, sh::bigint FROM small WHERE id IS NOT NULL AND sh IS NOT NULL', 64);

-- Equal to a brute-force self-join on random and clustered data, for many radii.
CREATE TABLE crawl AS
SELECT i AS id, ('x' || substr(md5(i::text), 1, 16))::bit(64)::simhash AS sh FROM generate_series(1, 2000) i;
INSERT INTO crawl
SELECT 10000 + b * 100 + m,
       base # (CASE WHEN m % 3 = 0 THEN '0' ELSE ((1::bigint << (m * 7 % 64)::int) | (1::bigint << (m * 13 % 64)::int))::simhash END)
            # (CASE WHEN m % 4 = 1 THEN (1::bigint << (m % 64)::int)::simhash ELSE '0' END)
FROM (SELECT b, ('x' || substr(md5('base' || b), 1, 16))::bit(64)::simhash AS base FROM generate_series(1, 100) b) bases,
     generate_series(1, 1 + (b % 20)) m;
CREATE TABLE brute AS
SELECT a.id AS id_a, b.id AS id_b, hamming(a.sh, b.sh)::int AS distance
FROM crawl a JOIN crawl b ON a.id < b.id AND hamming(a.sh, b.sh) <= 20;
SELECT k,
       (SELECT count(*) FROM (SELECT * FROM simhash_pairs('SELECT id, sh FROM crawl', k)
                              EXCEPT ALL SELECT * FROM brute WHERE distance <= k) d) AS extra,
       (SELECT count(*) FROM (SELECT * FROM brute WHERE distance <= k
                              EXCEPT ALL SELECT * FROM simhash_pairs('SELECT id, sh FROM crawl', k)) d) AS missing,
       (SELECT count(*) FROM brute WHERE distance <= k) AS pairs
FROM unnest(ARRAY[0, 1, 2, 3, 5, 8, 12, 20]) k;

-- 100,000 rows: the same pairs as the self-join through the multi-index hashing index.
CREATE TABLE big AS
SELECT i AS id, ('x' || substr(md5(i::text), 1, 16))::bit(64)::simhash AS sh FROM generate_series(1, 90000) i;
INSERT INTO big SELECT 100000 + id, sh # ((1::bigint << (id % 64)::int) | (1::bigint << (id * 7 % 64)::int))::simhash FROM big WHERE id <= 10000;
CREATE INDEX ON big USING gin (sh simhash_mih_ops);
ANALYZE big;
SELECT count(*) AS pairs,
       count(*) FILTER (WHERE j.id_a IS NULL) AS missing_from_function,
       count(*) FILTER (WHERE f.id_a IS NULL) AS missing_from_join
FROM simhash_pairs('SELECT id, sh FROM big', 5) f
FULL JOIN (SELECT a.id AS id_a, b.id AS id_b, hamming(a.sh, b.sh) AS distance
           FROM big a JOIN big b ON hamming(a.sh, b.sh) <= 5 AND a.id < b.id) j USING (id_a, id_b);

-- Clusters agree with the pairs: every pair's two ids are in the same cluster.
SELECT count(*) AS pairs_split_across_clusters
FROM simhash_pairs('SELECT id, sh FROM crawl', 5) p
JOIN simhash_clusters('SELECT id, sh FROM crawl', 5) ca ON ca.id = p.id_a
JOIN simhash_clusters('SELECT id, sh FROM crawl', 5) cb ON cb.id = p.id_b
WHERE ca.cluster_id <> cb.cluster_id;

-- Band keys: hashes within k share a key; the documented equi-join finds every pair once.
SELECT simhash_band_keys('0123456789abcdef', 0), simhash_band_keys('0123456789abcdef', 3),
       simhash_band_keys('0123456789abcdef', 64);
SELECT count(*) AS pairs_without_shared_key
FROM crawl a JOIN crawl b ON a.id < b.id AND hamming(a.sh, b.sh) <= 5
WHERE NOT (simhash_band_keys(a.sh, 5) && simhash_band_keys(b.sh, 5));
SELECT count(*) AS equi_join_pairs FROM (
    SELECT DISTINCT a.id, b.id
    FROM (SELECT id, sh, unnest(simhash_band_keys(sh, 5)) AS key FROM crawl) a
    JOIN (SELECT id, sh, unnest(simhash_band_keys(sh, 5)) AS key FROM crawl) b
      ON a.key = b.key AND a.id < b.id
    WHERE hamming(a.sh, b.sh) <= 5) p;
SELECT count(*) AS function_pairs FROM simhash_pairs('SELECT id, sh FROM crawl', 5);

-- Bad input: each a clear error with its SQLSTATE.
SELECT pg_temp.try(q) FROM (VALUES
    ($$SELECT * FROM simhash_pairs('SELECT id, sh FROM small', -1)$$),
    ($$SELECT * FROM simhash_pairs('SELECT id, sh FROM small', 65)$$),
    ($$SELECT * FROM simhash_clusters('SELECT id, sh FROM small', 99)$$),
    ($$SELECT simhash_band_keys('0', -1)$$),
    ($$SELECT * FROM simhash_pairs('SELECT id FROM small')$$),
    ($$SELECT * FROM simhash_pairs('SELECT id, sh, 1 FROM small')$$),
    ($$SELECT * FROM simhash_pairs('SELECT id::text, sh FROM small')$$),
    ($$SELECT * FROM simhash_pairs('SELECT id, sh::text FROM small')$$),
    ($$SELECT * FROM simhash_pairs('SELECT 1::bigint, sh FROM small WHERE sh IS NOT NULL')$$),
    ($$SELECT * FROM simhash_pairs('SELEKT nonsense')$$),
    ($$SELECT * FROM simhash_pairs('SELECT id, sh FROM no_such_table')$$),
    ($$SELECT * FROM simhash_pairs('CREATE TABLE x (a int)')$$)) t(q);
SET simhash.pairs_memory_limit = '64kB';
SELECT pg_temp.try($$SELECT count(*) FROM simhash_pairs('SELECT id, sh FROM big')$$);
RESET simhash.pairs_memory_limit;
\set VERBOSITY default
SELECT * FROM simhash_pairs('SELECT 1::bigint, sh FROM small WHERE sh IS NOT NULL');
SELECT count(*) FROM simhash_pairs('SELECT id, sh FROM small', 3);

-- Cancellation: statement_timeout stops a long job (between its steps).
CREATE TABLE huge AS SELECT i AS id, ('x' || substr(md5(i::text), 1, 16))::bit(64)::simhash AS sh FROM generate_series(1, 300000) i;
SET statement_timeout = '300ms';
SELECT count(*) FROM simhash_pairs('SELECT id, sh FROM huge', 20);
RESET statement_timeout;
-- The cancelled job's threads are gone: the session runs the next job normally, on one thread too.
SET simhash.job_threads = 1;
SELECT count(*) FROM simhash_pairs('SELECT id, sh FROM crawl', 5);
RESET simhash.job_threads;
SELECT pg_temp.try($$SET simhash.job_threads = 0$$);
DROP TABLE small, crawl, brute, big, huge;
