-- A crawl database as a major-version upgrade finds it: one table per index kind (simhash_mih plain
-- with runs and pending rows, compact, GiST, GIN and btree), stored generated columns, a view and a
-- materialized view over a source query.
CREATE EXTENSION simhash;
CREATE FUNCTION page_text(i int) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT string_agg(CASE WHEN w % 40 < i % 4 THEN 'edit' || i || '_' || w ELSE 'topic' || (i / 4) || '_w' || w END,
                      ' ' ORDER BY w)
    FROM generate_series(1, 80) w $$;
CREATE TABLE pages (id int PRIMARY KEY, body text,
                    sh simhash GENERATED ALWAYS AS (simhash(body)) STORED,
                    sk resemblance_sketch GENERATED ALWAYS AS (resemblance_sketch(body)) STORED);
INSERT INTO pages (id, body) SELECT i, page_text(i) FROM generate_series(1, 3000) i;
CREATE TABLE t_mih AS SELECT id, sh FROM pages;
CREATE TABLE t_compact AS SELECT id, sh FROM pages;
CREATE TABLE t_gist AS SELECT id, sh FROM pages;
CREATE TABLE t_gin AS SELECT id, sh FROM pages;
CREATE TABLE t_btree AS SELECT id, sh FROM pages;
CREATE INDEX t_mih_idx ON t_mih USING simhash_mih (sh) WITH (pending_limit = 64);
CREATE INDEX t_compact_idx ON t_compact USING simhash_mih (sh) WITH (compact = on, blocks = 4);
CREATE INDEX t_gist_idx ON t_gist USING gist (sh);
CREATE INDEX t_gin_idx ON t_gin USING gin (sh simhash_mih_ops);
CREATE INDEX t_btree_idx ON t_btree (sh);
-- Rows after the builds: runs and pending rows in the simhash_mih indexes.
INSERT INTO pages (id, body) SELECT i, page_text(i) FROM generate_series(3001, 5000) i;
INSERT INTO t_mih SELECT id, sh FROM pages WHERE id > 3000;
INSERT INTO t_compact SELECT id, sh FROM pages WHERE id > 3000;
INSERT INTO t_gist SELECT id, sh FROM pages WHERE id > 3000;
INSERT INTO t_gin SELECT id, sh FROM pages WHERE id > 3000;
INSERT INTO t_btree SELECT id, sh FROM pages WHERE id > 3000;
DELETE FROM t_mih WHERE id % 17 = 0;
VACUUM t_mih;
CREATE VIEW near_first AS SELECT id, hamming(sh, (SELECT sh FROM pages WHERE id = 1)) AS d FROM pages
WHERE hamming(sh, (SELECT sh FROM pages WHERE id = 1)) <= 8;
CREATE MATERIALIZED VIEW dup_pairs AS SELECT * FROM simhash_pairs('SELECT id, sh FROM public.pages', 5);
CREATE TABLE queries AS SELECT sh AS q FROM pages WHERE id % 250 = 1;
ANALYZE;
