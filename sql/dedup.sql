-- Duplicate clusters kept current (simhash_dedup_*): after every kind of change and a run, the
-- partition into clusters equals simhash_clusters' (or simhash_clusters_confirmed's) over the same
-- rows; cluster ids stay put as clusters grow, merge and split; exactly one canonical page per
-- cluster, the first by keep; the backlog and lag; bad arguments, other roles, tables of other
-- shapes in one session, DROP TABLE and DROP COLUMN, DROP EXTENSION.
\i sql/include/try.sql
\i sql/include/dedup_foreground.sql
SELECT current_database() AS regress_db \gset
SET client_min_messages = warning;
DROP ROLE IF EXISTS dedup_owner;
DROP ROLE IF EXISTS dedup_other;
DROP ROLE IF EXISTS dedup_bi;
DROP ROLE IF EXISTS dedup_writer;
DROP DATABASE IF EXISTS dedup_scratch;
RESET client_min_messages;

-- dd_check(tbl, src, k, minr, keep): the registered table's clusters against the batch job's over
-- the same rows: pages in clusters, clusters, pages whose cluster (as its smallest page) differs,
-- and clusters whose canonical pages are not exactly the first by keep (then by id); an error when
-- simhash_dedup_status's counts differ from the members'.
CREATE FUNCTION pg_temp.dd_check(t regclass, src text, k int, minr float8 DEFAULT NULL, id_col text DEFAULT 'id',
                                 keep text DEFAULT NULL)
    RETURNS TABLE (pages bigint, clusters bigint, differences bigint, canonical_wrong bigint) LANGUAGE plpgsql AS $$
BEGIN
    IF minr IS NULL THEN
        CREATE TEMP TABLE dd_exp AS SELECT c.id AS e_id, c.cluster_id AS e_rep FROM simhash_clusters(src, k) c;
    ELSE
        CREATE TEMP TABLE dd_exp AS SELECT c.id AS e_id, c.cluster_id AS e_rep FROM simhash_clusters_confirmed(src, k, minr) c;
    END IF;
    CREATE TEMP TABLE dd_got AS
    SELECT c.id AS dd_id, min(c.id) OVER (PARTITION BY c.cluster_id) AS dd_rep, c.cluster_id AS dd_cluster,
           c.canonical AS dd_canonical
    FROM simhash_dedup_clusters(t) c;
    pages := (SELECT count(*) FROM dd_got);
    clusters := (SELECT count(DISTINCT dd_cluster) FROM dd_got);
    differences := (SELECT count(*) FROM dd_got g FULL JOIN dd_exp e ON e.e_id = g.dd_id WHERE g.dd_rep IS DISTINCT FROM e.e_rep);
    EXECUTE format('SELECT count(*) FROM (SELECT g.dd_cluster, count(*) FILTER (WHERE g.dd_canonical) AS n,
                           (array_agg(g.dd_id ORDER BY %s, g.dd_id))[1] AS first, min(g.dd_id) FILTER (WHERE g.dd_canonical) AS chosen
                    FROM dd_got g JOIN %s p ON p.%I = g.dd_id GROUP BY g.dd_cluster) x
                    WHERE x.n <> 1 OR x.first <> x.chosen', coalesce(keep, 'g.dd_id'), t, id_col)
        INTO canonical_wrong;
    -- status reports counters kept by each batch: they must be what the members say
    IF (SELECT (s.pages, s.clusters) IS DISTINCT FROM (dd_check.pages, dd_check.clusters) FROM simhash_dedup_status(t) s) THEN
        RAISE EXCEPTION 'simhash_dedup_status counts % pages in % clusters; the members are % in %',
            (SELECT s.pages FROM simhash_dedup_status(t) s), (SELECT s.clusters FROM simhash_dedup_status(t) s), pages, clusters;
    END IF;
    DROP TABLE dd_exp, dd_got;
    RETURN NEXT;
END $$;

-- A crawl in a schema and table whose names need quoting, an integer id. Clusters of k = 3: a base
-- page and up to 5 members two bits from it, in two groups (members of a group are 2 bits apart,
-- of different groups 4): without its base a cluster splits in two. Pages with random hashes, and
-- pages without a hash.
CREATE SCHEMA "Dedup Crawl";
CREATE TABLE "Dedup Crawl"."Page" (page_id integer PRIMARY KEY, url text NOT NULL, body_hash simhash);
CREATE FUNCTION pg_temp.dd_hash(b int, m int) RETURNS simhash LANGUAGE sql AS $$
    SELECT (('x' || substr(md5('dd' || b), 1, 16))::bit(64)::bigint
            # CASE WHEN m = 0 THEN 0 ELSE (1::bigint << ((b + (m % 2) * 20) % 64)) | (1::bigint << ((b + 30 + m) % 64)) END)::simhash $$;
CREATE FUNCTION pg_temp.dd_pages(first_base int, last_base int) RETURNS TABLE (page_id int, url text, body_hash simhash)
    LANGUAGE sql AS $$
    SELECT b * 100 + m, 'https://site' || b || '.example/' || repeat('p', m) || m, pg_temp.dd_hash(b, m)
    FROM generate_series(first_base, last_base) b, generate_series(0, b % 6) m $$;
INSERT INTO "Dedup Crawl"."Page" SELECT * FROM pg_temp.dd_pages(1, 120);
INSERT INTO "Dedup Crawl"."Page"
SELECT 50000 + i, 'https://random.example/' || i, ('x' || substr(md5('random' || i), 1, 16))::bit(64)::simhash
FROM generate_series(1, 200) i;
INSERT INTO "Dedup Crawl"."Page" SELECT 60000 + i, 'https://nohash.example/' || i, NULL FROM generate_series(1, 5) i;
CREATE INDEX "Page_mih" ON "Dedup Crawl"."Page" USING simhash_mih (body_hash);
ANALYZE "Dedup Crawl"."Page";
\set src '''SELECT page_id, body_hash FROM "Dedup Crawl"."Page" WHERE body_hash IS NOT NULL'''
\set keep '''length(url) DESC, page_id'''

-- Start: the clusters of the batch job at once; the canonical page is the one with the longest url.
SELECT simhash_dedup_start('"Dedup Crawl"."Page"', 'page_id', 'body_hash', k => 3, keep => 'length(url) DESC, page_id')
       AS clusters;
SELECT * FROM pg_temp.dd_check('"Dedup Crawl"."Page"', :src, 3, NULL, 'page_id', :keep);
SELECT pages, clusters, backlog, lag FROM simhash_dedup_status('"Dedup Crawl"."Page"');
-- The probe of a changed page is an index condition (on a table this small the planner prefers a
-- sequential scan, hence enable_seqscan = off).
SET enable_seqscan = off;
EXPLAIN (COSTS OFF)
SELECT d.page_id, x.id FROM "Dedup Crawl"."Page" d
CROSS JOIN LATERAL (SELECT n.page_id AS id FROM "Dedup Crawl"."Page" n
                    WHERE hamming_within(n.body_hash, d.body_hash, 3) AND n.page_id <> d.page_id) x
WHERE d.page_id = 1000;
RESET enable_seqscan;
CREATE TEMP TABLE ids0 AS SELECT * FROM simhash_dedup_clusters('"Dedup Crawl"."Page"');

-- Inserts: clusters grow (a member of group 1 for bases with 1..2 members), new clusters, random
-- pages get a near-duplicate. Nothing is applied until a run; then the backlog is empty.
INSERT INTO "Dedup Crawl"."Page" SELECT b * 100 + 5, 'https://site' || b || '.example/grown', pg_temp.dd_hash(b, 5)
FROM generate_series(1, 120) b WHERE b % 6 IN (1, 2);
INSERT INTO "Dedup Crawl"."Page" SELECT * FROM pg_temp.dd_pages(121, 140);
INSERT INTO "Dedup Crawl"."Page"
SELECT 51000 + i, 'https://random.example/copy/' || i, ('x' || substr(md5('random' || i), 1, 16))::bit(64)::simhash # '0000000000000001'
FROM generate_series(1, 10) i;
SELECT backlog, lag > '0' AS lagging FROM simhash_dedup_status('"Dedup Crawl"."Page"');
SELECT count(*) AS copies_in_clusters FROM simhash_dedup_clusters('"Dedup Crawl"."Page"') WHERE id BETWEEN 50001 AND 51010;
-- (no background worker here: waiting for it times out)
SELECT simhash_dedup_wait('"Dedup Crawl"."Page"', '50 milliseconds') AS caught_up;
SELECT simhash_dedup_run('"Dedup Crawl"."Page"') AS applied;
SELECT backlog, lag FROM simhash_dedup_status('"Dedup Crawl"."Page"');
SELECT simhash_dedup_wait('"Dedup Crawl"."Page"') AS caught_up;
SELECT pg_temp.try($$SELECT simhash_dedup_wait('pg_class')$$);
SELECT count(*) AS copies_in_clusters FROM simhash_dedup_clusters('"Dedup Crawl"."Page"') WHERE id BETWEEN 50001 AND 51010;
SELECT * FROM pg_temp.dd_check('"Dedup Crawl"."Page"', :src, 3, NULL, 'page_id', :keep);
-- A cluster keeps its id as it grows.
SELECT count(*) AS grown_pages, count(*) FILTER (WHERE c.cluster_id = o.cluster_id) AS same_cluster_id
FROM ids0 o JOIN simhash_dedup_clusters('"Dedup Crawl"."Page"') c ON c.id = o.id
WHERE o.id / 100 % 6 IN (1, 2) AND o.id < 12100;

-- A rolled-back insert leaves nothing to apply.
BEGIN;
INSERT INTO "Dedup Crawl"."Page" VALUES (70001, 'https://rolled.back/', pg_temp.dd_hash(7, 1) # '0000000000000001');
ROLLBACK;
SELECT backlog FROM simhash_dedup_status('"Dedup Crawl"."Page"');

-- Merge and split. Cluster M1 (two pages), later M2 (two pages, 6 bits away); a page within 3 bits
-- of both merges them under the older (smaller) id. Deleting it splits them again: the part with
-- the canonical page (the longest url, in M2) keeps the id, the other gets a new one.
INSERT INTO "Dedup Crawl"."Page" VALUES (900001, 'https://m1.example/', 'ffff0000ffff0000'),
    (900002, 'https://m1.example/b', ('ffff0000ffff0000'::simhash::bigint # (1::bigint << 40))::simhash);
SELECT simhash_dedup_run('"Dedup Crawl"."Page"') AS applied;
INSERT INTO "Dedup Crawl"."Page" VALUES (900011, 'https://m2.example/with/the/longest/url', 'ffff0000ffff003f'),
    (900012, 'https://m2.example/b', ('ffff0000ffff003f'::simhash::bigint # (1::bigint << 50))::simhash);
SELECT simhash_dedup_run('"Dedup Crawl"."Page"') AS applied;
CREATE TEMP TABLE m AS
SELECT (SELECT cluster_id FROM simhash_dedup_clusters('"Dedup Crawl"."Page"') WHERE id = 900001) AS m1,
       (SELECT cluster_id FROM simhash_dedup_clusters('"Dedup Crawl"."Page"') WHERE id = 900011) AS m2;
SELECT m1 < m2 AS m1_is_older FROM m;
INSERT INTO "Dedup Crawl"."Page" VALUES (900021, 'https://bridge.example/', 'ffff0000ffff0007');
SELECT simhash_dedup_run('"Dedup Crawl"."Page"') AS applied;
SELECT c.id, c.cluster_id = m.m1 AS has_m1_id, c.canonical
FROM simhash_dedup_clusters('"Dedup Crawl"."Page"') c, m WHERE c.id > 900000 ORDER BY c.id;
DELETE FROM "Dedup Crawl"."Page" WHERE page_id = 900021;
SELECT simhash_dedup_run('"Dedup Crawl"."Page"') AS applied;
SELECT c.id, c.cluster_id = m.m1 AS has_m1_id, c.cluster_id > m.m2 AS new_id, c.canonical
FROM simhash_dedup_clusters('"Dedup Crawl"."Page"') c, m WHERE c.id > 900000 ORDER BY c.id;
SELECT * FROM pg_temp.dd_check('"Dedup Crawl"."Page"', :src, 3, NULL, 'page_id', :keep);

-- Deletes that split clusters: the bases of clusters with both groups. Each splits in two, and the
-- part with the old canonical page keeps the id.
CREATE TEMP TABLE before_split AS SELECT * FROM simhash_dedup_clusters('"Dedup Crawl"."Page"');
DELETE FROM "Dedup Crawl"."Page" WHERE page_id % 100 = 0 AND page_id / 100 % 6 IN (3, 4, 5) AND page_id < 10000;
SELECT simhash_dedup_run('"Dedup Crawl"."Page"') AS applied;
SELECT * FROM pg_temp.dd_check('"Dedup Crawl"."Page"', :src, 3, NULL, 'page_id', :keep);
SELECT count(*) AS split_clusters,
       count(*) FILTER (WHERE (SELECT c.cluster_id FROM simhash_dedup_clusters('"Dedup Crawl"."Page"') c WHERE c.id = b.id) = b.cluster_id)
           AS canonical_part_kept_id
FROM before_split b WHERE b.canonical AND b.id / 100 % 6 IN (3, 4, 5) AND b.id < 10000;

-- Hash updates: members move a bit, random pages become near-duplicates of a cluster, pages take
-- new ids; an update of another column queues nothing.
UPDATE "Dedup Crawl"."Page" SET url = url || '?' WHERE page_id < 3000;
SELECT backlog AS after_url_update FROM simhash_dedup_status('"Dedup Crawl"."Page"');
UPDATE "Dedup Crawl"."Page" SET body_hash = body_hash # '8000000000000000' WHERE page_id % 100 = 1 AND page_id < 6000;
UPDATE "Dedup Crawl"."Page" SET body_hash = pg_temp.dd_hash(page_id - 50100, 0) # '0000000000000100'
WHERE page_id BETWEEN 50101 AND 50110;
UPDATE "Dedup Crawl"."Page" SET page_id = page_id + 700000 WHERE page_id BETWEEN 2000 AND 2599;
SELECT backlog FROM simhash_dedup_status('"Dedup Crawl"."Page"');
SELECT simhash_dedup_run('"Dedup Crawl"."Page"') AS applied;
SELECT * FROM pg_temp.dd_check('"Dedup Crawl"."Page"', :src, 3, NULL, 'page_id', :keep);

-- max_changes: a run applies at most that many; the rest waits.
INSERT INTO "Dedup Crawl"."Page" SELECT * FROM pg_temp.dd_pages(141, 150);
SELECT backlog FROM simhash_dedup_status('"Dedup Crawl"."Page"');
SELECT simhash_dedup_run('"Dedup Crawl"."Page"', max_changes => 10) AS applied;
SELECT backlog FROM simhash_dedup_status('"Dedup Crawl"."Page"');
SELECT simhash_dedup_run('"Dedup Crawl"."Page"') AS applied;
SELECT * FROM pg_temp.dd_check('"Dedup Crawl"."Page"', :src, 3, NULL, 'page_id', :keep);

-- TRUNCATE, then the same rows again.
CREATE TEMP TABLE saved AS SELECT * FROM "Dedup Crawl"."Page";
GRANT SELECT ON saved TO PUBLIC;
TRUNCATE "Dedup Crawl"."Page";
SELECT backlog FROM simhash_dedup_status('"Dedup Crawl"."Page"');
SELECT simhash_dedup_run('"Dedup Crawl"."Page"') AS applied;
SELECT pages, clusters, backlog FROM simhash_dedup_status('"Dedup Crawl"."Page"');
INSERT INTO "Dedup Crawl"."Page" SELECT * FROM saved;
SELECT simhash_dedup_run('"Dedup Crawl"."Page"') AS applied;
SELECT * FROM pg_temp.dd_check('"Dedup Crawl"."Page"', :src, 3, NULL, 'page_id', :keep);

-- Confirmed: a bigint id, a sketch column; pairs must also reach min_resemblance. Pages of 20
-- topics in variants with 0..3 x 4 words of 120 changed (README "Confirmed duplicates").
CREATE TABLE dedup_site (id bigint PRIMARY KEY, url text, body text,
    sh simhash GENERATED ALWAYS AS (simhash(body)) STORED,
    sk resemblance_sketch GENERATED ALWAYS AS (resemblance_sketch(body)) STORED);
CREATE FUNCTION pg_temp.dd_body(t int, v int) RETURNS text LANGUAGE sql AS $$
    SELECT string_agg(CASE WHEN v > 0 AND w % 60 < v * 2 THEN 'changed' || v || '_' || w ELSE 'topic' || t || '_word' || w END,
                      ' ' ORDER BY w)
    FROM generate_series(1, 120) w $$;
INSERT INTO dedup_site (id, url, body)
SELECT t * 10 + v, 'https://example.com/' || t || '/' || v, pg_temp.dd_body(t, v)
FROM generate_series(1, 20) t, generate_series(0, 3) v;
CREATE INDEX ON dedup_site USING simhash_mih (sh);
\set csrc '''SELECT id, sh, sk FROM dedup_site'''
SELECT simhash_dedup_start('dedup_site', 'id', 'sh', k => 7, sketch_column => 'sk', min_resemblance => 0.9) AS clusters;
SELECT * FROM pg_temp.dd_check('dedup_site', :csrc, 7, 0.9);
-- (the same rows without confirmation form other clusters: the check is not vacuous)
SELECT count(*) AS unconfirmed_pages FROM simhash_clusters('SELECT id, sh FROM dedup_site', 7);
UPDATE dedup_site SET body = pg_temp.dd_body(id::int / 10, 1) WHERE id % 10 = 3 AND id < 100;
DELETE FROM dedup_site WHERE id % 10 = 0 AND id > 150;
INSERT INTO dedup_site (id, url, body)
SELECT t * 10 + 4, 'https://example.com/' || t || '/4', pg_temp.dd_body(t, 1) || ' more' FROM generate_series(1, 20) t;
SELECT simhash_dedup_run('dedup_site') AS applied;
SELECT * FROM pg_temp.dd_check('dedup_site', :csrc, 7, 0.9);

-- Errors, with their SQLSTATEs.
SELECT pg_temp.try($$SELECT simhash_dedup_start('dedup_site', 'nope', 'sh')$$);
SELECT pg_temp.try($$SELECT simhash_dedup_start('dedup_site', 'id', 'nope')$$);
SELECT pg_temp.try($$SELECT simhash_dedup_start('dedup_site', 'url', 'sh')$$);
SELECT pg_temp.try($$SELECT simhash_dedup_start('dedup_site', 'id', 'url')$$);
SELECT pg_temp.try($$SELECT simhash_dedup_start('dedup_site', 'id', 'sh', sketch_column => 'body')$$);
SELECT pg_temp.try($$SELECT simhash_dedup_start('dedup_site', 'id', 'sh', sketch_column => 'sk', min_resemblance => 1.5)$$);
SELECT pg_temp.try($$SELECT simhash_dedup_start('dedup_site', 'id', 'sh', k => 65)$$);
SELECT pg_temp.try($$SELECT simhash_dedup_start('dedup_site', 'id', 'sh', k => -1)$$);
SELECT pg_temp.try($$SELECT simhash_dedup_start('dedup_site', 'id', NULL)$$);
SELECT pg_temp.try($$SELECT simhash_dedup_start('dedup_site', 'id', 'sh')$$);
CREATE TABLE dedup_other (id int PRIMARY KEY, sh simhash, url text);
CREATE INDEX ON dedup_other USING simhash_mih (sh);
SELECT pg_temp.try($$SELECT simhash_dedup_start('dedup_other', 'id', 'sh', keep => 'nope')$$);
SELECT pg_temp.try($$SELECT simhash_dedup_start('dedup_other', 'id', 'sh', keep => 'id; DROP TABLE dedup_site')$$);
SELECT pg_temp.try($$SELECT simhash_dedup_start('dedup_other', 'id', 'sh', keep => 'ORDER')$$);
CREATE VIEW dedup_view AS SELECT * FROM dedup_other;
SELECT pg_temp.try($$SELECT simhash_dedup_start('dedup_view', 'id', 'sh')$$);
SELECT pg_temp.try($$SELECT simhash_dedup_stop('dedup_other')$$);
SELECT pg_temp.try($$SELECT simhash_dedup_run('dedup_other')$$);
SELECT pg_temp.try($$SELECT * FROM simhash_dedup_status('dedup_other')$$);
SELECT pg_temp.try($$SELECT * FROM simhash_dedup_clusters('dedup_other')$$);
SELECT pg_temp.try($$SELECT simhash_dedup_run('dedup_site', max_changes => 0)$$);
-- nothing of the refused starts is left behind
SELECT count(*) AS registered, (SELECT count(*) FROM pg_trigger WHERE tgrelid = 'dedup_other'::regclass) AS triggers
FROM simhash_dedup_tables WHERE tbl = 'dedup_other'::regclass;

-- Other roles. A table of its own owner: other roles may neither start, run nor stop it; a role
-- that may read it reads its clusters (the relation simhash_dedup_members, with SELECT on the
-- table); a writer's changes are queued; a superuser's run over every table works on it as its
-- owner; its owner's DROP TABLE forgets it.
CREATE ROLE dedup_owner;
CREATE ROLE dedup_other;
CREATE ROLE dedup_bi;
CREATE ROLE dedup_writer;
GRANT USAGE, CREATE ON SCHEMA "Dedup Crawl" TO dedup_owner;
GRANT USAGE ON SCHEMA "Dedup Crawl" TO dedup_other, dedup_bi, dedup_writer;
SET ROLE dedup_owner;
CREATE TABLE "Dedup Crawl".owned (id bigint PRIMARY KEY, sh simhash);
CREATE INDEX ON "Dedup Crawl".owned USING simhash_mih (sh);
INSERT INTO "Dedup Crawl".owned SELECT page_id, body_hash FROM saved WHERE page_id < 5000;
SELECT simhash_dedup_start('"Dedup Crawl".owned', 'id', 'sh', 3) AS clusters;
GRANT INSERT ON "Dedup Crawl".owned TO dedup_writer;
GRANT SELECT ON "Dedup Crawl".owned TO dedup_bi;
RESET ROLE;
SET ROLE dedup_other;
SELECT pg_temp.try($$SELECT simhash_dedup_start('dedup_site', 'id', 'sh')$$);
SELECT pg_temp.try($$SELECT simhash_dedup_run('"Dedup Crawl".owned')$$);
SELECT pg_temp.try($$SELECT simhash_dedup_stop('"Dedup Crawl".owned')$$);
SELECT pg_temp.try($$SELECT * FROM simhash_dedup_clusters('"Dedup Crawl".owned')$$);
SELECT pg_temp.try($$SELECT * FROM simhash_dedup_status('"Dedup Crawl".owned')$$);
SELECT count(*) AS rows_seen FROM simhash_dedup_members;
SELECT pg_temp.try($$DELETE FROM simhash_dedup_members$$), pg_temp.try($$INSERT INTO simhash_dedup_members VALUES ('"Dedup Crawl".owned', 1, 1, true)$$);
SELECT simhash_dedup_run() AS applied_by_other;
RESET ROLE;
SET ROLE dedup_writer;
INSERT INTO "Dedup Crawl".owned SELECT page_id, body_hash FROM saved WHERE page_id BETWEEN 5000 AND 7999;
RESET ROLE;
SET ROLE dedup_bi;
SELECT count(*) > 0 AS bi_reads_members, count(DISTINCT cluster_id) > 0 AS bi_reads_clusters
FROM simhash_dedup_members WHERE tbl = '"Dedup Crawl".owned'::regclass;
SELECT count(*) AS bi_sees_other_tables FROM simhash_dedup_members WHERE tbl <> '"Dedup Crawl".owned'::regclass;
SELECT backlog > 0 AS writer_queued FROM simhash_dedup_status('"Dedup Crawl".owned');
SELECT pg_temp.try($$SELECT simhash_dedup_run('"Dedup Crawl".owned')$$);
RESET ROLE;
SELECT simhash_dedup_run() > 0 AS applied_as_owner;
SELECT * FROM pg_temp.dd_check('"Dedup Crawl".owned', 'SELECT id, sh FROM "Dedup Crawl".owned', 3);
-- The run of a superuser (a pg_cron job's, the background worker's) works on an owner's table as
-- the owner in a security-restricted operation: the keep expression runs with the owner's rights
-- and cannot SET ROLE back to the superuser's (PostgreSQL refuses it with 42501).
SET ROLE dedup_owner;
CREATE TABLE "Dedup Crawl".sneaky (id bigint PRIMARY KEY, sh simhash);
CREATE INDEX ON "Dedup Crawl".sneaky USING simhash_mih (sh);
CREATE TABLE "Dedup Crawl".sneaky_log (who name, superuser boolean, what text);
CREATE FUNCTION "Dedup Crawl".sneaky_keep(page bigint) RETURNS bigint LANGUAGE plpgsql AS $f$
BEGIN
    INSERT INTO "Dedup Crawl".sneaky_log SELECT current_user, rolsuper, 'keep' FROM pg_roles WHERE rolname = current_user;
    BEGIN
        PERFORM set_config('role', 'none', true);
        INSERT INTO "Dedup Crawl".sneaky_log SELECT current_user, rolsuper, 'role reset' FROM pg_roles WHERE rolname = current_user;
    EXCEPTION WHEN OTHERS THEN
        INSERT INTO "Dedup Crawl".sneaky_log VALUES (current_user, NULL, SQLSTATE || ': ' || SQLERRM);
    END;
    RETURN page;
END $f$;
SELECT simhash_dedup_start('"Dedup Crawl".sneaky', 'id', 'sh', 3, keep => '"Dedup Crawl".sneaky_keep(id)') AS clusters;
RESET ROLE;
INSERT INTO "Dedup Crawl".sneaky VALUES (1, '0000000000000000'), (2, '0000000000000001'), (3, '0000000000000003');
SELECT simhash_dedup_run() AS applied_by_superuser;
SELECT DISTINCT who, superuser, what FROM "Dedup Crawl".sneaky_log ORDER BY what;
SELECT id, canonical FROM simhash_dedup_clusters('"Dedup Crawl".sneaky');
SELECT current_user = session_user AS still_myself;
-- the function the run calls checks the caller too
SET ROLE dedup_other;
SELECT pg_temp.try($$SELECT simhash_dedup_as_owner('"Dedup Crawl".sneaky', 10)$$);
RESET ROLE;
DROP TABLE "Dedup Crawl".sneaky, "Dedup Crawl".sneaky_log;
DROP FUNCTION "Dedup Crawl".sneaky_keep(bigint);

SELECT '"Dedup Crawl".owned'::regclass::oid AS owned_oid \gset
SET ROLE dedup_owner;
DROP TABLE "Dedup Crawl".owned;
RESET ROLE;
SELECT (SELECT count(*) FROM simhash_dedup_tables WHERE tbl::oid = :owned_oid) AS registered,
       (SELECT count(*) FROM simhash_dedup_members WHERE tbl::oid = :owned_oid) AS members,
       (SELECT count(*) FROM simhash_dedup_queue WHERE tbl::oid = :owned_oid) AS queued;

-- One session, several tables of other shapes, one after the other and all at once; a stopped
-- table is left alone; dropping a registered column forgets the table.
INSERT INTO dedup_other SELECT i, pg_temp.dd_hash(i / 4, i % 4), 'u' || i FROM generate_series(1, 200) i;
SELECT simhash_dedup_start('dedup_other', 'id', 'sh', 3, keep => 'url DESC') AS clusters;
INSERT INTO dedup_other SELECT i, pg_temp.dd_hash(i / 4, i % 4), 'u' || i FROM generate_series(201, 260) i;
INSERT INTO dedup_site (id, url, body) VALUES (1000, 'https://example.com/100/0', pg_temp.dd_body(1, 2));
INSERT INTO "Dedup Crawl"."Page" VALUES (800001, 'https://late.example/', pg_temp.dd_hash(33, 1) # '0000000000000001');
SELECT simhash_dedup_run('dedup_other') AS other, simhash_dedup_run('dedup_site') AS site;
SELECT simhash_dedup_run() AS the_rest;
SELECT * FROM pg_temp.dd_check('dedup_other', 'SELECT id, sh FROM dedup_other', 3, NULL, 'id', 'url DESC');
SELECT * FROM pg_temp.dd_check('dedup_site', :csrc, 7, 0.9);
SELECT * FROM pg_temp.dd_check('"Dedup Crawl"."Page"', :src, 3, NULL, 'page_id', :keep);
SELECT simhash_dedup_stop('dedup_other');
SELECT count(*) AS triggers_left FROM pg_trigger WHERE tgrelid = 'dedup_other'::regclass;
INSERT INTO dedup_other VALUES (1000, 'ffffffffffffffff', 'x');
SELECT simhash_dedup_run() AS applied, (SELECT count(*) FROM simhash_dedup_queue WHERE tbl = 'dedup_other'::regclass) AS queued;
SELECT pg_temp.try($$SELECT * FROM simhash_dedup_status('dedup_other')$$);
ALTER TABLE dedup_site DROP COLUMN sk;
SELECT count(*) AS registered, (SELECT count(*) FROM pg_trigger WHERE tgrelid = 'dedup_site'::regclass) AS triggers
FROM simhash_dedup_tables WHERE tbl = 'dedup_site'::regclass;
INSERT INTO dedup_site (id, url, body) VALUES (1001, 'x', 'y');

-- A restore: pg_dump does not dump the state (a configuration table under row-level security would
-- stop a non-superuser's dump), the table comes back with its triggers; a start again replaces them.
SELECT count(*) AS dumped_tables_with_row_security
FROM pg_extension e, unnest(e.extconfig) c(relid) JOIN pg_class r ON r.oid = c.relid
WHERE e.extname = 'simhash' AND r.relrowsecurity;
SELECT simhash_dedup_forget('"Dedup Crawl"."Page"');
INSERT INTO "Dedup Crawl"."Page" VALUES (800002, 'https://restored.example/', pg_temp.dd_hash(34, 1) # '0000000000000001');
SELECT count(*) AS queued_while_forgotten FROM simhash_dedup_queue;
SELECT simhash_dedup_start('"Dedup Crawl"."Page"', 'page_id', 'body_hash', k => 3, keep => 'length(url) DESC, page_id')
       AS clusters;
SELECT count(*) AS triggers FROM pg_trigger WHERE tgrelid = '"Dedup Crawl"."Page"'::regclass AND tgname LIKE 'simhash_dedup%';
SELECT * FROM pg_temp.dd_check('"Dedup Crawl"."Page"', :src, 3, NULL, 'page_id', :keep);
SELECT backlog FROM simhash_dedup_status('"Dedup Crawl"."Page"');

-- Renamed columns: the capture triggers follow (with the old names every write would fail).
CREATE TABLE dedup_renamed (id bigint PRIMARY KEY, sh simhash);
CREATE INDEX ON dedup_renamed USING simhash_mih (sh);
INSERT INTO dedup_renamed SELECT i, pg_temp.dd_hash(i / 4, i % 4) FROM generate_series(1, 80) i;
SELECT simhash_dedup_start('dedup_renamed', 'id', 'sh', 3) AS clusters;
ALTER TABLE dedup_renamed RENAME COLUMN sh TO "Body Hash";
ALTER TABLE dedup_renamed RENAME COLUMN id TO page_id;
ALTER TABLE dedup_renamed ADD COLUMN url text;
INSERT INTO dedup_renamed SELECT i, pg_temp.dd_hash(i / 4, i % 4), 'u' FROM generate_series(81, 120) i;
DELETE FROM dedup_renamed WHERE page_id % 7 = 0;
SELECT id_column, hash_column FROM simhash_dedup_tables WHERE tbl = 'dedup_renamed'::regclass;
SELECT simhash_dedup_run('dedup_renamed') AS applied;
SELECT * FROM pg_temp.dd_check('dedup_renamed', 'SELECT page_id, "Body Hash" FROM dedup_renamed', 3, NULL, 'page_id');
DROP TABLE dedup_renamed;

-- The extension dropped with tables still registered.
CREATE DATABASE dedup_scratch;
\c dedup_scratch
CREATE EXTENSION simhash;
CREATE TABLE t (id int PRIMARY KEY, sh simhash);
CREATE INDEX ON t USING simhash_mih (sh);
INSERT INTO t VALUES (1, '0000000000000000'), (2, '0000000000000001');
SELECT simhash_dedup_start('t', 'id', 'sh');
SET client_min_messages = warning;
DROP EXTENSION simhash CASCADE;
RESET client_min_messages;
SELECT count(*) AS triggers_left FROM pg_trigger WHERE tgrelid = 't'::regclass;
INSERT INTO t (id) VALUES (3);
DROP TABLE t;
\c :regress_db
DROP DATABASE dedup_scratch;

DROP TABLE "Dedup Crawl"."Page";
DROP SCHEMA "Dedup Crawl" CASCADE;
DROP ROLE dedup_owner;
DROP ROLE dedup_other;
DROP ROLE dedup_bi;
DROP ROLE dedup_writer;
