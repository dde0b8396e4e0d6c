-- search_path hijacking (CVE-2018-1058 / CVE-2020-14350 class): an unprivileged role that can
-- create objects in any schema of a superuser's search_path plants functions, aggregates,
-- operators and a type that the extension's SQL and PL/pgSQL bodies (and the SQL the C functions
-- build around a source) would use if they resolved names through the caller's path. Every
-- planted object, if it ever runs, logs itself, raises a NOTICE and makes the role a superuser.
-- The superuser then calls every SQL and PL/pgSQL function of the extension, and the C functions
-- that wrap a source in SQL of their own, under several search paths: the planted schemas come
-- before, between and after the extension's schema, and the extension itself is installed with
-- CREATE EXTENSION ... SCHEMA shared into a schema the role can create in.
-- Nothing planted may run, and every call must answer as it does under a clean search_path.
-- (The extension is in its own database here: pg_regress's copy stays untouched.)
SET client_min_messages = warning;
SELECT current_database() AS regress_db \gset
DROP DATABASE IF EXISTS simhash_hostile;
DROP ROLE IF EXISTS simhash_hostile;
RESET client_min_messages;
CREATE ROLE simhash_hostile NOLOGIN;
CREATE DATABASE simhash_hostile;
-- the backlogs shown are applied by the calls, not by the background worker
ALTER DATABASE simhash_hostile SET simhash.dedup_in_background = off;
\c simhash_hostile

-- The role's log, its own schemas, and CREATE on the schema the extension will be installed in.
CREATE SCHEMA hs_log AUTHORIZATION simhash_hostile;
CREATE SCHEMA hs_before AUTHORIZATION simhash_hostile;
CREATE SCHEMA hs_between AUTHORIZATION simhash_hostile;
CREATE SCHEMA hs_after AUTHORIZATION simhash_hostile;
CREATE SCHEMA shared;
GRANT USAGE, CREATE ON SCHEMA shared TO simhash_hostile;

SET ROLE simhash_hostile;
CREATE TABLE hs_log.hits (what text, ran_as name);
GRANT INSERT ON hs_log.hits TO PUBLIC;
CREATE FUNCTION hs_log.hit(what text) RETURNS void
    LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    RAISE NOTICE 'HIJACKED: % ran as %', what, current_user;
    INSERT INTO hs_log.hits VALUES (what, current_user);
    IF (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user) THEN
        ALTER ROLE simhash_hostile SUPERUSER;
    END IF;
END $$;

-- plant(s, ext): hostile look-alikes in schema s of what the bodies call; with ext, also the
-- comparisons of the extension's hamming_distance (schema ext) with integer.
CREATE FUNCTION hs_log.plant(s text, ext text DEFAULT NULL) RETURNS void
    LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    n integer := 0;
    op record;
    fn text;
BEGIN
    -- functions: (signature, result, statement)
    FOR op IN SELECT * FROM (VALUES
        ('format(text, text)', 'text', 'RETURN pg_catalog.format($1, $2)'),
        ('format(text, text, integer, integer, text)', 'text', 'RETURN pg_catalog.format($1, $2, $3, $4, $5)'),
        ('format(text, text, text)', 'text', 'RETURN pg_catalog.format($1, $2, $3)'),
        ('unnest(bigint[])', 'SETOF bigint', 'RETURN QUERY SELECT pg_catalog.unnest($1)'),
        ('generate_series(integer, integer)', 'SETOF integer', 'RETURN QUERY SELECT pg_catalog.generate_series($1, $2)'),
        ('md5(text)', 'text', 'RETURN pg_catalog.md5($1)')) AS f(sig, ret, stmt)
    LOOP
        EXECUTE pg_catalog.format('CREATE FUNCTION %I.%s RETURNS %s LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS %L',
            s, op.sig, op.ret, pg_catalog.format('BEGIN PERFORM hs_log.hit(%L); %s; END', s || '.' || op.sig, op.stmt));
    END LOOP;

    -- aggregates: count(*), min(bigint), max(integer), sum(bigint), and a dense_rank(*) that shadows
    -- the window function
    EXECUTE pg_catalog.format($f$
        CREATE FUNCTION %1$I.step_count(bigint) RETURNS bigint LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
            AS $b$BEGIN PERFORM hs_log.hit(%2$L); RETURN $1 + 1; END$b$;
        CREATE AGGREGATE %1$I.count(*) (SFUNC = %1$I.step_count, STYPE = bigint, INITCOND = '0');
        CREATE AGGREGATE %1$I.dense_rank(*) (SFUNC = %1$I.step_count, STYPE = bigint, INITCOND = '0');
        CREATE FUNCTION %1$I.step_min(bigint, bigint) RETURNS bigint LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
            STRICT AS $b$BEGIN PERFORM hs_log.hit(%3$L); IF $2 < $1 THEN RETURN $2; END IF; RETURN $1; END$b$;
        CREATE AGGREGATE %1$I.min(bigint) (SFUNC = %1$I.step_min, STYPE = bigint);
        CREATE FUNCTION %1$I.step_max(integer, integer) RETURNS integer LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
            STRICT AS $b$BEGIN PERFORM hs_log.hit(%4$L); IF $2 > $1 THEN RETURN $2; END IF; RETURN $1; END$b$;
        CREATE AGGREGATE %1$I.max(integer) (SFUNC = %1$I.step_max, STYPE = integer);
        CREATE FUNCTION %1$I.step_sum(numeric, bigint) RETURNS numeric LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
            AS $b$BEGIN PERFORM hs_log.hit(%5$L); RETURN COALESCE($1, 0) + $2; END$b$;
        CREATE AGGREGATE %1$I.sum(bigint) (SFUNC = %1$I.step_sum, STYPE = numeric);
        CREATE DOMAIN %1$I.record AS integer CHECK (VALUE IS NULL);
        $f$, s, s || '.count(*)/dense_rank(*)', s || '.min(bigint)', s || '.max(integer)', s || '.sum(bigint)');

    -- a type named text, whose check runs wherever a body declares or casts to an unqualified text
    -- (not in the extension's own schema: its install script's signatures would take it)
    IF ext IS NOT NULL THEN
        EXECUTE pg_catalog.format($f$
            CREATE FUNCTION %1$I.text_check(pg_catalog.text) RETURNS boolean LANGUAGE plpgsql
                SET search_path = pg_catalog, pg_temp
                AS $b$BEGIN PERFORM hs_log.hit(%2$L); RETURN true; END$b$;
            CREATE DOMAIN %1$I.text AS pg_catalog.text CHECK (%1$I.text_check(VALUE));
            $f$, s, s || '.text');
    END IF;

    -- operators: comparisons and arithmetic of the integer types, text concatenation, and the
    -- extension's distance comparisons
    FOR op IN
        SELECT o.name, l.t AS l, r.t AS r, CASE WHEN o.name IN ('+', '-') THEN l.t ELSE 'boolean' END AS ret
        FROM (VALUES ('='), ('<>'), ('<'), ('<='), ('>'), ('>='), ('+'), ('-')) o(name),
             (VALUES ('integer'), ('bigint')) l(t), (VALUES ('integer'), ('bigint')) r(t)
        WHERE o.name NOT IN ('+', '-') OR l.t = r.t
        UNION ALL SELECT '||', 'text', 'text', 'text'
        UNION ALL
        SELECT o.name, t.l, t.r, 'boolean'
        FROM (VALUES ('='), ('<>'), ('<'), ('<='), ('>'), ('>=')) o(name),
             (VALUES (pg_catalog.quote_ident(ext) || '.hamming_distance', 'integer'),
                     ('integer', pg_catalog.quote_ident(ext) || '.hamming_distance'),
                     (pg_catalog.quote_ident(ext) || '.hamming_distance', pg_catalog.quote_ident(ext) || '.hamming_distance')) t(l, r)
        WHERE ext IS NOT NULL
    LOOP
        n := n + 1;
        fn := pg_catalog.format('%I.hijack_op_%s', s, n);
        EXECUTE pg_catalog.format('CREATE FUNCTION %s(%s, %s) RETURNS %s LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS %L',
            fn, op.l, op.r, op.ret,
            pg_catalog.format('BEGIN PERFORM hs_log.hit(%L); RETURN $1::%s OPERATOR(pg_catalog.%s) $2::%s; END',
                pg_catalog.format('%s.%s(%s, %s)', s, op.name, op.l, op.r),
                CASE WHEN op.l = 'text' THEN 'text' WHEN op.l = 'bigint' THEN 'bigint' ELSE 'integer' END, op.name,
                CASE WHEN op.r = 'text' THEN 'text' WHEN op.r = 'bigint' THEN 'bigint' ELSE 'integer' END));
        EXECUTE pg_catalog.format('CREATE OPERATOR %I.%s (LEFTARG = %s, RIGHTARG = %s, FUNCTION = %s)',
            s, op.name, op.l, op.r, fn);
    END LOOP;
END $$;

-- Planted in the extension's schema before the extension exists ...
SELECT hs_log.plant('shared');
RESET ROLE;

CREATE EXTENSION simhash SCHEMA shared;

-- ... and everywhere else once it does.
SET ROLE simhash_hostile;
SELECT hs_log.plant('hs_before', 'shared'), hs_log.plant('hs_between', 'shared'), hs_log.plant('hs_after', 'shared');
RESET ROLE;

-- The superuser's data, made under a clean search_path.
SET search_path = shared, public;
CREATE SCHEMA hs_data;
CREATE TABLE hs_data.pages (id bigint, sh simhash, grp integer);
INSERT INTO hs_data.pages
SELECT c * 10 + m, ((hashint8(c) & x'7fffffffffffffff'::bigint) # (CASE WHEN m > 1 THEN 1::bigint << (m * 7) ELSE 0 END))::simhash,
       c % 3
FROM generate_series(1, 6) c, generate_series(1, 3) m;
CREATE FUNCTION pg_temp.fp(seed int, changed int[]) RETURNS fingerprints LANGUAGE sql AS $$
    SELECT fingerprints(array_agg(CASE WHEN i = ANY (changed) THEN -(1000 * seed + i) ELSE 1000 * seed + i END
                                  ORDER BY i)::bigint[])
    FROM generate_series(1, 128) i $$;
CREATE TABLE hs_data.crawl AS
SELECT p.id, p.sh, pg_temp.fp((p.id / 10)::int, ARRAY(SELECT generate_series(1, (p.id % 10)::int * 3))) AS fp
FROM hs_data.pages p;
CREATE TABLE hs_data.diffs (fp_diff int, sh_diff int);
INSERT INTO hs_data.diffs VALUES (0, 0), (0, 0), (0, 0), (2, 3), (10, 2), (4, 9), (50, 30), (50, 30), (128, 64);
CREATE TABLE hs_data.hist AS SELECT * FROM simhash_joint_histogram('SELECT fp_diff, sh_diff FROM hs_data.diffs');
CREATE TABLE hs_data.crawl_sk AS
SELECT c.*, resemblance_sketch(repeat('page ' || (c.id / 10) || ' ', 20) || (c.id % 10)) AS sk FROM hs_data.crawl c;
CREATE TABLE hs_data.rdiffs AS
SELECT d.*, (i % 5) / 4.0 AS resemblance FROM hs_data.diffs d, generate_series(1, 2) i;
-- A table whose duplicate clusters are kept (started, changed, run and stopped by every path), and
-- its changes: bound when made (BEGIN ATOMIC), they fire the capture triggers under the caller's path.
CREATE TABLE hs_data.dd (id bigint PRIMARY KEY, sh simhash, sk resemblance_sketch);
INSERT INTO hs_data.dd SELECT id, sh, sk FROM hs_data.crawl_sk;
CREATE INDEX ON hs_data.dd USING simhash_mih (sh);
CREATE FUNCTION hs_data.dd_change() RETURNS bigint LANGUAGE sql
BEGIN ATOMIC
    INSERT INTO hs_data.dd SELECT d.id + 1000, d.sh # '0000000000000001', d.sk FROM hs_data.dd d WHERE d.id < 40;
    UPDATE hs_data.dd SET sh = sh # '0000000000000002' WHERE id > 1040;
    DELETE FROM hs_data.dd WHERE id = 1011;
    SELECT count(*) FROM hs_data.dd;
END;
CREATE FUNCTION hs_data.dd_reset() RETURNS bigint LANGUAGE sql
BEGIN ATOMIC
    DELETE FROM hs_data.dd WHERE id > 1000;
    SELECT count(*) FROM hs_data.dd;
END;
RESET search_path;

-- Every SQL and PL/pgSQL function of the extension is called below (this list fails when one is
-- added and not called here), and shows whether its search_path is pinned: the ones that run a
-- source keep the caller's path for it and are hardened by qualifying every name instead.
SELECT p.oid::regprocedure AS function, l.lanname AS language, p.proconfig AS config
FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'simhash'
WHERE l.lanname NOT IN ('c', 'internal')
ORDER BY p.oid::regprocedure::text;

-- run_all(path): each call under search_path = path, answers as text. The driver itself is pinned
-- and builds each query before switching the path. A PL/pgSQL body is compiled once a session,
-- under the path of its first call, so each path runs in a fresh session (\c) and keeps its answers.
CREATE SCHEMA hs_driver;
CREATE TABLE hs_driver.answers (path text, call text, answer text);
CREATE FUNCTION hs_driver.run_all(path text) RETURNS TABLE (call text, answer text)
    LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    q text;
    sql text;
    seen text[] := '{}';
BEGIN
    FOREACH q IN ARRAY ARRAY[
        'SELECT * FROM shared.simhash_cluster_summary(''SELECT id, sh FROM hs_data.pages'', 3)',
        'SELECT * FROM shared.simhash_threshold_pairs(''SELECT id, sh, fp FROM hs_data.crawl'', 3, 6)',
        'SELECT shared.simhash_check_differences(1, 2)',
        'SELECT * FROM shared.simhash_joint_histogram(''SELECT fp_diff, sh_diff FROM hs_data.diffs'')',
        'SELECT * FROM shared.simhash_quadrants(''SELECT fp_diff, sh_diff FROM hs_data.diffs'', total_pairs => 100)',
        'SELECT * FROM shared.simhash_threshold_sweep(''SELECT fp_diff, sh_diff FROM hs_data.diffs'', max_k => 3)',
        'SELECT * FROM shared.simhash_pairs(''SELECT id, sh FROM hs_data.pages'', 3)',
        'SELECT * FROM shared.simhash_clusters(''SELECT id, sh FROM hs_data.pages'', 3)',
        'SELECT * FROM shared.simhash_sample_pairs(''SELECT id, grp FROM hs_data.pages'', 5, 1, true)',
        'SELECT pg_catalog.md5(shared.simhash_heatmap_svg(''SELECT * FROM hs_data.hist''))',
        'SELECT shared.simhash_lock_neighbourhood(''0123456789abcdef'', 5)',
        'SELECT * FROM shared.simhash_threshold_pairs_confirmed(''SELECT id, sh, fp, sk FROM hs_data.crawl_sk'', 3, 6)',
        'SELECT * FROM shared.simhash_confirmed_histogram(''SELECT fp_diff, sh_diff, resemblance FROM hs_data.rdiffs'', 0.5)',
        'SELECT * FROM shared.simhash_quadrants_confirmed(''SELECT fp_diff, sh_diff, resemblance FROM hs_data.rdiffs'', total_pairs => 100)',
        'SELECT * FROM shared.simhash_threshold_sweep_confirmed(''SELECT fp_diff, sh_diff, resemblance FROM hs_data.rdiffs'', max_k => 3)',
        'SELECT shared.simhash_dedup_start(''hs_data.dd'', ''id'', ''sh'', 3, ''sk'', 0.5, keep => ''id DESC'')',
        'SELECT hs_data.dd_change()',
        'SELECT pages, clusters, backlog FROM shared.simhash_dedup_status(''hs_data.dd'')',
        'SELECT shared.simhash_dedup_run(''hs_data.dd'')',
        'SELECT * FROM shared.simhash_dedup_clusters(''hs_data.dd'')',
        'SELECT pages, clusters, backlog FROM shared.simhash_dedup_status(''hs_data.dd'')',
        'SELECT shared.simhash_dedup_run()',
        'SELECT shared.simhash_dedup_wait(''hs_data.dd'')',
        'SELECT shared.simhash_dedup_stop(''hs_data.dd'')',
        'SELECT hs_data.dd_reset()']
    LOOP
        sql := 'SELECT pg_catalog.string_agg(r::pg_catalog.text, '' '' ORDER BY r::pg_catalog.text) FROM ('
               || q || ') r';
        PERFORM pg_catalog.set_config('search_path', path, true);
        EXECUTE sql INTO answer;
        PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
        call := COALESCE(pg_catalog.substring(q, 'shared\.(\w+)'), pg_catalog.substring(q, 'hs_data\.(\w+)\('));
        -- a function called twice: its calls numbered
        IF call OPERATOR(pg_catalog.=) ANY (seen) THEN
            call := call OPERATOR(pg_catalog.||) ' (' OPERATOR(pg_catalog.||)
                    (pg_catalog.array_length(pg_catalog.array_positions(seen, call), 1) OPERATOR(pg_catalog.+) 1)::pg_catalog.text
                    OPERATOR(pg_catalog.||) ')';
        END IF;
        seen := seen OPERATOR(pg_catalog.||) pg_catalog.regexp_replace(call, ' \(\d+\)$', '');
        RETURN NEXT;
    END LOOP;
END $$;

-- The answers under each hostile path, each in a session of its own, then under a path that sees
-- nothing planted (pg_catalog alone): all the same, and nothing planted runs.
\c simhash_hostile
INSERT INTO hs_driver.answers SELECT 'shared', * FROM hs_driver.run_all('shared');
\c simhash_hostile
INSERT INTO hs_driver.answers SELECT 'shared, hs_after', * FROM hs_driver.run_all('shared, hs_after');
\c simhash_hostile
INSERT INTO hs_driver.answers SELECT 'hs_before, shared', * FROM hs_driver.run_all('hs_before, shared');
\c simhash_hostile
INSERT INTO hs_driver.answers
SELECT 'hs_before, pg_catalog, hs_between, shared, hs_after', *
FROM hs_driver.run_all('hs_before, pg_catalog, hs_between, shared, hs_after');
\c simhash_hostile
INSERT INTO hs_driver.answers
SELECT 'hs_before, hs_between, hs_after, shared, pg_catalog', *
FROM hs_driver.run_all('hs_before, hs_between, hs_after, shared, pg_catalog');
\c simhash_hostile
INSERT INTO hs_driver.answers SELECT 'pg_catalog', * FROM hs_driver.run_all('pg_catalog');
SELECT call, CASE WHEN call = 'simhash_heatmap_svg' THEN '(an SVG)' ELSE answer END AS answer
FROM hs_driver.answers WHERE path = 'pg_catalog';
SELECT h.path, count(*) AS calls,
       coalesce(string_agg(c.call, ', ') FILTER (WHERE h.answer IS DISTINCT FROM c.answer), '') AS answered_otherwise
FROM hs_driver.answers h JOIN hs_driver.answers c ON c.path = 'pg_catalog' AND c.call = h.call
WHERE h.path <> 'pg_catalog'
GROUP BY h.path ORDER BY h.path;

-- Nothing ran, and the role is still unprivileged.
SELECT count(*) AS hijacks FROM hs_log.hits;
SELECT rolsuper FROM pg_roles WHERE rolname = 'simhash_hostile';

\c :regress_db
SET client_min_messages = warning;
DROP DATABASE simhash_hostile;
DROP ROLE simhash_hostile;
