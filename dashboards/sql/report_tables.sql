-- The crawl report's result tables, which the dashboard's panels read (schema crawl_report), and what
-- keeps them current: a trigger on the crawl table for the duplicates (pairs, clusters, exact groups,
-- counts per package), as pages arrive; a job for the threshold analysis (a sample of pairs).
--   psql -v ON_ERROR_STOP=1 -f dashboards/sql/report_tables.sql     (as the crawl table's owner)
--   SELECT crawl_report.rebuild();              -- fill the duplicate tables from the pages already there
--   SELECT crawl_report.refresh_thresholds();   -- the threshold analysis, when it should be refreshed
--
-- The crawl table is public.pages (id bigint, package text, url text, sh simhash, fp fingerprints),
-- as demo/load_pages.sql and demo/report.sql make it. A page counts once its sh is set (inserted with
-- it, or set later by an UPDATE, as the demo does).
--
-- search_path: every function here pins search_path to pg_catalog, the extension's schema and
-- pg_temp, in that order (pg_catalog first, so no planted function or operator shadows a built-in),
-- and names the tables with their schema. The extension's schema must be writable only by trusted
-- roles (as public is by default since PostgreSQL 15).
\set ON_ERROR_STOP on
SELECT extnamespace::regnamespace AS ext FROM pg_extension WHERE extname = 'simhash' \gset
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS crawl_report CASCADE;
RESET client_min_messages;
CREATE SCHEMA crawl_report;
COMMENT ON SCHEMA crawl_report IS 'the crawl report''s result tables (read by the dashboard) and the jobs that keep them current';

-- The thresholds of the report, one row. k: near-duplicate radius in bits; d: the fingerprint
-- difference the legacy check calls duplicate; max_k: the sweep's last k.
CREATE TABLE crawl_report.settings (
    one     boolean PRIMARY KEY DEFAULT true CHECK (one),
    k       integer NOT NULL DEFAULT 5 CHECK (k BETWEEN 0 AND 16),
    d       integer NOT NULL DEFAULT 6 CHECK (d BETWEEN 0 AND 127),
    max_k   integer NOT NULL DEFAULT 10 CHECK (max_k BETWEEN 0 AND 64)
);
INSERT INTO crawl_report.settings DEFAULT VALUES;

-- What each part of the report covers and when it was made: the dashboard shows it. The trigger
-- does not write here (one row that every insert updated would serialize all inserters), so for
-- the duplicates, refreshed_at, pages and seconds are those of the last rebuild.
CREATE TABLE crawl_report.freshness (
    part         text PRIMARY KEY,
    how          text NOT NULL,
    refreshed_at timestamptz,
    pages        bigint,
    seconds      numeric,
    stale_since  timestamptz
);
INSERT INTO crawl_report.freshness (part, how) VALUES
    ('duplicates', 'maintained as pages arrive (trigger on public.pages); rebuilt by crawl_report.rebuild()'),
    ('threshold analysis', 'refreshed by crawl_report.refresh_thresholds()');

-- Hashed pages and pages with duplicates, per package (site).
CREATE TABLE crawl_report.package_stats (
    package         text PRIMARY KEY,
    pages           bigint NOT NULL DEFAULT 0,
    near_dup_pages  bigint NOT NULL DEFAULT 0,   -- pages with another page within k bits
    exact_dup_pages bigint NOT NULL DEFAULT 0    -- pages with another page of the same simhash
);

-- Every pair of pages within k bits (id_a < id_b), and their count per distance.
CREATE TABLE crawl_report.near_pairs (
    id_a     bigint NOT NULL,
    id_b     bigint NOT NULL,
    distance integer NOT NULL,
    PRIMARY KEY (id_a, id_b)
);
CREATE INDEX ON crawl_report.near_pairs (distance DESC, id_a, id_b);
CREATE TABLE crawl_report.pair_counts (
    distance integer PRIMARY KEY,
    pairs    bigint NOT NULL
);

-- Pages with a near-duplicate, each with its cluster (pages linked by chains of pairs within k bits).
CREATE TABLE crawl_report.dup_pages (
    id         bigint PRIMARY KEY,
    package    text NOT NULL,
    cluster_id bigint NOT NULL,
    exact      boolean NOT NULL DEFAULT false   -- another page has the same simhash
);
CREATE INDEX ON crawl_report.dup_pages (cluster_id, id);
CREATE TABLE crawl_report.clusters (
    cluster_id     bigint PRIMARY KEY,
    size           bigint NOT NULL,
    representative bigint NOT NULL   -- the member with the smallest id, as simhash_cluster_summary
);
CREATE INDEX ON crawl_report.clusters (size DESC, representative);

-- Groups of pages with the same simhash.
CREATE TABLE crawl_report.exact_groups (
    sh       bigint PRIMARY KEY,   -- the simhash as int8 (a btree key needs no extension type)
    pages    bigint NOT NULL,
    first_id bigint NOT NULL
);
CREATE INDEX ON crawl_report.exact_groups (pages DESC, first_id);

-- The threshold analysis: the joint histogram of a sample of pairs within packages (the heat map),
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

\ir report_maintain.sql
\ir report_jobs.sql
