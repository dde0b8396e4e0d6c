-- Permuted tables: the all-pairs job as a cluster runs it, one key group at a time, on one server.
\i sql/include/try.sql

-- Random pages, clusters of near copies, and 600 pages sharing their lowest 11 bits (block 0 of
-- 6), a dozen of them identical: one key group past the brute-force size runs the in-memory job.
CREATE TABLE sharded_pages AS
SELECT i AS id, ('x' || substr(md5(i::text), 1, 16))::bit(64)::simhash AS sh FROM generate_series(1, 1500) i;
INSERT INTO sharded_pages
SELECT 10000 + b * 100 + m,
       base # (CASE WHEN m % 3 = 0 THEN '0' ELSE ((1::bigint << (m * 7 % 64)::int) | (1::bigint << (m * 13 % 64)::int))::simhash END)
            # (CASE WHEN m % 4 = 1 THEN (1::bigint << (m % 64)::int)::simhash ELSE '0' END)
FROM (SELECT b, ('x' || substr(md5('base' || b), 1, 16))::bit(64)::simhash AS base FROM generate_series(1, 80) b) bases,
     generate_series(1, 1 + (b % 20)) m;
INSERT INTO sharded_pages
SELECT 50000 + i, CASE WHEN i % 50 = 0 THEN 'c0ffee00c0ffe123'::simhash
                       ELSE ((('x' || substr(md5('p' || i), 1, 16))::bit(64)::bigint & ~2047) | 291)::simhash END
FROM generate_series(1, 600) i;

-- The recipe: every row in each of its keys' groups, each group's own pairs; equal to
-- simhash_pairs, each pair once, for several radii and block counts.
CREATE FUNCTION pg_temp.sharded_pairs(k integer, blocks integer)
RETURNS TABLE (id_a bigint, id_b bigint, distance integer) LANGUAGE sql AS $$
    SELECT p.*
    FROM (SELECT key, array_agg(id) AS ids, array_agg(sh) AS shs
          FROM sharded_pages, unnest(simhash_table_keys(sh, k, blocks)) key
          GROUP BY key) g,
         simhash_group_pairs(g.key, g.ids, g.shs, k, blocks) p
$$;
SELECT k, blocks,
       (SELECT count(*) FROM (SELECT * FROM pg_temp.sharded_pairs(k, blocks)
                              EXCEPT ALL SELECT * FROM simhash_pairs('SELECT id, sh FROM sharded_pages', k)) d) AS extra,
       (SELECT count(*) FROM (SELECT * FROM simhash_pairs('SELECT id, sh FROM sharded_pages', k)
                              EXCEPT ALL SELECT * FROM pg_temp.sharded_pairs(k, blocks)) d) AS missing,
       (SELECT count(*) FROM simhash_pairs('SELECT id, sh FROM sharded_pages', k)) AS pairs
FROM (VALUES (0, 1), (0, 2), (1, 2), (3, 4), (3, 6), (5, 6), (5, 7), (5, 8), (8, 9), (8, 10), (12, 5)) v(k, blocks);

-- The bulk form a cluster runs: each part (here id % 3) groups its own rows by key
-- (simhash_key_groups: one row a key, its rows packed), the parts of a key are joined with
-- string_agg and paired from the packed rows. Equal to simhash_pairs, each pair once.
CREATE FUNCTION pg_temp.bulk_pairs(k integer, blocks integer)
RETURNS TABLE (id_a bigint, id_b bigint, distance integer) LANGUAGE sql AS $$
    SELECT p.*
    FROM (SELECT g.key, string_agg(g.key_rows, '' ORDER BY a.part) AS key_rows
          FROM (SELECT id % 3 AS part, array_agg(id) AS ids, array_agg(sh) AS shs FROM sharded_pages GROUP BY 1) a,
               simhash_key_groups(a.ids, a.shs, k, blocks) g
          GROUP BY g.key) g,
         simhash_group_pairs(g.key, g.key_rows, k, blocks) p
$$;
SELECT k, blocks,
       (SELECT count(*) FROM (SELECT * FROM pg_temp.bulk_pairs(k, blocks)
                              EXCEPT ALL SELECT * FROM simhash_pairs('SELECT id, sh FROM sharded_pages', k)) d) AS extra,
       (SELECT count(*) FROM (SELECT * FROM simhash_pairs('SELECT id, sh FROM sharded_pages', k)
                              EXCEPT ALL SELECT * FROM pg_temp.bulk_pairs(k, blocks)) d) AS missing
FROM (VALUES (0, 1), (1, 2), (3, 4), (5, 6), (5, 8), (8, 9), (12, 5)) v(k, blocks);

-- Every row once in each of its keys' groups: as many groups as distinct keys, 16 bytes a row;
-- the bytes are the id, then the hash, little-endian.
WITH g AS (
    SELECT g.* FROM (SELECT array_agg(id) AS ids, array_agg(sh) AS shs FROM sharded_pages) a,
                    simhash_key_groups(a.ids, a.shs, 5, 6) g
)
SELECT (SELECT count(*) FROM g) = (SELECT count(DISTINCT key) FROM sharded_pages, unnest(simhash_table_keys(sh, 5, 6)) key)
           AS one_row_a_key,
       (SELECT sum(length(key_rows)) FROM g) = 16 * 6 * (SELECT count(*) FROM sharded_pages) AS six_memberships_a_row,
       (SELECT bool_and(length(key_rows) % 16 = 0) FROM g) AS whole_rows;
SELECT * FROM simhash_key_groups('{1,258}', '{0102030405060708,0102030405060709}', 0, 1);
SELECT * FROM simhash_key_groups('{}', '{}', 5, 6);

-- The same as a plain equi-join on the key with the ownership rule (the form a cluster that cannot
-- run a function per group uses): each pair once.
WITH keyed AS (
    SELECT id, sh, key FROM sharded_pages, unnest(simhash_table_keys(sh, 5, 6)) key
)
SELECT (SELECT count(*) FROM (
            SELECT a.id, b.id, hamming(a.sh, b.sh)::int FROM keyed a JOIN keyed b ON a.key = b.key AND a.id < b.id
            WHERE hamming(a.sh, b.sh) <= 5 AND simhash_pair_table(a.sh, b.sh, 5, 6) = simhash_key_table(a.key)
            EXCEPT ALL SELECT * FROM simhash_pairs('SELECT id, sh FROM sharded_pages', 5)) d) AS extra,
       (SELECT count(*) FROM (
            SELECT * FROM simhash_pairs('SELECT id, sh FROM sharded_pages', 5)
            EXCEPT ALL SELECT a.id, b.id, hamming(a.sh, b.sh)::int FROM keyed a JOIN keyed b ON a.key = b.key AND a.id < b.id
            WHERE hamming(a.sh, b.sh) <= 5 AND simhash_pair_table(a.sh, b.sh, 5, 6) = simhash_key_table(a.key)) d) AS missing;

-- Keys: one per table (C(blocks, blocks - k)), each naming its table; the ownership rule.
SELECT cardinality(simhash_table_keys('0123456789abcdef', 5, 6)) AS six,
       cardinality(simhash_table_keys('0123456789abcdef', 5, 8)) AS fifty_six,
       cardinality(simhash_table_keys('0123456789abcdef', 5, 5)) AS one;
SELECT array_agg(simhash_key_table(key) ORDER BY n) = array_agg((n - 1)::int ORDER BY n) AS numbered
FROM unnest(simhash_table_keys('0123456789abcdef', 5, 8)) WITH ORDINALITY u(key, n);
SELECT simhash_table_keys('0123456789abcdef', 5, 6);
SELECT simhash_pair_table('0', '0', 5, 6) AS same,
       simhash_pair_table('0', '1', 5, 6) AS first_block_differs,
       simhash_pair_table('0', '3f', 5, 6) AS six_bits_in_block_0,
       simhash_pair_table('0', 'ffffffffffffffff', 5, 6) AS too_far;

-- Errors: radius, blocks, too many tables, a group that mixes keys, ids twice, arrays.
SELECT pg_temp.try($$SELECT simhash_table_keys('0', -1, 6)$$);
SELECT pg_temp.try($$SELECT simhash_table_keys('0', 65, 6)$$);
SELECT pg_temp.try($$SELECT simhash_table_keys('0', 5, 0)$$);
SELECT pg_temp.try($$SELECT simhash_table_keys('0', 5, 65)$$);
SELECT pg_temp.try($$SELECT simhash_table_keys('0', 8, 24)$$);
SELECT pg_temp.try($$SELECT simhash_pair_table('0', '0', 5, 0)$$);
SELECT pg_temp.try($$SELECT simhash_key_table(-1)$$);
SELECT pg_temp.try($$SELECT * FROM simhash_group_pairs((simhash_table_keys('0', 5, 6))[1], '{1,2}', '{0,ffffffffffffffff}', 5, 6)$$);
SELECT pg_temp.try($$SELECT * FROM simhash_group_pairs((simhash_table_keys('0', 5, 6))[1], '{1,1}', '{0,0}', 5, 6)$$);
SELECT pg_temp.try($$SELECT * FROM simhash_group_pairs((simhash_table_keys('0', 5, 6))[1], '{1,2}', '{0}', 5, 6)$$);
SELECT pg_temp.try($$SELECT * FROM simhash_group_pairs((simhash_table_keys('0', 5, 6))[1], '{1,NULL}', '{0,0}', 5, 6)$$);
SELECT pg_temp.try($$SELECT * FROM simhash_group_pairs((simhash_table_keys('0', 5, 6))[1], '{{1},{2}}', '{{0},{0}}', 5, 6)$$);
SELECT pg_temp.try($$SELECT * FROM simhash_group_pairs(6::bigint << 48, '{1}', '{0}', 5, 6)$$);
SELECT pg_temp.try($$SELECT * FROM simhash_group_pairs((simhash_table_keys('0', 5, 6))[1], '{1,2}', '{0,0}', 5, 7)$$);
SELECT count(*) AS empty_group FROM simhash_group_pairs(0, '{}', '{}', 5, 6);
-- ... and in the bulk form: ragged arrays, NULLs, bad radius, rows that are not whole, a row of
-- another key, the same id from two parts.
SELECT pg_temp.try($$SELECT * FROM simhash_key_groups('{1,2}', '{0}', 5, 6)$$);
SELECT pg_temp.try($$SELECT * FROM simhash_key_groups('{1,NULL}', '{0,0}', 5, 6)$$);
SELECT pg_temp.try($$SELECT * FROM simhash_key_groups('{{1},{2}}', '{{0},{0}}', 5, 6)$$);
SELECT pg_temp.try($$SELECT * FROM simhash_key_groups('{1}', '{0}', 65, 6)$$);
SELECT pg_temp.try($$SELECT * FROM simhash_group_pairs(0, '\x0100000000000000000000000000000000', 5, 6)$$);
SELECT pg_temp.try($$SELECT * FROM simhash_group_pairs((simhash_table_keys('0', 5, 6))[1],
    '\x01000000000000000000000000000000'::bytea || '\x0200000000000000ffffffffffffffff'::bytea, 5, 6)$$);
SELECT pg_temp.try($$SELECT * FROM simhash_group_pairs((simhash_table_keys('0', 5, 6))[1],
    '\x01000000000000000000000000000000'::bytea || '\x01000000000000000000000000000000'::bytea, 5, 6)$$);
SELECT count(*) AS empty_packed_group FROM simhash_group_pairs(0, '', 5, 6);
-- Both forms keep within simhash.pairs_memory_limit: more is an error, not a slow job. (Radius 12
-- over 5 blocks is one table: one group holding every row.)
CREATE TEMP TABLE one_group AS
SELECT g.* FROM (SELECT array_agg(id) AS ids, array_agg(sh) AS shs FROM sharded_pages) a,
                simhash_key_groups(a.ids, a.shs, 12, 5) g;
SELECT count(*) AS one_group, sum(length(key_rows)) / 16 = (SELECT count(*) FROM sharded_pages) AS every_row FROM one_group;
SET simhash.pairs_memory_limit = '64kB';
SELECT pg_temp.try($$SELECT count(*) FROM (SELECT array_agg(id) AS ids, array_agg(sh) AS shs FROM sharded_pages) a,
                                          simhash_key_groups(a.ids, a.shs, 5, 6) g$$);
SELECT pg_temp.try($$SELECT count(*) FROM one_group g, simhash_group_pairs(g.key, g.key_rows, 12, 5)$$);
SELECT pg_temp.try($$SELECT count(*) FROM (SELECT array_agg(id) AS ids, array_agg(sh) AS shs FROM sharded_pages) a,
                                          simhash_group_pairs((SELECT key FROM one_group), a.ids, a.shs, 12, 5)$$);
RESET simhash.pairs_memory_limit;
DROP TABLE one_group;
-- A cancel stops the grouping of a large part (it checks between tables and between groups).
CREATE TEMP TABLE big_part AS
SELECT array_agg(i) AS ids, array_agg(((i * 2654435761) # (i << 40))::simhash) AS shs FROM generate_series(1, 2000000) i;
SET statement_timeout = '100ms';
SELECT count(*) FROM big_part a, simhash_key_groups(a.ids, a.shs, 5, 6) g;
RESET statement_timeout;
DROP TABLE big_part;
DROP TABLE sharded_pages;
