-- The crawl report (schema crawl_report): the small tables the dashboard's panels read, over any
-- crawl table whose duplicate clusters the extension keeps (simhash_dedup_start). As the crawl
-- table's owner (dashboards/setup.sh runs this with the table and its columns):
--   psql -v ON_ERROR_STOP=1 -v tbl=public.pages -v id_column=id -v hash_column=sh -v site_column=package \
--        -v url_column=url -v fp_column=fp -v k=5 -f dashboards/sql/report_tables.sql
-- (site_column, url_column, fp_column may be empty: no such column). Then:
--   SELECT simhash_dedup_start(...);           -- dashboards/setup.sh does it, with the same k
--   CALL crawl_report.refresh();               -- applies the crawl's changes to the clusters and the report
--   SELECT crawl_report.refresh_thresholds();  -- the threshold analysis, when it should be refreshed
--
-- Nothing here runs for each row: the extension's statement-level triggers queue the changed pages,
-- the report's own statement-level triggers (report_refresh.sql) append the pages counted per site,
-- and crawl_report.refresh() applies both. A page counts once its hash is set.
--
-- search_path: every function here pins search_path to pg_catalog, the extension's schema and
-- pg_temp, in that order (pg_catalog first, so no planted function or operator shadows a built-in),
-- and names the tables with their schema. The extension's schema must be writable only by trusted
-- roles (as public is by default since PostgreSQL 15). The procedure crawl_report.refresh() cannot
-- pin it (a procedure with a SET clause cannot commit): it only calls a function by its schema.
\set ON_ERROR_STOP on
SELECT extnamespace::regnamespace AS ext FROM pg_extension WHERE extname = 'simhash' \gset
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS crawl_report CASCADE;
RESET client_min_messages;
CREATE SCHEMA crawl_report;
COMMENT ON SCHEMA crawl_report IS 'the crawl report''s result tables (read by the dashboard) and the jobs that keep them current';

-- The crawl table and its columns, and the thresholds of the report, one row. k: near-duplicate
-- radius in bits (that of simhash_dedup_start); d: the fingerprint difference the legacy check calls
-- duplicate; max_k: the sweep's last k; max_pair_hashes: a cluster with more distinct simhashes
-- than this has its pairs not counted (the pairs of a cluster grow with the square of its size).
CREATE TABLE crawl_report.settings (
    one             boolean PRIMARY KEY DEFAULT true CHECK (one),
    tbl             regclass NOT NULL,
    id_column       name NOT NULL,
    hash_column     name NOT NULL,
    site_column     name,
    url_column      name,
    fp_column       name,
    k               integer NOT NULL DEFAULT 5 CHECK (k BETWEEN 0 AND 16),
    d               integer NOT NULL DEFAULT 6 CHECK (d BETWEEN 0 AND 127),
    max_k           integer NOT NULL DEFAULT 10 CHECK (max_k BETWEEN 0 AND 64),
    max_pair_hashes integer NOT NULL DEFAULT 5000 CHECK (max_pair_hashes > 0)
);
INSERT INTO crawl_report.settings (tbl, id_column, hash_column, site_column, url_column, fp_column, k)
VALUES (:'tbl', :'id_column', :'hash_column', nullif(:'site_column', ''), nullif(:'url_column', ''),
        nullif(:'fp_column', ''), :'k');

-- Whether the report was filled, and how the last refresh worked (every cluster, or those changed).
CREATE TABLE crawl_report.state (
    one       boolean PRIMARY KEY DEFAULT true CHECK (one),
    filled    boolean NOT NULL DEFAULT false,
    last_mode text
);
INSERT INTO crawl_report.state DEFAULT VALUES;

-- What each part of the report covers and when it was made: the dashboard shows it.
CREATE TABLE crawl_report.freshness (
    part         text PRIMARY KEY,
    how          text NOT NULL,
    refreshed_at timestamptz,
    pages        bigint,
    seconds      numeric,
    changes      bigint
);
INSERT INTO crawl_report.freshness (part, how) VALUES
    ('duplicates', 'clusters kept by simhash_dedup; applied with the report''s tables by CALL crawl_report.refresh()'),
    ('threshold analysis', 'refreshed by crawl_report.refresh_thresholds()');

-- What the crawl's writers changed, appended by the report's statement-level triggers (no row is
-- updated in place, so writers never wait for each other): the hashed pages per site a statement
-- added or took away (truncated: a TRUNCATE), and the pages whose id, hash or site changed (id NULL:
-- a TRUNCATE). crawl_report.refresh() takes a changed page in once the extension has applied it to
-- the clusters (it is no longer in simhash_dedup_queue), whoever applied it.
CREATE TABLE crawl_report.site_deltas (
    seq       bigserial PRIMARY KEY,
    site      text,
    pages     bigint NOT NULL DEFAULT 0,
    truncated boolean NOT NULL DEFAULT false
);
CREATE TABLE crawl_report.changes (id bigint);
CREATE INDEX ON crawl_report.changes (id);

-- Per site: hashed pages, pages with a near-duplicate and with an exact one.
CREATE TABLE crawl_report.site_stats (
    site            text PRIMARY KEY,
    pages           bigint NOT NULL DEFAULT 0,
    near_dup_pages  bigint NOT NULL DEFAULT 0,
    exact_dup_pages bigint NOT NULL DEFAULT 0
);
CREATE INDEX ON crawl_report.site_stats (near_dup_pages DESC, site);

-- The pages in clusters (simhash_dedup_members, with their site), one row per cluster (its size,
-- canonical page, distinct simhashes and pairs; pairs NULL: not counted, more than max_pair_hashes
-- distinct simhashes), and the counts over them, kept by delta: the panels read a few rows.
CREATE TABLE crawl_report.dup_pages (
    id         bigint PRIMARY KEY,
    cluster_id bigint NOT NULL,
    site       text NOT NULL,
    exact      boolean NOT NULL   -- another page has the same simhash
);
CREATE INDEX ON crawl_report.dup_pages (cluster_id, id);
CREATE TABLE crawl_report.clusters (
    cluster_id bigint PRIMARY KEY,
    size       bigint NOT NULL,
    canonical  bigint NOT NULL,   -- the cluster's canonical page (simhash_dedup_start's keep)
    hashes     bigint NOT NULL,
    pairs      bigint
);
CREATE INDEX ON crawl_report.clusters (size DESC, cluster_id);
CREATE TABLE crawl_report.cluster_sizes (
    size     bigint PRIMARY KEY,
    clusters bigint NOT NULL
);

-- Pairs of pages within k bits: they exist only inside clusters, so they are counted per cluster
-- (per distance) and summed; pages with one simhash count once per pair of hashes times the pages
-- of each. Examples: per cluster the 20 most different pairs of distinct simhashes, each shown by
-- the first page (smallest id) of each hash, and an exact group by its first two pages.
CREATE TABLE crawl_report.cluster_pairs (
    cluster_id bigint NOT NULL,
    distance   integer NOT NULL,
    pairs      bigint NOT NULL,
    PRIMARY KEY (cluster_id, distance)
);
CREATE TABLE crawl_report.pair_counts (
    distance integer PRIMARY KEY,
    pairs    bigint NOT NULL
);
CREATE TABLE crawl_report.pair_examples (
    cluster_id bigint NOT NULL,
    distance   integer NOT NULL,
    id_a       bigint NOT NULL,
    id_b       bigint NOT NULL,
    PRIMARY KEY (cluster_id, id_a, id_b)
);
CREATE INDEX ON crawl_report.pair_examples (distance DESC, id_a, id_b);

-- Groups of pages with the same simhash (each inside one cluster).
CREATE TABLE crawl_report.exact_groups (
    sh         bigint PRIMARY KEY,   -- the simhash as int8 (a btree key needs no extension type)
    cluster_id bigint NOT NULL,
    pages      bigint NOT NULL,
    first_id   bigint NOT NULL,
    second_id  bigint NOT NULL
);
CREATE INDEX ON crawl_report.exact_groups (pages DESC, first_id);
CREATE INDEX ON crawl_report.exact_groups (cluster_id);

-- The headline figures, one row.
CREATE TABLE crawl_report.totals (
    one                   boolean PRIMARY KEY DEFAULT true CHECK (one),
    pages                 bigint NOT NULL DEFAULT 0,
    clusters              bigint NOT NULL DEFAULT 0,
    pages_in_clusters     bigint NOT NULL DEFAULT 0,
    near_pairs            bigint NOT NULL DEFAULT 0,
    exact_groups          bigint NOT NULL DEFAULT 0,
    pages_in_exact_groups bigint NOT NULL DEFAULT 0,
    uncounted_clusters    bigint NOT NULL DEFAULT 0,   -- clusters whose pairs are not counted
    uncounted_pages       bigint NOT NULL DEFAULT 0
);
INSERT INTO crawl_report.totals DEFAULT VALUES;

-- The threshold analysis: the joint histogram of a sample of pairs within sites (the heat map),
-- the quadrants and sweep of every close pair, and our own SVG of the heat map.
CREATE TABLE crawl_report.joint_histogram (
    fp_diff integer NOT NULL,
    sh_diff integer NOT NULL,
    pairs   bigint NOT NULL,
    PRIMARY KEY (fp_diff, sh_diff)
);
CREATE TABLE crawl_report.quadrants (
    quadrant text PRIMARY KEY, fingerprints_say text, simhash_says text, pairs bigint, ord integer
);
CREATE TABLE crawl_report.threshold_sweep (
    k integer PRIMARY KEY, flagged bigint, flagged_fp_different bigint, fp_flagged_missed bigint,
    recommended boolean
);
CREATE TABLE crawl_report.heatmap_svg (
    scale text PRIMARY KEY, svg text NOT NULL
);

\ir report_refresh.sql
\ir report_jobs.sql
-- Only the report's owner runs its jobs; the triggers run as their owner whoever writes the crawl.
REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA crawl_report FROM PUBLIC;
REVOKE EXECUTE ON ALL PROCEDURES IN SCHEMA crawl_report FROM PUBLIC;
