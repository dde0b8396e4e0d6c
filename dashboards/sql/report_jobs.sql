-- The report's job that is not kept current as pages arrive: the threshold analysis, over the
-- crawl table through the view crawl_report.crawl (id, site, sh, fp). Run by the report's owner.
-- Included by report_tables.sql, which sets :ext to the extension's schema.
--
-- The sources handed to the extension's jobs are this file's own text, every table named with its
-- schema, and run under the pinned search_path (pg_catalog, the extension's schema, pg_temp).

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
    SELECT count(*) INTO hashed FROM crawl_report.crawl WHERE sh IS NOT NULL AND fp IS NOT NULL;
    TRUNCATE crawl_report.joint_histogram, crawl_report.quadrants, crawl_report.threshold_sweep, crawl_report.heatmap_svg;
    IF hashed < 2 THEN
        -- no fingerprints column (or fewer than two pages with both): nothing to compare
        UPDATE crawl_report.freshness
        SET refreshed_at = now(), pages = hashed, seconds = 0,
            how = CASE WHEN s.fp_column IS NULL THEN 'needs a fingerprints column (dashboards/setup.sh --fingerprints)'
                       ELSE 'refreshed by crawl_report.refresh_thresholds()' END
        WHERE part = 'threshold analysis';
        RETURN hashed;
    END IF;

    -- The heat map: a uniform sample of pairs within each site (pages of one site are the pairs a
    -- crawler compares; every pair of the crawl without a site column), binned by both differences.
    INSERT INTO crawl_report.joint_histogram
    SELECT * FROM simhash_joint_histogram(format($q$
        SELECT fingerprint_diff(a.fp, b.fp), hamming(a.sh, b.sh)
        FROM simhash_sample_pairs(%L, %s, seed => %s, within_group => %L) s
        JOIN crawl_report.crawl a ON a.id = s.id_a JOIN crawl_report.crawl b ON b.id = s.id_b $q$,
        format('SELECT id%s FROM crawl_report.crawl WHERE sh IS NOT NULL AND fp IS NOT NULL',
               CASE WHEN s.site_column IS NOT NULL THEN ', site' ELSE '' END),
        sample_pairs, seed, s.site_column IS NOT NULL));

    -- The quadrants and the sweep: every pair within max_k bits or d fingerprint entries, exactly;
    -- all other pairs of the crawl are "neither".
    IF to_regclass('pg_temp.report_close_pairs') IS NOT NULL THEN
        DROP TABLE pg_temp.report_close_pairs;   -- left by a failed call earlier in this session
    END IF;
    CREATE TEMP TABLE report_close_pairs AS
    SELECT * FROM simhash_threshold_pairs('SELECT id, sh, fp FROM crawl_report.crawl WHERE sh IS NOT NULL AND fp IS NOT NULL',
                                          s.max_k, s.d);
    INSERT INTO crawl_report.quadrants
    SELECT q.*, row_number() OVER () FROM simhash_quadrants('SELECT fp_diff, sh_diff FROM pg_temp.report_close_pairs',
                                                            s.d, s.k, total_pairs => hashed * (hashed - 1) / 2) q;
    INSERT INTO crawl_report.threshold_sweep
    SELECT * FROM simhash_threshold_sweep('SELECT fp_diff, sh_diff FROM pg_temp.report_close_pairs', s.d, s.max_k);
    DROP TABLE pg_temp.report_close_pairs;

    INSERT INTO crawl_report.heatmap_svg
    SELECT scale, simhash_heatmap_svg('SELECT fp_diff, sh_diff, pairs FROM crawl_report.joint_histogram', scale, s.d, s.k,
                                      format('%s pairs of pages %s: fingerprints vs simhash',
                                             (SELECT to_char(sum(pairs), 'FM999,999,999,999') FROM crawl_report.joint_histogram),
                                             CASE WHEN s.site_column IS NULL THEN 'of the crawl' ELSE 'within sites' END))
    FROM unnest(ARRAY['log', 'linear']) scale;

    UPDATE crawl_report.freshness
    SET refreshed_at = now(), pages = hashed, how = 'refreshed by crawl_report.refresh_thresholds()',
        seconds = round(extract(epoch FROM clock_timestamp() - started)::numeric, 3)
    WHERE part = 'threshold analysis';
    RETURN hashed;
END $$;
COMMENT ON FUNCTION crawl_report.refresh_thresholds(bigint, bigint) IS
    'recomputes the threshold analysis (sampled joint histogram, quadrants, sweep, heat map SVGs); returns the pages covered';
