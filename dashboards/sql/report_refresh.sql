-- Keeping the report current: the view over the crawl table, the statement-level triggers that
-- count pages per site, and CALL crawl_report.refresh(), which applies the crawl's queued changes to
-- the clusters (simhash_dedup_run) and to the report's tables in one snapshot.
-- Included by report_tables.sql, which sets :ext to the extension's schema.

-- The crawl table as the report reads it: (id, site, url, sh, fp) whatever its own names; a missing
-- site is '(all pages)', a missing URL the id, missing fingerprints NULL. The dashboard's role reads
-- its id, site and url columns only (bi_role.sql); the view reads the table with its owner's rights.
DO $attach$
DECLARE
    s crawl_report.settings;
    site text;
    t text;
    ext text := (SELECT e.extnamespace::regnamespace::text FROM pg_catalog.pg_extension e WHERE e.extname = 'simhash');
BEGIN
    SELECT * INTO s FROM crawl_report.settings;
    IF s.fp_column IS NOT NULL AND (SELECT a.atttypid FROM pg_catalog.pg_attribute a
            WHERE a.attrelid = s.tbl AND a.attname = s.fp_column AND NOT a.attisdropped)
            IS DISTINCT FROM (SELECT y.oid FROM pg_catalog.pg_type y
                              WHERE y.typname = 'fingerprints' AND y.typnamespace = (
                                  SELECT e.extnamespace FROM pg_catalog.pg_extension e WHERE e.extname = 'simhash')) THEN
        RAISE EXCEPTION 'fingerprints column "%" of % is missing or not of type fingerprints', s.fp_column, s.tbl;
    END IF;
    -- the site of a row of alias %1$s
    site := CASE WHEN s.site_column IS NULL THEN '''(all pages)''::text'
                 ELSE pg_catalog.format('coalesce(%%1$s.%I::text, ''(none)'')', s.site_column) END;
    EXECUTE pg_catalog.format(
        'CREATE VIEW crawl_report.crawl AS SELECT t.%1$I AS id, %2$s AS site, %3$s AS url, t.%4$I AS sh, %5$s AS fp FROM %6$s t',
        s.id_column, pg_catalog.format(site, 't'),
        CASE WHEN s.url_column IS NULL THEN pg_catalog.format('t.%I::text', s.id_column)
             ELSE pg_catalog.format('t.%I::text', s.url_column) END,
        s.hash_column,
        CASE WHEN s.fp_column IS NULL THEN 'NULL::' || ext || '.fingerprints'
             ELSE pg_catalog.format('t.%I', s.fp_column) END,
        s.tbl);

    -- The triggers: one statement each, whatever its row count; they append and never update.
    -- (Generated with the table's own column names, so that their statements are planned once.)
    site := pg_catalog.format(site, 'x');
    EXECUTE pg_catalog.format($f$
        CREATE FUNCTION crawl_report.pages_inserted() RETURNS trigger
            LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $b$
        BEGIN
            INSERT INTO crawl_report.site_deltas (site, pages)
            SELECT y.site, count(*) FROM (SELECT %1$s AS site FROM crawl_report_new x WHERE x.%2$I IS NOT NULL) y
            GROUP BY y.site;
            INSERT INTO crawl_report.changes (id) SELECT x.%3$I FROM crawl_report_new x WHERE x.%2$I IS NOT NULL;
            RETURN NULL;
        END $b$$f$, site, s.hash_column, s.id_column);
    EXECUTE pg_catalog.format($f$
        CREATE FUNCTION crawl_report.pages_deleted() RETURNS trigger
            LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $b$
        BEGIN
            INSERT INTO crawl_report.site_deltas (site, pages)
            SELECT y.site, -count(*) FROM (SELECT %1$s AS site FROM crawl_report_old x WHERE x.%2$I IS NOT NULL) y
            GROUP BY y.site;
            INSERT INTO crawl_report.changes (id) SELECT x.%3$I FROM crawl_report_old x WHERE x.%2$I IS NOT NULL;
            RETURN NULL;
        END $b$$f$, site, s.hash_column, s.id_column);
    EXECUTE pg_catalog.format($f$
        CREATE FUNCTION crawl_report.pages_updated() RETURNS trigger
            LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $b$
        BEGIN
            INSERT INTO crawl_report.site_deltas (site, pages)
            SELECT y.site, sum(y.n) FROM (
                SELECT %1$s AS site, 1 AS n FROM crawl_report_new x WHERE x.%2$I IS NOT NULL
                UNION ALL
                SELECT %1$s, -1 FROM crawl_report_old x WHERE x.%2$I IS NOT NULL) y
            GROUP BY y.site HAVING sum(y.n) <> 0;
            %3$s
            RETURN NULL;
        END $b$$f$, site, s.hash_column,
        pg_catalog.format('INSERT INTO crawl_report.changes (id) SELECT c.id FROM ('
                          ' SELECT n.%1$I AS id FROM crawl_report_new n WHERE n.%2$I IS NOT NULL AND NOT EXISTS'
                          '  (SELECT FROM crawl_report_old o WHERE o.%1$I = n.%1$I AND o.%2$I::text = n.%2$I::text%3$s)'
                          ' UNION SELECT o.%1$I FROM crawl_report_old o WHERE o.%2$I IS NOT NULL AND NOT EXISTS'
                          '  (SELECT FROM crawl_report_new n WHERE n.%1$I = o.%1$I AND o.%2$I::text = n.%2$I::text%3$s)) c;',
                          s.id_column, s.hash_column,
                          CASE WHEN s.site_column IS NULL THEN ''
                               ELSE pg_catalog.format(' AND o.%1$I IS NOT DISTINCT FROM n.%1$I', s.site_column) END));
    CREATE FUNCTION crawl_report.pages_truncated() RETURNS trigger
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $b$
    BEGIN
        INSERT INTO crawl_report.site_deltas (truncated) VALUES (true);
        INSERT INTO crawl_report.changes (id) VALUES (NULL);
        RETURN NULL;
    END $b$;
    t := s.tbl::text;
    EXECUTE pg_catalog.format('CREATE TRIGGER crawl_report_pages_inserted AFTER INSERT ON %s'
                              ' REFERENCING NEW TABLE AS crawl_report_new'
                              ' FOR EACH STATEMENT EXECUTE FUNCTION crawl_report.pages_inserted()', t);
    EXECUTE pg_catalog.format('CREATE TRIGGER crawl_report_pages_updated AFTER UPDATE ON %s'
                              ' REFERENCING OLD TABLE AS crawl_report_old NEW TABLE AS crawl_report_new'
                              ' FOR EACH STATEMENT EXECUTE FUNCTION crawl_report.pages_updated()', t);
    EXECUTE pg_catalog.format('CREATE TRIGGER crawl_report_pages_deleted AFTER DELETE ON %s'
                              ' REFERENCING OLD TABLE AS crawl_report_old'
                              ' FOR EACH STATEMENT EXECUTE FUNCTION crawl_report.pages_deleted()', t);
    EXECUTE pg_catalog.format('CREATE TRIGGER crawl_report_pages_truncated AFTER TRUNCATE ON %s'
                              ' FOR EACH STATEMENT EXECUTE FUNCTION crawl_report.pages_truncated()', t);
END
$attach$;
COMMENT ON VIEW crawl_report.crawl IS 'the crawl table as the report reads it: id, site, url, sh, fp';
COMMENT ON FUNCTION crawl_report.pages_inserted() IS 'statement trigger: appends the hashed pages a statement inserted, per site, and their ids';
COMMENT ON FUNCTION crawl_report.pages_updated() IS 'statement trigger: appends the change of hashed pages per site an update made, and the pages whose id, hash or site changed';
COMMENT ON FUNCTION crawl_report.pages_deleted() IS 'statement trigger: appends the hashed pages a statement deleted, per site, and their ids';
COMMENT ON FUNCTION crawl_report.pages_truncated() IS 'statement trigger: marks a TRUNCATE of the crawl table';

-- simhash_dedup_status of the crawl table, for the dashboard's role (which may not read the table):
-- changes committed and not applied yet, the age of the oldest, and the last run.
CREATE FUNCTION crawl_report.dedup_status(OUT backlog bigint, OUT lag_seconds numeric, OUT last_run timestamptz)
    LANGUAGE sql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, :"ext", pg_temp
    BEGIN ATOMIC
        SELECT st.backlog, round(extract(epoch FROM st.lag)::numeric, 1), st.last_run
        FROM crawl_report.settings s, simhash_dedup_status(s.tbl) st;
    END;
COMMENT ON FUNCTION crawl_report.dedup_status() IS
    'the crawl table''s simhash_dedup_status: backlog, lag in seconds, last run (executable by the dashboard''s role)';

-- Adds (direction 1) or takes away (direction -1) the clusters of pg_temp.report_scope from the counts over
-- them: cluster sizes, pairs per distance, counts per site, the headline figures.
CREATE FUNCTION crawl_report.account(direction integer) RETURNS void
    LANGUAGE plpgsql VOLATILE
    SET search_path = pg_catalog, :"ext", pg_temp
    AS $$
BEGIN
    INSERT INTO crawl_report.cluster_sizes AS z (size, clusters)
    SELECT c.size, direction * count(*) FROM crawl_report.clusters c JOIN pg_temp.report_scope x ON x.cluster_id = c.cluster_id
    GROUP BY c.size
    ON CONFLICT (size) DO UPDATE SET clusters = z.clusters + excluded.clusters;
    DELETE FROM crawl_report.cluster_sizes WHERE clusters = 0;
    INSERT INTO crawl_report.pair_counts AS z (distance, pairs)
    SELECT p.distance, direction * sum(p.pairs) FROM crawl_report.cluster_pairs p JOIN pg_temp.report_scope x ON x.cluster_id = p.cluster_id
    GROUP BY p.distance
    ON CONFLICT (distance) DO UPDATE SET pairs = z.pairs + excluded.pairs;
    DELETE FROM crawl_report.pair_counts WHERE pairs = 0;
    INSERT INTO crawl_report.site_stats AS z (site, near_dup_pages, exact_dup_pages)
    SELECT d.site, direction * count(*), direction * count(*) FILTER (WHERE d.exact)
    FROM crawl_report.dup_pages d JOIN pg_temp.report_scope x ON x.cluster_id = d.cluster_id
    GROUP BY d.site
    ON CONFLICT (site) DO UPDATE SET near_dup_pages = z.near_dup_pages + excluded.near_dup_pages,
                                     exact_dup_pages = z.exact_dup_pages + excluded.exact_dup_pages;
    UPDATE crawl_report.totals t
    SET clusters = t.clusters + direction * c.clusters, pages_in_clusters = t.pages_in_clusters + direction * c.pages,
        near_pairs = t.near_pairs + direction * c.pairs,
        uncounted_clusters = t.uncounted_clusters + direction * c.uncounted,
        uncounted_pages = t.uncounted_pages + direction * c.uncounted_pages,
        exact_groups = t.exact_groups + direction * g.groups, pages_in_exact_groups = t.pages_in_exact_groups + direction * g.pages
    FROM (SELECT count(*) AS clusters, coalesce(sum(c.size), 0) AS pages, coalesce(sum(c.pairs), 0) AS pairs,
                 count(*) FILTER (WHERE c.pairs IS NULL) AS uncounted,
                 coalesce(sum(c.size) FILTER (WHERE c.pairs IS NULL), 0) AS uncounted_pages
          FROM crawl_report.clusters c JOIN pg_temp.report_scope x ON x.cluster_id = c.cluster_id) c,
         (SELECT count(*) AS groups, coalesce(sum(g.pages), 0) AS pages
          FROM crawl_report.exact_groups g JOIN pg_temp.report_scope x ON x.cluster_id = g.cluster_id) g;
END
$$;
COMMENT ON FUNCTION crawl_report.account(integer) IS
    'refresh support: adds or takes away the clusters of pg_temp.report_scope from the counts over them';

-- One refresh, in the caller's REPEATABLE READ transaction (crawl_report.refresh() makes one): the
-- report's rows of every cluster that the changes applied to the clusters since the last refresh
-- touched are made again, and the pages per site summed. A changed page (crawl_report.changes) is
-- taken in once the extension applied it (it is no longer queued), whoever applied it: this
-- refresh's simhash_dedup_run, a scheduler's, or the extension's background worker. One snapshot
-- sees the queue, the clusters, the changes and the pages, so what the report shows is the crawl as
-- the clusters had it at one moment, whatever writers and maintainers commit meanwhile. Returns the
-- changed pages taken in.
CREATE FUNCTION crawl_report.refresh_step() RETURNS bigint
    LANGUAGE plpgsql VOLATILE
    SET search_path = pg_catalog, :"ext", pg_temp
    SET client_min_messages = warning
    AS $$
DECLARE
    s crawl_report.settings;
    st crawl_report.state;
    started timestamptz := clock_timestamp();
    v_taken bigint;
    v_full boolean;
    v_reset bigint;
BEGIN
    IF current_setting('transaction_isolation') = 'read committed' THEN
        RAISE EXCEPTION 'crawl_report.refresh_step() must run in a REPEATABLE READ transaction'
            USING HINT = 'CALL crawl_report.refresh();';
    END IF;
    -- one refresh at a time (a second one returns at once)
    IF NOT pg_try_advisory_xact_lock(hashtext('crawl_report.refresh')) THEN
        RETURN 0;
    END IF;
    SELECT * INTO s FROM crawl_report.settings;
    SELECT * INTO st FROM crawl_report.state;
    IF NOT EXISTS (SELECT FROM simhash_dedup_tables g WHERE g.tbl = s.tbl) THEN
        RAISE EXCEPTION 'duplicate clusters of % are not kept', s.tbl USING HINT = 'Run dashboards/setup.sh.';
    END IF;

    DROP TABLE IF EXISTS pg_temp.report_queued, pg_temp.report_changed, pg_temp.report_x, pg_temp.report_n,
                         pg_temp.report_scope, pg_temp.report_members, pg_temp.report_hashes, pg_temp.report_cl,
                         pg_temp.report_pairs, pg_temp.report_deltas;
    -- The changed pages the clusters have taken in: not queued any more (id NULL: a TRUNCATE, taken
    -- in once the extension applied it).
    CREATE TEMP TABLE report_queued ON COMMIT DROP AS
    SELECT DISTINCT q.id FROM simhash_dedup_queue q WHERE q.tbl = s.tbl;
    CREATE TEMP TABLE report_changed ON COMMIT DROP AS
    SELECT DISTINCT c.id FROM crawl_report.changes c
    WHERE c.id IS NOT NULL AND NOT EXISTS (SELECT FROM pg_temp.report_queued q WHERE q.id = c.id);
    ANALYZE pg_temp.report_changed;
    -- Every cluster again: on the first fill, and after a TRUNCATE the clusters took in.
    v_full := NOT st.filled OR (EXISTS (SELECT FROM crawl_report.changes c WHERE c.id IS NULL)
                                AND NOT EXISTS (SELECT FROM pg_temp.report_queued q WHERE q.id IS NULL));
    DELETE FROM crawl_report.changes c USING pg_temp.report_changed r WHERE c.id = r.id;
    IF v_full THEN
        DELETE FROM crawl_report.changes c WHERE c.id IS NULL;
    END IF;
    SELECT count(*) INTO v_taken FROM pg_temp.report_changed;
    -- The pages whose clusters the report must make again: the changed ones and the other members
    -- of their clusters as the report has them.
    CREATE TEMP TABLE report_x ON COMMIT DROP AS
    SELECT c.id FROM pg_temp.report_changed c WHERE c.id IS NOT NULL
    UNION
    SELECT d.id FROM crawl_report.dup_pages d
    WHERE d.cluster_id IN (SELECT o.cluster_id FROM crawl_report.dup_pages o JOIN pg_temp.report_changed c ON c.id = o.id);
    ANALYZE pg_temp.report_x;
    -- (The extension's tables are read by key from these small tables, with LATERAL: their
    -- statistics may be old, and a plan that scans them costs time in proportion to the crawl.)

    -- Take away the clusters to be made again (report_scope): all of them, or the new clusters of
    -- the pages of report_x (report_n) and every old cluster of their pages.
    IF v_full THEN
        CREATE TEMP TABLE report_n ON COMMIT DROP AS
        SELECT DISTINCT m.cluster_id FROM simhash_dedup_members m WHERE m.tbl = s.tbl;
        DELETE FROM crawl_report.dup_pages;
        DELETE FROM crawl_report.clusters;
        DELETE FROM crawl_report.cluster_sizes;
        DELETE FROM crawl_report.cluster_pairs;
        DELETE FROM crawl_report.pair_counts;
        DELETE FROM crawl_report.pair_examples;
        DELETE FROM crawl_report.exact_groups;
        UPDATE crawl_report.site_stats SET near_dup_pages = 0, exact_dup_pages = 0;
        UPDATE crawl_report.totals SET clusters = 0, pages_in_clusters = 0, near_pairs = 0, exact_groups = 0,
                                       pages_in_exact_groups = 0, uncounted_clusters = 0, uncounted_pages = 0;
    ELSE
        CREATE TEMP TABLE report_n ON COMMIT DROP AS
        SELECT DISTINCT m.cluster_id FROM pg_temp.report_x x
        CROSS JOIN LATERAL (SELECT m.cluster_id FROM simhash_dedup_members m WHERE m.tbl = s.tbl AND m.id = x.id) m;
        ANALYZE pg_temp.report_n;
        CREATE TEMP TABLE report_scope ON COMMIT DROP AS
        SELECT n.cluster_id FROM pg_temp.report_n n
        UNION
        SELECT d.cluster_id FROM crawl_report.dup_pages d JOIN pg_temp.report_x x ON x.id = d.id
        UNION
        SELECT d.cluster_id FROM pg_temp.report_n n
        CROSS JOIN LATERAL (SELECT m.id FROM simhash_dedup_members m WHERE m.tbl = s.tbl AND m.cluster_id = n.cluster_id) m
        JOIN crawl_report.dup_pages d ON d.id = m.id;
        ANALYZE pg_temp.report_scope;
        PERFORM crawl_report.account(-1);
        DELETE FROM crawl_report.dup_pages d USING pg_temp.report_scope x WHERE d.cluster_id = x.cluster_id;
        DELETE FROM crawl_report.clusters d USING pg_temp.report_scope x WHERE d.cluster_id = x.cluster_id;
        DELETE FROM crawl_report.cluster_pairs d USING pg_temp.report_scope x WHERE d.cluster_id = x.cluster_id;
        DELETE FROM crawl_report.pair_examples d USING pg_temp.report_scope x WHERE d.cluster_id = x.cluster_id;
        DELETE FROM crawl_report.exact_groups d USING pg_temp.report_scope x WHERE d.cluster_id = x.cluster_id;
        DROP TABLE pg_temp.report_scope;
    END IF;
    ALTER TABLE pg_temp.report_n ADD PRIMARY KEY (cluster_id);
    ANALYZE pg_temp.report_n;

    -- The clusters of report_n made again, from their members, pages and simhashes.
    CREATE TEMP TABLE report_members ON COMMIT DROP AS
    SELECT m.id, m.cluster_id, m.canonical, p.site, p.sh
    FROM pg_temp.report_n n
    CROSS JOIN LATERAL (SELECT m.id, m.cluster_id, m.canonical FROM simhash_dedup_members m
                        WHERE m.tbl = s.tbl AND m.cluster_id = n.cluster_id) m
    JOIN crawl_report.crawl p ON p.id = m.id;
    CREATE TEMP TABLE report_hashes ON COMMIT DROP AS
    SELECT row_number() OVER () AS hid, h.* FROM (
        SELECT m.cluster_id, m.sh, count(*) AS n, min(m.id) AS first_id, (array_agg(m.id ORDER BY m.id))[2] AS second_id
        FROM pg_temp.report_members m GROUP BY m.cluster_id, m.sh) h;
    CREATE TEMP TABLE report_cl ON COMMIT DROP AS
    SELECT h.cluster_id, sum(h.n)::bigint AS size, count(*) AS hashes, count(*) <= s.max_pair_hashes AS counted
    FROM pg_temp.report_hashes h GROUP BY h.cluster_id;
    ALTER TABLE pg_temp.report_cl ADD PRIMARY KEY (cluster_id);
    ANALYZE pg_temp.report_hashes, pg_temp.report_cl;
    -- Pairs of distinct simhashes of the counted clusters (within a cluster, as every pair within k is).
    CREATE TEMP TABLE report_pairs ON COMMIT DROP AS
    SELECT a.cluster_id, p.distance, a.n * b.n AS pairs,
           least(a.first_id, b.first_id) AS id_a, greatest(a.first_id, b.first_id) AS id_b
    FROM simhash_pairs('SELECT h.hid, h.sh FROM pg_temp.report_hashes h JOIN pg_temp.report_cl c'
                       ' ON c.cluster_id = h.cluster_id WHERE c.counted', s.k) p
    JOIN pg_temp.report_hashes a ON a.hid = p.id_a JOIN pg_temp.report_hashes b ON b.hid = p.id_b
    WHERE a.cluster_id = b.cluster_id
    UNION ALL
    SELECT h.cluster_id, 0, h.n * (h.n - 1) / 2, h.first_id, h.second_id
    FROM pg_temp.report_hashes h JOIN pg_temp.report_cl c ON c.cluster_id = h.cluster_id
    WHERE c.counted AND h.n > 1;

    INSERT INTO crawl_report.cluster_pairs (cluster_id, distance, pairs)
    SELECT p.cluster_id, p.distance, sum(p.pairs) FROM pg_temp.report_pairs p GROUP BY p.cluster_id, p.distance;
    INSERT INTO crawl_report.pair_examples (cluster_id, distance, id_a, id_b)
    SELECT e.cluster_id, e.distance, e.id_a, e.id_b FROM (
        SELECT p.cluster_id, p.distance, p.id_a, p.id_b,
               row_number() OVER (PARTITION BY p.cluster_id ORDER BY p.distance DESC, p.id_a, p.id_b) AS r
        FROM pg_temp.report_pairs p) e
    WHERE e.r <= 20;
    INSERT INTO crawl_report.clusters (cluster_id, size, canonical, hashes, pairs)
    SELECT c.cluster_id, c.size, k.canonical, c.hashes,
           CASE WHEN c.counted THEN coalesce((SELECT sum(p.pairs) FROM crawl_report.cluster_pairs p
                                              WHERE p.cluster_id = c.cluster_id), 0) END
    FROM pg_temp.report_cl c
    JOIN (SELECT m.cluster_id, coalesce(min(m.id) FILTER (WHERE m.canonical), min(m.id)) AS canonical
          FROM pg_temp.report_members m GROUP BY m.cluster_id) k ON k.cluster_id = c.cluster_id;
    INSERT INTO crawl_report.exact_groups (sh, cluster_id, pages, first_id, second_id)
    SELECT h.sh::bigint, h.cluster_id, h.n, h.first_id, h.second_id FROM pg_temp.report_hashes h WHERE h.n > 1;
    INSERT INTO crawl_report.dup_pages (id, cluster_id, site, exact)
    SELECT m.id, m.cluster_id, m.site, h.n > 1
    FROM pg_temp.report_members m JOIN pg_temp.report_hashes h ON h.cluster_id = m.cluster_id AND h.sh = m.sh;
    CREATE TEMP TABLE report_scope ON COMMIT DROP AS SELECT n.cluster_id FROM pg_temp.report_n n;
    ANALYZE pg_temp.report_scope;
    PERFORM crawl_report.account(1);

    -- Pages per site: counted once (the first fill), then summed from what the triggers appended
    -- (since the last TRUNCATE, if one came).
    IF NOT st.filled THEN
        DELETE FROM crawl_report.site_deltas;
        INSERT INTO crawl_report.site_stats AS z (site, pages)
        SELECT p.site, count(*) FROM crawl_report.crawl p WHERE p.sh IS NOT NULL GROUP BY p.site
        ON CONFLICT (site) DO UPDATE SET pages = excluded.pages;
    ELSE
        CREATE TEMP TABLE report_deltas ON COMMIT DROP AS
        WITH d AS (DELETE FROM crawl_report.site_deltas RETURNING *) SELECT * FROM d;
        SELECT max(d.seq) INTO v_reset FROM pg_temp.report_deltas d WHERE d.truncated;
        IF v_reset IS NOT NULL THEN
            UPDATE crawl_report.site_stats SET pages = 0;
        END IF;
        INSERT INTO crawl_report.site_stats AS z (site, pages)
        SELECT d.site, sum(d.pages) FROM pg_temp.report_deltas d
        WHERE NOT d.truncated AND d.seq > coalesce(v_reset, 0) GROUP BY d.site
        ON CONFLICT (site) DO UPDATE SET pages = z.pages + excluded.pages;
        DROP TABLE pg_temp.report_deltas;
    END IF;
    DELETE FROM crawl_report.site_stats WHERE pages = 0 AND near_dup_pages = 0 AND exact_dup_pages = 0;
    UPDATE crawl_report.totals SET pages = (SELECT coalesce(sum(z.pages), 0) FROM crawl_report.site_stats z);

    UPDATE crawl_report.state SET filled = true,
                                  last_mode = CASE WHEN v_full THEN 'full' ELSE 'incremental' END;
    UPDATE crawl_report.freshness
    SET refreshed_at = now(), pages = (SELECT t.pages FROM crawl_report.totals t), changes = v_taken,
        seconds = round(extract(epoch FROM clock_timestamp() - started)::numeric, 3)
    WHERE part = 'duplicates';
    RETURN v_taken;
END
$$;
COMMENT ON FUNCTION crawl_report.refresh_step() IS
    'takes the changes the clusters applied into the report, in the caller''s REPEATABLE READ transaction; returns the changed pages taken in';

-- simhash_dedup_run for the crawl table (returns 0 at once while another session applies its changes).
CREATE FUNCTION crawl_report.apply_changes() RETURNS bigint
    LANGUAGE sql VOLATILE
    SET search_path = pg_catalog, :"ext", pg_temp
    BEGIN ATOMIC
        SELECT simhash_dedup_run(s.tbl) FROM crawl_report.settings s;
    END;
COMMENT ON FUNCTION crawl_report.apply_changes() IS
    'refresh support: applies the crawl table''s queued changes to its clusters (simhash_dedup_run)';

-- What a scheduler calls (pg_cron, or a loop), outside a transaction block:
--   CALL crawl_report.refresh();
-- It commits what came before, applies the queued changes to the clusters in a transaction of its
-- own (READ COMMITTED, as simhash_dedup_run expects), then takes them into the report in a
-- REPEATABLE READ one. Returns the changed pages taken in.
CREATE PROCEDURE crawl_report.refresh(INOUT changes bigint DEFAULT NULL)
    LANGUAGE plpgsql
    AS $$
BEGIN
    COMMIT;
    PERFORM crawl_report.apply_changes();
    COMMIT;
    SET TRANSACTION ISOLATION LEVEL REPEATABLE READ;
    changes := crawl_report.refresh_step();
    COMMIT;
END
$$;
COMMENT ON PROCEDURE crawl_report.refresh(bigint) IS
    'applies the crawl table''s queued changes to its clusters (simhash_dedup_run) and takes every applied change into the report''s tables, in one snapshot; returns the changed pages taken in';
