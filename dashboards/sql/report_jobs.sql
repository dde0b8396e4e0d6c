-- The report's jobs: rebuild the duplicate tables from the whole crawl (the first fill, and after
-- pages changed or were deleted), and refresh the threshold analysis. Run by the report's owner.
-- Included by report_tables.sql, which sets :ext to the extension's schema.
--
-- The sources handed to the extension's jobs are this file's own text, every table named with its
-- schema, and run under the pinned search_path (pg_catalog, the extension's schema, pg_temp).

CREATE FUNCTION crawl_report.rebuild() RETURNS bigint
    LANGUAGE plpgsql VOLATILE
    SET search_path = pg_catalog, :"ext", pg_temp
    AS $$
DECLARE
    k integer := (SELECT s.k FROM crawl_report.settings s);
    started timestamptz := clock_timestamp();
    hashed bigint;
BEGIN
    -- Inserts wait until the rebuild commits, so no page is missed or counted twice.
    LOCK TABLE public.pages IN SHARE MODE;
    TRUNCATE crawl_report.package_stats, crawl_report.near_pairs, crawl_report.pair_counts,
             crawl_report.dup_pages, crawl_report.clusters, crawl_report.exact_groups;

    INSERT INTO crawl_report.near_pairs
    SELECT p.id_a, p.id_b, p.distance FROM simhash_pairs('SELECT id, sh FROM public.pages WHERE sh IS NOT NULL', k) p;
    INSERT INTO crawl_report.pair_counts SELECT distance, count(*) FROM crawl_report.near_pairs GROUP BY distance;

    INSERT INTO crawl_report.exact_groups
    SELECT sh::bigint, count(*), min(id) FROM public.pages WHERE sh IS NOT NULL GROUP BY sh HAVING count(*) > 1;

    -- A cluster is labelled by its smallest member, so a label is always a member's page id: the
    -- trigger labels a new cluster with its new page, which no cluster can have taken.
    INSERT INTO crawl_report.dup_pages (id, package, cluster_id, exact)
    SELECT c.id, p.package, min(c.id) OVER (PARTITION BY c.cluster_id),
           EXISTS (SELECT FROM crawl_report.exact_groups g WHERE g.sh = p.sh::bigint)
    FROM simhash_clusters('SELECT id, sh FROM public.pages WHERE sh IS NOT NULL', k) c
    JOIN public.pages p ON p.id = c.id;
    INSERT INTO crawl_report.clusters
    SELECT cluster_id, count(*), min(id) FROM crawl_report.dup_pages GROUP BY cluster_id;

    INSERT INTO crawl_report.package_stats (package, pages, near_dup_pages, exact_dup_pages)
    SELECT p.package, count(*), count(d.id), count(d.id) FILTER (WHERE d.exact)
    FROM public.pages p LEFT JOIN crawl_report.dup_pages d ON d.id = p.id
    WHERE p.sh IS NOT NULL GROUP BY p.package;

    SELECT sum(pages) INTO hashed FROM crawl_report.package_stats;
    UPDATE crawl_report.freshness
    SET refreshed_at = now(), pages = coalesce(hashed, 0), stale_since = NULL,
        seconds = round(extract(epoch FROM clock_timestamp() - started)::numeric, 3)
    WHERE part = 'duplicates';
    ANALYZE crawl_report.near_pairs, crawl_report.dup_pages, crawl_report.clusters, crawl_report.exact_groups;
    RETURN coalesce(hashed, 0);
END $$;
COMMENT ON FUNCTION crawl_report.rebuild() IS
    'refills the duplicate tables from the whole crawl with simhash_pairs and simhash_clusters; returns the pages covered';

CREATE FUNCTION crawl_report.refresh_thresholds(sample_pairs bigint DEFAULT 2000000, seed bigint DEFAULT 1)
    RETURNS bigint
    LANGUAGE plpgsql VOLATILE
    SET search_path = pg_catalog, :"ext", pg_temp
    AS $$
DECLARE
    s crawl_report.settings;
    started timestamptz := clock_timestamp();
    hashed bigint;
BEGIN
    SELECT * INTO s FROM crawl_report.settings;
    SELECT count(*) INTO hashed FROM public.pages WHERE sh IS NOT NULL AND fp IS NOT NULL;

    -- The heat map: a uniform sample of pairs within each package (pages of one site are the
    -- pairs a crawler compares), binned by both differences.
    TRUNCATE crawl_report.joint_histogram;
    INSERT INTO crawl_report.joint_histogram
    SELECT * FROM simhash_joint_histogram(format($q$
        SELECT fingerprint_diff(a.fp, b.fp), hamming(a.sh, b.sh)
        FROM simhash_sample_pairs('SELECT id, package FROM public.pages WHERE sh IS NOT NULL AND fp IS NOT NULL',
                                  %s, seed => %s, within_group => true) s
        JOIN public.pages a ON a.id = s.id_a JOIN public.pages b ON b.id = s.id_b $q$, sample_pairs, seed));

    -- The quadrants and the sweep: every pair within max_k bits or d fingerprint entries, exactly;
    -- all other pairs of the crawl are "neither".
    IF to_regclass('pg_temp.report_close_pairs') IS NOT NULL THEN
        DROP TABLE pg_temp.report_close_pairs;   -- left by a failed call earlier in this session
    END IF;
    CREATE TEMP TABLE report_close_pairs AS
    SELECT * FROM simhash_threshold_pairs('SELECT id, sh, fp FROM public.pages WHERE sh IS NOT NULL AND fp IS NOT NULL',
                                          s.max_k, s.d);
    TRUNCATE crawl_report.quadrants, crawl_report.threshold_sweep;
    INSERT INTO crawl_report.quadrants
    SELECT q.*, row_number() OVER () FROM simhash_quadrants('SELECT fp_diff, sh_diff FROM pg_temp.report_close_pairs',
                                                            s.d, s.k, total_pairs => hashed * (hashed - 1) / 2) q;
    INSERT INTO crawl_report.threshold_sweep
    SELECT * FROM simhash_threshold_sweep('SELECT fp_diff, sh_diff FROM pg_temp.report_close_pairs', s.d, s.max_k);
    DROP TABLE pg_temp.report_close_pairs;

    TRUNCATE crawl_report.heatmap_svg;
    INSERT INTO crawl_report.heatmap_svg
    SELECT scale, simhash_heatmap_svg('SELECT fp_diff, sh_diff, pairs FROM crawl_report.joint_histogram', scale, s.d, s.k,
                                      format('%s pairs of pages within packages: fingerprints vs simhash',
                                             (SELECT to_char(sum(pairs), 'FM999,999,999,999') FROM crawl_report.joint_histogram)))
    FROM unnest(ARRAY['log', 'linear']) scale;

    UPDATE crawl_report.freshness
    SET refreshed_at = now(), pages = hashed, stale_since = NULL,
        seconds = round(extract(epoch FROM clock_timestamp() - started)::numeric, 3)
    WHERE part = 'threshold analysis';
    RETURN hashed;
END $$;
COMMENT ON FUNCTION crawl_report.refresh_thresholds(bigint, bigint) IS
    'recomputes the threshold analysis (sampled joint histogram, quadrants, sweep, heat map SVGs); returns the pages covered';

-- Only the report's owner runs its jobs; the trigger runs as its owner whoever inserts the page.
REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA crawl_report FROM PUBLIC;
