-- Keeping the duplicate tables current as pages arrive: the index's insert-and-check pattern
-- (README "Checking pages as they arrive") run by a trigger for each page whose sh is set.
-- Included by report_tables.sql, which sets :ext to the extension's schema.
--
-- Each call makes the tables agree with what it sees, rather than adding blind deltas: in a
-- statement that inserts several pages, every page's trigger sees all of them (AFTER ROW triggers
-- run at the statement's end), so a pair is met twice and must be recorded once.
--
-- Concurrency: simhash_lock_neighbourhood serializes the inserters whose pages could be within k
-- bits of each other, so no pair is missed; a page with neighbours then also takes one lock for the
-- cluster tables (a merge may touch clusters far from its neighbourhood). Both are held to commit.
-- Inserters of one page a transaction never deadlock; a transaction that inserts several pages
-- into a crawl that others write to at the same time may (PostgreSQL then cancels one: retry it).

-- Adds a page with a near-duplicate to a cluster and to its package's count, unless it already is in
-- one (then false); the caller holds the cluster lock.
CREATE FUNCTION crawl_report.add_dup_page(page_id bigint, page_package text, cluster bigint)
    RETURNS boolean
    LANGUAGE plpgsql VOLATILE
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    INSERT INTO crawl_report.dup_pages (id, package, cluster_id) VALUES (page_id, page_package, cluster)
    ON CONFLICT (id) DO NOTHING;
    IF NOT FOUND THEN
        RETURN false;
    END IF;
    -- An upsert: the row of a new page's package is made at the end of its trigger.
    INSERT INTO crawl_report.package_stats AS s (package, near_dup_pages) VALUES (page_package, 1)
    ON CONFLICT (package) DO UPDATE SET near_dup_pages = s.near_dup_pages + 1;
    RETURN true;
END $$;

CREATE FUNCTION crawl_report.mark_stale() RETURNS void
    LANGUAGE sql VOLATILE
    SET search_path = pg_catalog, pg_temp
    BEGIN ATOMIC
        UPDATE crawl_report.freshness SET stale_since = now() WHERE part = 'duplicates' AND stale_since IS NULL;
    END;

CREATE FUNCTION crawl_report.page_arrived() RETURNS trigger
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER
    SET search_path = pg_catalog, :"ext", pg_temp
    AS $$
DECLARE
    k integer := (SELECT s.k FROM crawl_report.settings s);
    nb record;
    ids bigint[] := ARRAY[NEW.id];            -- NEW and its neighbours
    packages text[] := ARRAY[NEW.package];
    distances integer[] := ARRAY[0];
    same bigint[] := ARRAY[NEW.id];           -- pages with NEW's exact simhash, NEW included
    cids bigint[];
    target bigint;
    merged_size bigint;
    added bigint := 0;
    i integer;
BEGIN
    -- A deleted page, or one whose hash or package changed, may leave its pairs: the tables cannot
    -- take a pair back without rebuilding clusters, so they are marked stale until
    -- crawl_report.rebuild(). (NEW is not assigned in a DELETE trigger: test TG_OP first.)
    IF TG_OP = 'DELETE' THEN
        IF OLD.sh IS NOT NULL THEN
            PERFORM crawl_report.mark_stale();
        END IF;
        RETURN NULL;
    END IF;
    IF TG_OP = 'UPDATE' AND OLD.sh IS NOT NULL THEN
        IF OLD.sh IS DISTINCT FROM NEW.sh OR OLD.package IS DISTINCT FROM NEW.package THEN
            PERFORM crawl_report.mark_stale();
        END IF;
        RETURN NULL;
    END IF;
    IF NEW.sh IS NULL THEN
        RETURN NULL;
    END IF;

    -- Locks are taken in one order by every inserter, so that they never deadlock: the
    -- neighbourhood, then (with neighbours) the cluster lock, then the rows of the shared counters.
    -- Lock, then look: an inserter of a page within k bits of NEW waits here until we commit.
    PERFORM simhash_lock_neighbourhood(NEW.sh, k);
    -- The radius is a literal so that the planner hands "hamming(sh, $1) <= k" to the index.
    FOR nb IN EXECUTE format(
        'SELECT p.id, p.package, hamming(p.sh, $1)::integer AS distance FROM public.pages p '
        'WHERE hamming(p.sh, $1) <= %s AND p.id <> $2', k) USING NEW.sh, NEW.id
    LOOP
        ids := ids || nb.id;
        packages := packages || nb.package;
        distances := distances || nb.distance;
        IF nb.distance = 0 THEN
            same := same || nb.id;
        END IF;
    END LOOP;

    IF cardinality(ids) > 1 THEN
        PERFORM pg_advisory_xact_lock(hashtext('crawl_report.clusters'));
        WITH new_pairs AS (
            INSERT INTO crawl_report.near_pairs
            SELECT least(n.id, NEW.id), greatest(n.id, NEW.id), n.distance
            FROM unnest(ids[2:], distances[2:]) n(id, distance)
            ON CONFLICT DO NOTHING RETURNING distance)
        INSERT INTO crawl_report.pair_counts AS c
        SELECT distance, count(*) FROM new_pairs GROUP BY distance
        ON CONFLICT (distance) DO UPDATE SET pairs = c.pairs + excluded.pairs;

        -- Clusters: the pages' existing clusters merge into the largest (its members keep their
        -- label: a merge relabels the smaller clusters only), and the pages not yet in one join it.
        SELECT array_agg(DISTINCT d.cluster_id) INTO cids FROM crawl_report.dup_pages d WHERE d.id = ANY (ids);
        SELECT c.cluster_id INTO target FROM crawl_report.clusters c WHERE c.cluster_id = ANY (cids)
        ORDER BY c.size DESC, c.cluster_id LIMIT 1;
        IF target IS NULL THEN
            target := NEW.id;
            INSERT INTO crawl_report.clusters VALUES (target, 0, NEW.id);
        END IF;
        SELECT coalesce(sum(c.size), 0) INTO merged_size FROM crawl_report.clusters c
        WHERE c.cluster_id = ANY (cids) AND c.cluster_id <> target;
        UPDATE crawl_report.dup_pages SET cluster_id = target WHERE cluster_id = ANY (cids) AND cluster_id <> target;
        FOR i IN 1 .. cardinality(ids) LOOP
            IF crawl_report.add_dup_page(ids[i], packages[i], target) THEN
                added := added + 1;
            END IF;
        END LOOP;
        UPDATE crawl_report.clusters c
        SET size = c.size + merged_size + added,
            representative = least(c.representative,
                                   (SELECT min(o.representative) FROM crawl_report.clusters o WHERE o.cluster_id = ANY (cids)),
                                   (SELECT min(x) FROM unnest(ids) x))
        WHERE c.cluster_id = target;
        DELETE FROM crawl_report.clusters WHERE cluster_id = ANY (cids) AND cluster_id <> target;

        -- Exact duplicates: every page of NEW's simhash is within 0 bits, so "same" is the whole group.
        IF cardinality(same) > 1 THEN
            WITH flipped AS (
                UPDATE crawl_report.dup_pages SET exact = true WHERE id = ANY (same) AND NOT exact RETURNING package)
            INSERT INTO crawl_report.package_stats AS s (package, exact_dup_pages)
            SELECT package, count(*) FROM flipped GROUP BY package
            ON CONFLICT (package) DO UPDATE SET exact_dup_pages = s.exact_dup_pages + excluded.exact_dup_pages;
            INSERT INTO crawl_report.exact_groups AS g VALUES (NEW.sh::bigint, cardinality(same), (SELECT min(x) FROM unnest(same) x))
            ON CONFLICT (sh) DO UPDATE SET pages = excluded.pages, first_id = least(g.first_id, excluded.first_id);
        END IF;
    END IF;

    INSERT INTO crawl_report.package_stats AS s (package, pages) VALUES (NEW.package, 1)
    ON CONFLICT (package) DO UPDATE SET pages = s.pages + 1;
    RETURN NULL;
END $$;
COMMENT ON FUNCTION crawl_report.page_arrived() IS
    'trigger: adds a page whose simhash is set to the duplicate tables (pairs, clusters, exact groups, package counts)';

CREATE TRIGGER crawl_report_page_arrived
    AFTER INSERT OR UPDATE OF sh, package OR DELETE ON public.pages
    FOR EACH ROW EXECUTE FUNCTION crawl_report.page_arrived();
