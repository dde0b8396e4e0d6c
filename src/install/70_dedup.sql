-- ===== Duplicate clusters kept current (README "Keeping duplicate clusters current") ============
-- simhash_dedup_start(tbl, ...) registers a table and computes its clusters; from then on
-- statement-level triggers with transition tables queue the ids of the pages that change
-- (simhash_dedup_queue: a plain INSERT, no lock the maintainer holds), and simhash_dedup_run()
-- applies the queue in batches: each changed page probes its neighbours through the table's index,
-- and only the clusters the batch touches are recomputed (a touched cluster's other members are
-- re-split among themselves: nothing outside a connected component is linked to it). The state is
-- in ordinary tables (WAL-logged, replicated, kept by pg_upgrade; not dumped, see below).
-- Row-level security on them: a role sees the rows of the tables it may read and changes those of
-- the tables it owns; the capture triggers queue changes of the tables their writer may write.
-- Every function pins search_path and names the extension's objects with their schema; the
-- table's own names go through format('%I') and regclass.

CREATE TABLE simhash_dedup_tables (
    tbl regclass PRIMARY KEY,
    id_column name NOT NULL,
    hash_column name NOT NULL,
    k integer NOT NULL,
    sketch_column name,
    min_resemblance double precision,
    keep text,
    next_cluster_id bigint NOT NULL DEFAULT 1,
    started timestamp with time zone NOT NULL DEFAULT pg_catalog.now(),
    last_run timestamp with time zone,
    applied bigint NOT NULL DEFAULT 0,
    -- what simhash_dedup_status reports, kept by start and each batch (counting is O(members))
    pages bigint NOT NULL DEFAULT 0,
    clusters bigint NOT NULL DEFAULT 0);

CREATE TABLE simhash_dedup_members (
    tbl regclass NOT NULL,
    id bigint NOT NULL,
    cluster_id bigint NOT NULL,
    canonical boolean NOT NULL DEFAULT false,
    PRIMARY KEY (tbl, id));
CREATE INDEX simhash_dedup_members_cluster ON simhash_dedup_members (tbl, cluster_id);

-- id NULL: the table was truncated.
CREATE TABLE simhash_dedup_queue (
    tbl regclass NOT NULL,
    id bigint,
    queued timestamp with time zone NOT NULL DEFAULT pg_catalog.clock_timestamp());
CREATE INDEX simhash_dedup_queue_order ON simhash_dedup_queue (tbl, queued);

COMMENT ON TABLE simhash_dedup_tables IS
    'the tables whose duplicate clusters simhash_dedup_run keeps current, with their settings (simhash_dedup_start)';
COMMENT ON TABLE simhash_dedup_members IS
    'one row per page of a registered table that has a near-duplicate: its cluster and whether it is the cluster''s canonical page (readable by the roles that may read the table)';
COMMENT ON TABLE simhash_dedup_queue IS
    'pages of registered tables changed since simhash_dedup_run last applied them (id NULL: the table was truncated)';

-- Not marked with pg_extension_config_dump: pg_dump reads configuration tables with row_security
-- off, so a role under these tables' policies (any database owner but a superuser) could no longer
-- dump its database. A restore brings the capture triggers back with the table; simhash_dedup_start
-- again recomputes the clusters.

ALTER TABLE simhash_dedup_tables ENABLE ROW LEVEL SECURITY;
ALTER TABLE simhash_dedup_members ENABLE ROW LEVEL SECURITY;
ALTER TABLE simhash_dedup_queue ENABLE ROW LEVEL SECURITY;
GRANT SELECT, INSERT, UPDATE, DELETE ON simhash_dedup_tables, simhash_dedup_members TO PUBLIC;
GRANT SELECT, INSERT, DELETE ON simhash_dedup_queue TO PUBLIC;
CREATE POLICY simhash_dedup_read ON simhash_dedup_tables FOR SELECT
    USING (pg_catalog.has_table_privilege(tbl, 'SELECT'));
CREATE POLICY simhash_dedup_owner ON simhash_dedup_tables
    USING (pg_catalog.pg_has_role((SELECT c.relowner FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) tbl), 'USAGE'))
    WITH CHECK (pg_catalog.pg_has_role((SELECT c.relowner FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) tbl), 'USAGE'));
CREATE POLICY simhash_dedup_read ON simhash_dedup_members FOR SELECT
    USING (pg_catalog.has_table_privilege(tbl, 'SELECT'));
CREATE POLICY simhash_dedup_owner ON simhash_dedup_members
    USING (pg_catalog.pg_has_role((SELECT c.relowner FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) tbl), 'USAGE'))
    WITH CHECK (pg_catalog.pg_has_role((SELECT c.relowner FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) tbl), 'USAGE'));
CREATE POLICY simhash_dedup_read ON simhash_dedup_queue FOR SELECT
    USING (pg_catalog.has_table_privilege(tbl, 'SELECT'));
CREATE POLICY simhash_dedup_owner ON simhash_dedup_queue
    USING (pg_catalog.pg_has_role((SELECT c.relowner FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) tbl), 'USAGE'))
    WITH CHECK (pg_catalog.pg_has_role((SELECT c.relowner FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) tbl), 'USAGE'));
CREATE POLICY simhash_dedup_capture ON simhash_dedup_queue FOR INSERT
    WITH CHECK (pg_catalog.has_table_privilege(tbl, 'INSERT, UPDATE, DELETE, TRUNCATE'));

-- A registered table's work in simhash_dedup_run, as its owner in a security-restricted operation
-- (the keep expression runs with the owner's rights only, whoever runs it).
CREATE FUNCTION simhash_dedup_as_owner(tbl regclass, max_changes integer) RETURNS bigint
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
-- Asks for the database's background worker when the transaction commits
-- (simhash.dedup_in_background).
CREATE FUNCTION simhash_dedup_wake() RETURNS void
    AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE PARALLEL UNSAFE;

-- The capture trigger: one statement per writing statement, whatever its row count. Arguments:
-- the id, hash and sketch ('' for none) columns. An UPDATE queues the pages whose id, hash or sketch
-- changed (transition tables cannot be limited to columns: UPDATE OF is not allowed with them).
CREATE FUNCTION simhash_dedup_capture() RETURNS trigger
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    id_col text := TG_ARGV[0];
    hash_col text := TG_ARGV[1];
    sketch_col text := TG_ARGV[2];
    same text;
BEGIN
    IF TG_OP = 'INSERT' THEN
        EXECUTE format('INSERT INTO @extschema@.simhash_dedup_queue (tbl, id) SELECT $1, n.%1$I FROM simhash_dedup_new n'
                       ' WHERE n.%1$I IS NOT NULL AND n.%2$I IS NOT NULL', id_col, hash_col)
            USING TG_RELID;
    ELSIF TG_OP = 'DELETE' THEN
        EXECUTE format('INSERT INTO @extschema@.simhash_dedup_queue (tbl, id) SELECT $1, o.%1$I FROM simhash_dedup_old o'
                       ' WHERE o.%1$I IS NOT NULL AND o.%2$I IS NOT NULL', id_col, hash_col)
            USING TG_RELID;
    ELSIF TG_OP = 'UPDATE' THEN
        same := format('(o.%1$I OPERATOR(@extschema@.=) n.%1$I OR o.%1$I IS NULL AND n.%1$I IS NULL)', hash_col);
        IF sketch_col <> '' THEN
            same := same || format(' AND (o.%1$I OPERATOR(@extschema@.=) n.%1$I OR o.%1$I IS NULL AND n.%1$I IS NULL)',
                                   sketch_col);
        END IF;
        EXECUTE format('INSERT INTO @extschema@.simhash_dedup_queue (tbl, id) SELECT $1, c.id FROM ('
                       ' SELECT n.%1$I AS id FROM simhash_dedup_new n WHERE NOT EXISTS'
                       '  (SELECT FROM simhash_dedup_old o WHERE o.%1$I = n.%1$I AND %2$s)'
                       ' UNION SELECT o.%1$I FROM simhash_dedup_old o WHERE NOT EXISTS'
                       '  (SELECT FROM simhash_dedup_new n WHERE n.%1$I = o.%1$I AND %2$s)) c'
                       ' WHERE c.id IS NOT NULL', id_col, same)
            USING TG_RELID;
    ELSIF TG_OP = 'TRUNCATE' THEN
        INSERT INTO @extschema@.simhash_dedup_queue (tbl, id) VALUES (TG_RELID, NULL);
    END IF;
    PERFORM @extschema@.simhash_dedup_wake();
    RETURN NULL;
END
$$;

-- The capture triggers of a table, one per event, each with the transition tables it needs.
CREATE FUNCTION simhash_dedup_trigger(tbl regclass, id_column name, hash_column name, sketch_column name) RETURNS void
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    v_tbl regclass := tbl;
    t record;
BEGIN
    FOR t IN SELECT * FROM (VALUES ('insert', ' REFERENCING NEW TABLE AS simhash_dedup_new'),
                                   ('update', ' REFERENCING OLD TABLE AS simhash_dedup_old NEW TABLE AS simhash_dedup_new'),
                                   ('delete', ' REFERENCING OLD TABLE AS simhash_dedup_old'),
                                   ('truncate', '')) v (event, transition) LOOP
        EXECUTE format('CREATE TRIGGER %I AFTER %s ON %s%s FOR EACH STATEMENT'
                       ' EXECUTE FUNCTION @extschema@.simhash_dedup_capture(%L, %L, %L)',
                       'simhash_dedup_' || t.event, upper(t.event), v_tbl, t.transition,
                       id_column, hash_column, coalesce(sketch_column, ''));
    END LOOP;
END
$$;

-- Drops a table's capture triggers: those that call simhash_dedup_capture, whatever their names
-- (a restored table's too).
CREATE FUNCTION simhash_dedup_untrigger(tbl regclass) RETURNS void
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    v_tbl regclass := tbl;
    v_trigger name;
BEGIN
    FOR v_trigger IN SELECT tr.tgname FROM pg_trigger tr
                     WHERE tr.tgrelid = v_tbl AND tr.tgfoid = '@extschema@.simhash_dedup_capture()'::regprocedure LOOP
        EXECUTE format('DROP TRIGGER %I ON %s', v_trigger, v_tbl);
    END LOOP;
END
$$;

-- The maintainer's work tables, temporary, made once a session (readable by every role the session
-- switches to: a run over several tables works as each table's owner), emptied before each batch.
CREATE FUNCTION simhash_dedup_work() RETURNS void
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    IF to_regclass('pg_temp.simhash_dedup_batch') IS NULL THEN
        -- the changed pages of a batch
        CREATE TEMP TABLE simhash_dedup_batch (id bigint PRIMARY KEY) ON COMMIT DELETE ROWS;
        -- the members of the clusters the batch touches (changed: in the batch)
        CREATE TEMP TABLE simhash_dedup_old (id bigint PRIMARY KEY, cluster_id bigint NOT NULL,
            canonical boolean NOT NULL, changed boolean NOT NULL) ON COMMIT DELETE ROWS;
        -- the pages to place and their unit: a part of a touched cluster, a changed page, one unit
        -- per untouched cluster a probe found (b_cluster), a neighbour with no cluster yet
        CREATE TEMP TABLE simhash_dedup_node (id bigint PRIMARY KEY, unit bigint NOT NULL, b_cluster bigint)
            ON COMMIT DELETE ROWS;
        -- probe pairs (changed page, neighbour), then the edges between units
        CREATE TEMP TABLE simhash_dedup_edge (a bigint NOT NULL, b bigint NOT NULL) ON COMMIT DELETE ROWS;
        CREATE TEMP TABLE simhash_dedup_uedge (a bigint NOT NULL, b bigint NOT NULL) ON COMMIT DELETE ROWS;
        CREATE TEMP TABLE simhash_dedup_label (unit bigint PRIMARY KEY, l bigint NOT NULL) ON COMMIT DELETE ROWS;
        -- the placed pages: component (its smallest unit), old cluster, untouched cluster
        CREATE TEMP TABLE simhash_dedup_final (id bigint PRIMARY KEY, comp bigint NOT NULL, old_cluster bigint,
            was_canonical boolean NOT NULL DEFAULT false, b_cluster bigint) ON COMMIT DELETE ROWS;
        CREATE TEMP TABLE simhash_dedup_compid (comp bigint PRIMARY KEY, cluster_id bigint NOT NULL)
            ON COMMIT DELETE ROWS;
        GRANT ALL ON pg_temp.simhash_dedup_batch, pg_temp.simhash_dedup_old, pg_temp.simhash_dedup_node,
            pg_temp.simhash_dedup_edge, pg_temp.simhash_dedup_uedge, pg_temp.simhash_dedup_label, pg_temp.simhash_dedup_final,
            pg_temp.simhash_dedup_compid TO PUBLIC;
    END IF;
    DELETE FROM pg_temp.simhash_dedup_batch;
    DELETE FROM pg_temp.simhash_dedup_old;
    DELETE FROM pg_temp.simhash_dedup_node;
    DELETE FROM pg_temp.simhash_dedup_edge;
    DELETE FROM pg_temp.simhash_dedup_uedge;
    DELETE FROM pg_temp.simhash_dedup_label;
    DELETE FROM pg_temp.simhash_dedup_final;
    DELETE FROM pg_temp.simhash_dedup_compid;
END
$$;

-- The canonical page of each cluster of pg_temp.simhash_dedup_compid: the first by the table's
-- keep (then by id) among the candidates, the pages of pg_temp.simhash_dedup_final and the clusters'
-- canonical pages so far (a cluster's other members lost to its canonical page before). Changes
-- only the rows whose flag changes. (Joins, not IN lists or arrays: a start may pass millions.)
CREATE FUNCTION simhash_dedup_canonical(tbl regclass) RETURNS bigint
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    v_tbl regclass := tbl;
    r record;
    changed bigint;
BEGIN
    SELECT g.id_column, g.keep INTO r FROM @extschema@.simhash_dedup_tables g WHERE g.tbl = v_tbl;
    -- (MATERIALIZED: flattened, the choice would be evaluated again for every member row.)
    EXECUTE format($q$
        WITH ch AS MATERIALIZED (
            SELECT g.simhash_dedup_cluster,
                   (SELECT t.%1$I FROM %2$s t WHERE t.%1$I = ANY (g.simhash_dedup_ids)
                    ORDER BY %3$s, t.%1$I LIMIT 1) AS chosen
            FROM (SELECT c.cluster_id AS simhash_dedup_cluster, array_agg(c.id) AS simhash_dedup_ids
                  FROM (SELECT x.cluster_id, x.id FROM pg_temp.simhash_dedup_compid i
                        JOIN @extschema@.simhash_dedup_members x ON x.tbl = $1 AND x.cluster_id = i.cluster_id
                        WHERE x.canonical
                        UNION
                        SELECT x.cluster_id, x.id FROM pg_temp.simhash_dedup_final f
                        JOIN @extschema@.simhash_dedup_members x ON x.tbl = $1 AND x.id = f.id) c
                  GROUP BY c.cluster_id) g)
        UPDATE @extschema@.simhash_dedup_members m SET canonical = (m.id = ch.chosen)
        FROM ch
        WHERE m.tbl = $1 AND m.cluster_id = ch.simhash_dedup_cluster AND ch.chosen IS NOT NULL
          AND (m.canonical OR m.id = ch.chosen) AND m.canonical <> (m.id = ch.chosen)$q$,
        r.id_column, v_tbl, coalesce(r.keep, format('t.%I', r.id_column)))
        USING v_tbl;
    GET DIAGNOSTICS changed = ROW_COUNT;
    RETURN changed;
END
$$;

-- Forgets a table's state (the triggers are the caller's business).
CREATE FUNCTION simhash_dedup_forget(tbl regclass) RETURNS void
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    v_tbl oid := tbl;
BEGIN
    DELETE FROM @extschema@.simhash_dedup_members m WHERE m.tbl = v_tbl;
    DELETE FROM @extschema@.simhash_dedup_queue q WHERE q.tbl = v_tbl;
    DELETE FROM @extschema@.simhash_dedup_tables g WHERE g.tbl = v_tbl;
END
$$;

CREATE FUNCTION simhash_dedup_start(tbl regclass, id_column name, hash_column name, k integer DEFAULT 5,
                                    sketch_column name DEFAULT NULL,
                                    min_resemblance double precision DEFAULT 0.87, keep text DEFAULT NULL)
    RETURNS bigint
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    v_tbl regclass := tbl;
    v_id name := id_column;
    v_hash name := hash_column;
    v_k integer := k;
    v_sketch name := sketch_column;
    v_min double precision := min_resemblance;
    v_keep text := keep;
    v_rel record;
    v_type oid;
    v_attnum smallint;
    v_source text;
    v_clustering text;
    v_canonical text;
    v_join text := '';
    v_base bigint;
    v_pages bigint;
    v_clusters bigint;
BEGIN
    IF v_tbl IS NULL OR v_id IS NULL OR v_hash IS NULL OR v_k IS NULL THEN
        RAISE EXCEPTION 'simhash_dedup_start: tbl, id_column, hash_column and k must not be NULL' USING ERRCODE = '22004';
    END IF;
    SELECT c.relkind, c.relowner, c.relpersistence INTO v_rel FROM pg_class c WHERE c.oid = v_tbl;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'relation with OID % does not exist', v_tbl::oid USING ERRCODE = '42P01';
    END IF;
    IF v_rel.relkind <> 'r' OR v_rel.relpersistence = 't' THEN
        RAISE EXCEPTION '% is not a permanent ordinary table', v_tbl USING ERRCODE = '42809',
            HINT = 'simhash_dedup_start takes a table; views, partitioned, foreign and temporary tables are not supported.';
    END IF;
    IF NOT pg_has_role(v_rel.relowner, 'USAGE') THEN
        RAISE EXCEPTION 'must be owner of table %', v_tbl USING ERRCODE = '42501';
    END IF;
    IF v_k < 0 OR v_k > 64 THEN
        RAISE EXCEPTION 'simhash radius k must be between 0 and 64, got %', v_k USING ERRCODE = '22023';
    END IF;
    SELECT a.atttypid INTO v_type FROM pg_attribute a
    WHERE a.attrelid = v_tbl AND a.attname = v_id AND a.attnum > 0 AND NOT a.attisdropped;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'column "%" of relation % does not exist', v_id, v_tbl USING ERRCODE = '42703';
    END IF;
    IF v_type NOT IN ('pg_catalog.int2'::regtype, 'pg_catalog.int4'::regtype, 'pg_catalog.int8'::regtype) THEN
        RAISE EXCEPTION 'id column "%" of % is of type %, not smallint, integer or bigint', v_id, v_tbl, v_type::regtype
            USING ERRCODE = '42804';
    END IF;
    SELECT a.atttypid, a.attnum INTO v_type, v_attnum FROM pg_attribute a
    WHERE a.attrelid = v_tbl AND a.attname = v_hash AND a.attnum > 0 AND NOT a.attisdropped;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'column "%" of relation % does not exist', v_hash, v_tbl USING ERRCODE = '42703';
    END IF;
    IF v_type <> '@extschema@.simhash'::regtype THEN
        RAISE EXCEPTION 'hash column "%" of % is of type %, not simhash', v_hash, v_tbl, v_type::regtype
            USING ERRCODE = '42804';
    END IF;
    IF v_sketch IS NOT NULL THEN
        SELECT a.atttypid INTO v_type FROM pg_attribute a
        WHERE a.attrelid = v_tbl AND a.attname = v_sketch AND a.attnum > 0 AND NOT a.attisdropped;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'column "%" of relation % does not exist', v_sketch, v_tbl USING ERRCODE = '42703';
        END IF;
        IF v_type <> '@extschema@.resemblance_sketch'::regtype THEN
            RAISE EXCEPTION 'sketch column "%" of % is of type %, not resemblance_sketch', v_sketch, v_tbl, v_type::regtype
                USING ERRCODE = '42804';
        END IF;
        IF v_min IS NULL OR NOT (v_min >= 0 AND v_min <= 1) THEN
            RAISE EXCEPTION 'min_resemblance must be between 0 and 1, got %', v_min USING ERRCODE = '22023';
        END IF;
    ELSE
        v_min := NULL;
    END IF;
    IF strpos(v_keep, ';') > 0 THEN
        RAISE EXCEPTION 'keep must be an ORDER BY list over the columns of %, got "%"', v_tbl, v_keep
            USING ERRCODE = '22023';
    END IF;
    IF EXISTS (SELECT FROM @extschema@.simhash_dedup_tables g WHERE g.tbl = v_tbl) THEN
        RAISE EXCEPTION 'duplicate clusters of % are already kept', v_tbl USING ERRCODE = '42710',
            HINT = 'simhash_dedup_stop it first to start it with other settings.';
    END IF;
    IF NOT EXISTS (SELECT FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid JOIN pg_am am ON am.oid = ic.relam
                   WHERE i.indrelid = v_tbl AND i.indkey[0] = v_attnum AND am.amname IN ('simhash_mih', 'gist', 'gin')) THEN
        RAISE WARNING '% has no index on %: each changed page will read the whole table', v_tbl, quote_ident(v_hash)
            USING HINT = format('CREATE INDEX ON %s USING simhash_mih (%I);', v_tbl, v_hash);
    END IF;

    -- A restored table comes with its triggers, and maybe changes queued since: both replaced.
    PERFORM @extschema@.simhash_dedup_untrigger(v_tbl);
    DELETE FROM @extschema@.simhash_dedup_queue q WHERE q.tbl = v_tbl;
    INSERT INTO @extschema@.simhash_dedup_tables (tbl, id_column, hash_column, k, sketch_column, min_resemblance, keep)
    VALUES (v_tbl, v_id, v_hash, v_k, v_sketch, v_min, v_keep);
    PERFORM @extschema@.simhash_dedup_work();
    -- keep parses as an ORDER BY list of the table (over no cluster yet: the work tables are empty)
    BEGIN
        PERFORM @extschema@.simhash_dedup_canonical(v_tbl);
    EXCEPTION WHEN OTHERS THEN
        RAISE EXCEPTION 'keep must be an ORDER BY list over the columns of %: %', v_tbl, SQLERRM USING ERRCODE = '22023';
    END;

    PERFORM @extschema@.simhash_dedup_trigger(v_tbl, v_id, v_hash, v_sketch);

    -- The initial clusters, written in one statement from the all-pairs job (whose cluster_id is a
    -- cluster's smallest page): ids in the order of their smallest page, the canonical page the first
    -- by keep (without keep, the smallest page: no need to read the table).
    IF v_sketch IS NULL THEN
        v_source := format('SELECT t.%1$I, t.%2$I FROM %3$s t WHERE t.%1$I IS NOT NULL AND t.%2$I IS NOT NULL',
                           v_id, v_hash, v_tbl);
        v_clustering := format('@extschema@.simhash_clusters(%L, %s)', v_source, v_k);
    ELSE
        v_source := format('SELECT t.%1$I, t.%2$I, t.%4$I FROM %3$s t'
                           ' WHERE t.%1$I IS NOT NULL AND t.%2$I IS NOT NULL AND t.%4$I IS NOT NULL',
                           v_id, v_hash, v_tbl, v_sketch);
        v_clustering := format('@extschema@.simhash_clusters_confirmed(%L, %s, $3)', v_source, v_k);
    END IF;
    IF v_keep IS NULL THEN
        v_canonical := 'c.simhash_dedup_page = c.simhash_dedup_comp';
    ELSE
        v_canonical := format('row_number() OVER (PARTITION BY c.simhash_dedup_comp ORDER BY %s, t.%I) = 1', v_keep, v_id);
        v_join := format(' JOIN %s t ON t.%I = c.simhash_dedup_page', v_tbl, v_id);
    END IF;
    SELECT g.next_cluster_id INTO v_base FROM @extschema@.simhash_dedup_tables g WHERE g.tbl = v_tbl;
    EXECUTE format($q$
        WITH placed AS (
            INSERT INTO @extschema@.simhash_dedup_members (tbl, id, cluster_id, canonical)
            SELECT $1, c.simhash_dedup_page, $2 + dense_rank() OVER (ORDER BY c.simhash_dedup_comp) - 1, %s
            FROM (SELECT x.id AS simhash_dedup_page, x.cluster_id AS simhash_dedup_comp FROM %s x) c%s
            RETURNING cluster_id)
        SELECT count(*), coalesce(max(p.cluster_id) - $2 + 1, 0) FROM placed p$q$, v_canonical, v_clustering, v_join)
        INTO v_pages, v_clusters USING v_tbl, v_base, v_min;
    UPDATE @extschema@.simhash_dedup_tables g
    SET next_cluster_id = v_base + v_clusters, pages = v_pages, clusters = v_clusters, last_run = clock_timestamp()
    WHERE g.tbl = v_tbl;
    RETURN v_clusters;
END
$$;

-- One batch: the changed pages in pg_temp.simhash_dedup_batch (with every member of a truncated
-- table), applied to the clusters. The caller holds the table's maintainer lock and has emptied the
-- other work tables (simhash_dedup_work).
CREATE FUNCTION simhash_dedup_apply(tbl regclass) RETURNS void
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    v_tbl regclass := tbl;
    r record;
    v_live_d text;
    v_confirm text := '';
    v_source text;
    v_changed bigint;
    v_jumped bigint;
    v_new bigint;
    v_base bigint;
BEGIN
    SELECT g.* INTO r FROM @extschema@.simhash_dedup_tables g WHERE g.tbl = v_tbl;

    -- The clusters the batch touches, with all their members.
    INSERT INTO pg_temp.simhash_dedup_old (id, cluster_id, canonical, changed)
    SELECT m.id, m.cluster_id, m.canonical, EXISTS (SELECT FROM pg_temp.simhash_dedup_batch b WHERE b.id = m.id)
    FROM @extschema@.simhash_dedup_members m
    WHERE m.tbl = v_tbl AND m.cluster_id IN (
        SELECT x.cluster_id FROM @extschema@.simhash_dedup_members x JOIN pg_temp.simhash_dedup_batch b ON b.id = x.id
        WHERE x.tbl = v_tbl);

    -- Their unchanged members, re-split into the components of the edges among themselves: every
    -- page linked to one of them was a member too, or changed (and probes below).
    IF EXISTS (SELECT FROM pg_temp.simhash_dedup_old o WHERE NOT o.changed) THEN
        IF r.sketch_column IS NULL THEN
            v_source := format('SELECT t.%1$I, t.%2$I FROM %3$s t JOIN pg_temp.simhash_dedup_old o ON o.id = t.%1$I'
                               ' WHERE NOT o.changed AND t.%2$I IS NOT NULL', r.id_column, r.hash_column, v_tbl);
            INSERT INTO pg_temp.simhash_dedup_node (id, unit)
            SELECT c.id, c.cluster_id FROM @extschema@.simhash_clusters(v_source, r.k, true) c;
        ELSE
            v_source := format('SELECT t.%1$I, t.%2$I, t.%4$I FROM %3$s t JOIN pg_temp.simhash_dedup_old o ON o.id = t.%1$I'
                               ' WHERE NOT o.changed AND t.%2$I IS NOT NULL AND t.%4$I IS NOT NULL',
                               r.id_column, r.hash_column, v_tbl, r.sketch_column);
            INSERT INTO pg_temp.simhash_dedup_node (id, unit)
            SELECT c.id, c.cluster_id FROM @extschema@.simhash_clusters_confirmed(v_source, r.k, r.min_resemblance, true) c;
        END IF;
    END IF;

    -- The changed pages as they are now, each a unit of its own, and their neighbours through the
    -- table's index: one probe a page.
    v_live_d := format('d.%1$I IS NOT NULL', r.hash_column);
    IF r.sketch_column IS NOT NULL THEN
        v_live_d := v_live_d || format(' AND d.%1$I IS NOT NULL', r.sketch_column);
        v_confirm := format(' AND n.%1$I IS NOT NULL AND @extschema@.resemblance(n.%1$I, d.%1$I) >= $1', r.sketch_column);
    END IF;
    EXECUTE format('INSERT INTO pg_temp.simhash_dedup_node (id, unit)'
                   ' SELECT d.%1$I, d.%1$I FROM pg_temp.simhash_dedup_batch b JOIN %2$s d ON d.%1$I = b.id WHERE %3$s'
                   ' ON CONFLICT (id) DO NOTHING', r.id_column, v_tbl, v_live_d);
    EXECUTE format('INSERT INTO pg_temp.simhash_dedup_edge (a, b)'
                   ' SELECT d.%1$I, x.id FROM pg_temp.simhash_dedup_batch b JOIN %2$s d ON d.%1$I = b.id'
                   ' CROSS JOIN LATERAL (SELECT n.%1$I AS id FROM %2$s n'
                   '   WHERE @extschema@.hamming_within(n.%3$I, d.%3$I, %4$s) AND n.%1$I <> d.%1$I%5$s) x'
                   ' WHERE %6$s', r.id_column, v_tbl, r.hash_column, r.k, v_confirm, v_live_d)
        USING r.min_resemblance;

    -- Neighbours that are not placed yet: members of an untouched cluster (one unit per cluster,
    -- which joins whole) or pages without a near-duplicate so far.
    INSERT INTO pg_temp.simhash_dedup_node (id, unit, b_cluster)
    SELECT n.b, CASE WHEN m.cluster_id IS NULL THEN n.b ELSE min(n.b) OVER (PARTITION BY m.cluster_id) END, m.cluster_id
    FROM (SELECT DISTINCT e.b FROM pg_temp.simhash_dedup_edge e
          WHERE NOT EXISTS (SELECT FROM pg_temp.simhash_dedup_node x WHERE x.id = e.b)) n
    LEFT JOIN @extschema@.simhash_dedup_members m ON m.tbl = v_tbl AND m.id = n.b;

    -- Components of the units: the smallest unit label spreads over the edges, with pointer jumping.
    INSERT INTO pg_temp.simhash_dedup_label (unit, l) SELECT DISTINCT n.unit, n.unit FROM pg_temp.simhash_dedup_node n;
    INSERT INTO pg_temp.simhash_dedup_uedge (a, b)
    SELECT DISTINCT u.a, u.b FROM (
        SELECT na.unit AS a, nb.unit AS b FROM pg_temp.simhash_dedup_edge e
        JOIN pg_temp.simhash_dedup_node na ON na.id = e.a JOIN pg_temp.simhash_dedup_node nb ON nb.id = e.b
        UNION ALL
        SELECT nb.unit, na.unit FROM pg_temp.simhash_dedup_edge e
        JOIN pg_temp.simhash_dedup_node na ON na.id = e.a JOIN pg_temp.simhash_dedup_node nb ON nb.id = e.b) u
    WHERE u.a <> u.b;
    LOOP
        UPDATE pg_temp.simhash_dedup_label l SET l = s.m
        FROM (SELECT u.a, min(x.l) AS m FROM pg_temp.simhash_dedup_uedge u
              JOIN pg_temp.simhash_dedup_label x ON x.unit = u.b GROUP BY u.a) s
        WHERE l.unit = s.a AND s.m < l.l;
        GET DIAGNOSTICS v_changed = ROW_COUNT;
        UPDATE pg_temp.simhash_dedup_label l SET l = p.l FROM pg_temp.simhash_dedup_label p
        WHERE p.unit = l.l AND p.l < l.l;
        GET DIAGNOSTICS v_jumped = ROW_COUNT;
        EXIT WHEN v_changed = 0 AND v_jumped = 0;
    END LOOP;

    -- The placed pages by component; a component of one page (no untouched cluster in it) is no cluster.
    INSERT INTO pg_temp.simhash_dedup_final (id, comp, old_cluster, was_canonical, b_cluster)
    SELECT n.id, lb.l, o.cluster_id, coalesce(o.canonical, false), n.b_cluster
    FROM pg_temp.simhash_dedup_node n JOIN pg_temp.simhash_dedup_label lb ON lb.unit = n.unit
    LEFT JOIN pg_temp.simhash_dedup_old o ON o.id = n.id;
    DELETE FROM pg_temp.simhash_dedup_final f WHERE f.comp IN (
        SELECT x.comp FROM pg_temp.simhash_dedup_final x GROUP BY x.comp HAVING count(*) = 1 AND bool_and(x.b_cluster IS NULL));

    -- Stable ids. An untouched cluster's id goes to its component; a touched cluster's to the part
    -- that holds its canonical page, else to its largest part (then the one with the smallest page).
    -- A component that inherits several ids keeps the smallest (the oldest); one that inherits none
    -- gets a new id.
    INSERT INTO pg_temp.simhash_dedup_compid (comp, cluster_id)
    SELECT h.comp, min(h.old_id) FROM (
        SELECT DISTINCT ON (x.old_id) x.old_id, x.comp FROM (
            SELECT f.old_cluster AS old_id, f.comp, bool_or(f.was_canonical) AS has_canonical, count(*) AS n
            FROM pg_temp.simhash_dedup_final f WHERE f.old_cluster IS NOT NULL GROUP BY f.old_cluster, f.comp
            UNION ALL
            SELECT DISTINCT f.b_cluster, f.comp, true, 0 FROM pg_temp.simhash_dedup_final f WHERE f.b_cluster IS NOT NULL) x
        ORDER BY x.old_id, x.has_canonical DESC, x.n DESC, x.comp) h
    GROUP BY h.comp;
    SELECT count(DISTINCT f.comp) INTO v_new FROM pg_temp.simhash_dedup_final f
    WHERE NOT EXISTS (SELECT FROM pg_temp.simhash_dedup_compid i WHERE i.comp = f.comp);
    IF v_new > 0 THEN
        UPDATE @extschema@.simhash_dedup_tables g SET next_cluster_id = g.next_cluster_id + v_new
        WHERE g.tbl = v_tbl RETURNING g.next_cluster_id - v_new INTO v_base;
        INSERT INTO pg_temp.simhash_dedup_compid (comp, cluster_id)
        SELECT c.comp, v_base + row_number() OVER (ORDER BY c.comp) - 1
        FROM (SELECT DISTINCT f.comp FROM pg_temp.simhash_dedup_final f
              WHERE NOT EXISTS (SELECT FROM pg_temp.simhash_dedup_compid i WHERE i.comp = f.comp)) c;
    END IF;

    -- Write the difference: members that left every cluster, untouched clusters renamed by a merge,
    -- the placed pages.
    DELETE FROM @extschema@.simhash_dedup_members m USING pg_temp.simhash_dedup_old o
    WHERE m.tbl = v_tbl AND m.id = o.id
      AND NOT EXISTS (SELECT FROM pg_temp.simhash_dedup_final f WHERE f.id = o.id);
    UPDATE @extschema@.simhash_dedup_members m SET cluster_id = c.cluster_id
    FROM (SELECT DISTINCT f.b_cluster, i.cluster_id FROM pg_temp.simhash_dedup_final f
          JOIN pg_temp.simhash_dedup_compid i ON i.comp = f.comp WHERE f.b_cluster IS NOT NULL) c
    WHERE m.tbl = v_tbl AND m.cluster_id = c.b_cluster AND c.cluster_id <> c.b_cluster;
    INSERT INTO @extschema@.simhash_dedup_members AS m (tbl, id, cluster_id, canonical)
    SELECT v_tbl, f.id, i.cluster_id, false
    FROM pg_temp.simhash_dedup_final f JOIN pg_temp.simhash_dedup_compid i ON i.comp = f.comp
    WHERE f.b_cluster IS NULL
    ON CONFLICT ON CONSTRAINT simhash_dedup_members_pkey
    DO UPDATE SET cluster_id = EXCLUDED.cluster_id WHERE m.cluster_id <> EXCLUDED.cluster_id;

    -- The counters: the touched clusters' members were replaced by the placed pages (the untouched
    -- clusters' pages stay members), the touched and joined clusters by the components.
    UPDATE @extschema@.simhash_dedup_tables g
    SET pages = g.pages + (SELECT count(*) FROM pg_temp.simhash_dedup_final f WHERE f.b_cluster IS NULL)
                        - (SELECT count(*) FROM pg_temp.simhash_dedup_old),
        clusters = g.clusters + (SELECT count(*) FROM pg_temp.simhash_dedup_compid)
                              - (SELECT count(*) FROM (SELECT o.cluster_id FROM pg_temp.simhash_dedup_old o
                                                       UNION SELECT f.b_cluster FROM pg_temp.simhash_dedup_final f
                                                       WHERE f.b_cluster IS NOT NULL) x)
    WHERE g.tbl = v_tbl;

    -- The canonical page of every cluster whose members changed.
    PERFORM @extschema@.simhash_dedup_canonical(v_tbl);
END
$$;

-- Applies up to max_changes queued changes of one table, in batches, unless another session is
-- doing it (then 0 at once). Only changes queued before it began: under a steady stream of writes a
-- run ends, and commits, once it has caught up with its start.
CREATE FUNCTION simhash_dedup_run_table(tbl regclass, max_changes integer) RETURNS bigint
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    v_tbl regclass := tbl;
    v_max integer := max_changes;
    v_batch CONSTANT integer := 5000;
    v_n bigint;
    v_truncated boolean;
    v_done bigint := 0;
    v_name text;
    v_began timestamp with time zone := clock_timestamp();
BEGIN
    -- The table first, then its registry row: the order of DROP TABLE (and DROP COLUMN), whose
    -- event trigger deletes the row after locking the table. The other order deadlocked with it
    -- (the event trigger lost, and the dropped table's state was left behind). A table locked
    -- exclusively (being dropped, truncated, altered) is skipped, as one another maintainer holds.
    SELECT format('%I.%I', n.nspname, c.relname) INTO v_name
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = v_tbl;
    IF NOT FOUND THEN
        RETURN 0;
    END IF;
    BEGIN
        EXECUTE format('LOCK TABLE %s IN ACCESS SHARE MODE NOWAIT', v_name);
    EXCEPTION WHEN lock_not_available OR undefined_table THEN
        RETURN 0;
    END;
    -- One maintainer per table: the registry row, locked by the maintainer only (writers never
    -- read it), skipped when locked.
    PERFORM FROM @extschema@.simhash_dedup_tables g WHERE g.tbl = v_tbl FOR UPDATE SKIP LOCKED;
    IF NOT FOUND THEN
        RETURN 0;
    END IF;
    WHILE v_done < v_max LOOP
        PERFORM @extschema@.simhash_dedup_work();
        WITH taken AS (
            DELETE FROM @extschema@.simhash_dedup_queue q
            WHERE q.ctid = ANY (ARRAY(SELECT x.ctid FROM @extschema@.simhash_dedup_queue x
                                      WHERE x.tbl = v_tbl AND x.queued <= v_began ORDER BY x.queued LIMIT least(v_batch, v_max - v_done)))
            RETURNING q.id),
        ids AS (INSERT INTO pg_temp.simhash_dedup_batch (id) SELECT DISTINCT t.id FROM taken t WHERE t.id IS NOT NULL)
        SELECT count(*), coalesce(bool_or(t.id IS NULL), false) INTO v_n, v_truncated FROM taken t;
        EXIT WHEN v_n = 0;
        IF v_truncated THEN
            INSERT INTO pg_temp.simhash_dedup_batch (id)
            SELECT m.id FROM @extschema@.simhash_dedup_members m WHERE m.tbl = v_tbl
            ON CONFLICT (id) DO NOTHING;
        END IF;
        PERFORM @extschema@.simhash_dedup_apply(v_tbl);
        v_done := v_done + v_n;
    END LOOP;
    UPDATE @extschema@.simhash_dedup_tables g SET last_run = clock_timestamp(), applied = g.applied + v_done
    WHERE g.tbl = v_tbl;
    RETURN v_done;
END
$$;

CREATE FUNCTION simhash_dedup_run(tbl regclass DEFAULT NULL, max_changes integer DEFAULT 100000) RETURNS bigint
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    v_tbl regclass := tbl;
    v_max integer := max_changes;
    t record;
    v_total bigint := 0;
BEGIN
    IF v_max IS NULL OR v_max < 1 THEN
        RAISE EXCEPTION 'max_changes must be at least 1, got %', v_max USING ERRCODE = '22023';
    END IF;
    IF v_tbl IS NOT NULL THEN
        IF NOT pg_has_role((SELECT c.relowner FROM pg_class c WHERE c.oid = v_tbl), 'MEMBER') THEN
            RAISE EXCEPTION 'must be owner of table %', v_tbl USING ERRCODE = '42501';
        END IF;
        IF NOT EXISTS (SELECT FROM @extschema@.simhash_dedup_tables g WHERE g.tbl = v_tbl) THEN
            RAISE EXCEPTION 'duplicate clusters of % are not kept', v_tbl USING ERRCODE = '42704',
                HINT = 'Start with simhash_dedup_start.';
        END IF;
    END IF;
    -- the work tables, made now: the tables' work runs in security-restricted operations
    PERFORM @extschema@.simhash_dedup_work();
    FOR t IN SELECT g.tbl, c.relowner
             FROM @extschema@.simhash_dedup_tables g LEFT JOIN pg_class c ON c.oid = g.tbl
             WHERE v_tbl IS NULL OR g.tbl = v_tbl ORDER BY g.tbl::oid LOOP
        IF t.relowner IS NULL THEN
            -- the table is gone and its DROP did not reach the event trigger
            PERFORM @extschema@.simhash_dedup_forget(t.tbl);
            CONTINUE;
        END IF;
        CONTINUE WHEN NOT pg_has_role(t.relowner, 'MEMBER');
        v_total := v_total + @extschema@.simhash_dedup_as_owner(t.tbl, (v_max - v_total)::integer);
        EXIT WHEN v_total >= v_max;
    END LOOP;
    RETURN v_total;
END
$$;

-- Waits until the changes of tbl committed before the call are applied (by the background worker,
-- or a scheduled run): true, or false after timeout. Read-your-writes for a crawler that reports
-- right after its batch; not in a transaction that wrote to the table (its changes are not
-- committed yet: that waits for the timeout).
CREATE FUNCTION simhash_dedup_wait(tbl regclass, timeout interval DEFAULT '10 seconds') RETURNS boolean
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    v_tbl regclass := tbl;
    v_began timestamp with time zone := clock_timestamp();
BEGIN
    IF NOT has_table_privilege(v_tbl, 'SELECT') THEN
        RAISE EXCEPTION 'permission denied for table %', v_tbl USING ERRCODE = '42501';
    END IF;
    IF NOT EXISTS (SELECT FROM @extschema@.simhash_dedup_tables g WHERE g.tbl = v_tbl) THEN
        RAISE EXCEPTION 'duplicate clusters of % are not kept', v_tbl USING ERRCODE = '42704',
            HINT = 'Start with simhash_dedup_start.';
    END IF;
    LOOP
        IF NOT EXISTS (SELECT FROM @extschema@.simhash_dedup_queue q WHERE q.tbl = v_tbl AND q.queued <= v_began) THEN
            RETURN true;
        END IF;
        IF clock_timestamp() - v_began >= timeout THEN
            RETURN false;
        END IF;
        PERFORM pg_sleep(0.02);
    END LOOP;
END
$$;

CREATE FUNCTION simhash_dedup_stop(tbl regclass) RETURNS void
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    v_tbl regclass := tbl;
BEGIN
    IF NOT pg_has_role((SELECT c.relowner FROM pg_class c WHERE c.oid = v_tbl), 'USAGE') THEN
        RAISE EXCEPTION 'must be owner of table %', v_tbl USING ERRCODE = '42501';
    END IF;
    -- waits for a running maintainer
    PERFORM FROM @extschema@.simhash_dedup_tables g WHERE g.tbl = v_tbl FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'duplicate clusters of % are not kept', v_tbl USING ERRCODE = '42704';
    END IF;
    PERFORM @extschema@.simhash_dedup_untrigger(v_tbl);
    PERFORM @extschema@.simhash_dedup_forget(v_tbl);
END
$$;

CREATE FUNCTION simhash_dedup_clusters(tbl regclass) RETURNS TABLE (id bigint, cluster_id bigint, canonical boolean)
    LANGUAGE plpgsql STABLE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    v_tbl regclass := tbl;
BEGIN
    IF NOT has_table_privilege(v_tbl, 'SELECT') THEN
        RAISE EXCEPTION 'permission denied for table %', v_tbl USING ERRCODE = '42501';
    END IF;
    IF NOT EXISTS (SELECT FROM @extschema@.simhash_dedup_tables g WHERE g.tbl = v_tbl) THEN
        RAISE EXCEPTION 'duplicate clusters of % are not kept', v_tbl USING ERRCODE = '42704',
            HINT = 'Start with simhash_dedup_start.';
    END IF;
    RETURN QUERY SELECT m.id, m.cluster_id, m.canonical FROM @extschema@.simhash_dedup_members m
                 WHERE m.tbl = v_tbl ORDER BY m.cluster_id, m.id;
END
$$;

CREATE FUNCTION simhash_dedup_status(tbl regclass)
    RETURNS TABLE (pages bigint, clusters bigint, backlog bigint, lag interval, last_run timestamp with time zone)
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    v_tbl regclass := tbl;
BEGIN
    IF NOT has_table_privilege(v_tbl, 'SELECT') THEN
        RAISE EXCEPTION 'permission denied for table %', v_tbl USING ERRCODE = '42501';
    END IF;
    IF NOT EXISTS (SELECT FROM @extschema@.simhash_dedup_tables g WHERE g.tbl = v_tbl) THEN
        RAISE EXCEPTION 'duplicate clusters of % are not kept', v_tbl USING ERRCODE = '42704',
            HINT = 'Start with simhash_dedup_start.';
    END IF;
    RETURN QUERY
    SELECT g.pages, g.clusters, q.n, coalesce(clock_timestamp() - q.oldest, interval '0'), g.last_run
    FROM @extschema@.simhash_dedup_tables g,
         (SELECT count(*) AS n, min(x.queued) AS oldest FROM @extschema@.simhash_dedup_queue x WHERE x.tbl = v_tbl) q
    WHERE g.tbl = v_tbl;
END
$$;

-- DROP TABLE of a registered table, or DROP COLUMN of one of its registered columns: its state is
-- forgotten (and, for a column, its triggers dropped). Runs as the extension's owner: the dropping
-- role can no longer be checked against a table that is gone. An error here never fails the DROP.
CREATE FUNCTION simhash_dedup_dropped() RETURNS event_trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    o record;
BEGIN
    FOR o IN SELECT g.tbl, d.objsubid, d.address_names[3] AS column_name, g.id_column, g.hash_column, g.sketch_column
             FROM pg_event_trigger_dropped_objects() d
             JOIN @extschema@.simhash_dedup_tables g ON g.tbl::oid = d.objid
             WHERE d.classid = 'pg_catalog.pg_class'::regclass LOOP
        IF o.objsubid = 0 THEN
            PERFORM @extschema@.simhash_dedup_forget(o.tbl);
        ELSIF o.column_name IN (o.id_column, o.hash_column, o.sketch_column) THEN
            PERFORM @extschema@.simhash_dedup_untrigger(o.tbl);
            PERFORM @extschema@.simhash_dedup_forget(o.tbl);
            RAISE NOTICE 'duplicate clusters of % are no longer kept: column % was dropped', o.tbl, quote_ident(o.column_name);
        END IF;
    END LOOP;
EXCEPTION WHEN OTHERS THEN
    RAISE WARNING 'simhash_dedup could not forget a dropped table: %', SQLERRM;
END
$$;
REVOKE ALL ON FUNCTION simhash_dedup_dropped() FROM PUBLIC;
CREATE EVENT TRIGGER simhash_dedup_dropped ON sql_drop EXECUTE FUNCTION simhash_dedup_dropped();

COMMENT ON FUNCTION simhash_dedup_as_owner(regclass, integer) IS
    'simhash_dedup support: simhash_dedup_run_table as the table''s owner, in a security-restricted operation';
COMMENT ON FUNCTION simhash_dedup_wake() IS
    'simhash_dedup support: asks for the background worker when the transaction commits (simhash.dedup_in_background)';
-- ALTER TABLE ... RENAME COLUMN of a registered column: the new name is registered and the
-- capture triggers, which name the columns, are made again (with the old name every write to the
-- table would fail). The registered name that no longer names a column is the renamed one. Runs as
-- the extension's owner, as simhash_dedup_dropped; an error fails the ALTER (better than writes
-- that fail).
CREATE FUNCTION simhash_dedup_altered() RETURNS event_trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    o record;
    v_new name;
    v_gone name[];
BEGIN
    FOR o IN SELECT DISTINCT g.tbl, d.objsubid, g.id_column, g.hash_column, g.sketch_column
             FROM pg_event_trigger_ddl_commands() d
             JOIN @extschema@.simhash_dedup_tables g ON g.tbl::oid = d.objid
             WHERE d.classid = 'pg_catalog.pg_class'::regclass AND d.objsubid > 0 LOOP
        SELECT a.attname INTO v_new FROM pg_attribute a
        WHERE a.attrelid = o.tbl AND a.attnum = o.objsubid AND NOT a.attisdropped;
        SELECT array_agg(c.name) INTO v_gone
        FROM unnest(ARRAY[o.id_column, o.hash_column, o.sketch_column]) c(name)
        WHERE c.name IS NOT NULL AND NOT EXISTS (SELECT FROM pg_attribute a
                                                 WHERE a.attrelid = o.tbl AND a.attname = c.name AND NOT a.attisdropped);
        CONTINUE WHEN v_new IS NULL OR v_gone IS NULL;
        UPDATE @extschema@.simhash_dedup_tables g
        SET id_column = CASE WHEN g.id_column = ANY (v_gone) THEN v_new ELSE g.id_column END,
            hash_column = CASE WHEN g.hash_column = ANY (v_gone) THEN v_new ELSE g.hash_column END,
            sketch_column = CASE WHEN g.sketch_column = ANY (v_gone) THEN v_new ELSE g.sketch_column END
        WHERE g.tbl = o.tbl
        RETURNING g.id_column, g.hash_column, g.sketch_column INTO o.id_column, o.hash_column, o.sketch_column;
        PERFORM @extschema@.simhash_dedup_untrigger(o.tbl);
        PERFORM @extschema@.simhash_dedup_trigger(o.tbl, o.id_column, o.hash_column, o.sketch_column);
    END LOOP;
END
$$;
REVOKE ALL ON FUNCTION simhash_dedup_altered() FROM PUBLIC;
CREATE EVENT TRIGGER simhash_dedup_altered ON ddl_command_end WHEN TAG IN ('ALTER TABLE')
    EXECUTE FUNCTION simhash_dedup_altered();

COMMENT ON FUNCTION simhash_dedup_capture() IS
    'trigger of simhash_dedup_start: queues the ids of the pages a statement inserted, deleted or changed';
COMMENT ON FUNCTION simhash_dedup_trigger(regclass, name, name, name) IS
    'simhash_dedup support: adds a table''s capture triggers';
COMMENT ON FUNCTION simhash_dedup_untrigger(regclass) IS
    'simhash_dedup support: drops a table''s capture triggers';
COMMENT ON FUNCTION simhash_dedup_work() IS
    'simhash_dedup support: makes (once a session) and empties the maintainer''s temporary work tables';
COMMENT ON FUNCTION simhash_dedup_canonical(regclass) IS
    'simhash_dedup support: picks the canonical page of the clusters a start or batch changed, by the table''s keep';
COMMENT ON FUNCTION simhash_dedup_forget(regclass) IS
    'simhash_dedup support: deletes a table''s clusters, queue and registration';
COMMENT ON FUNCTION simhash_dedup_apply(regclass) IS
    'simhash_dedup support: applies one batch of changed pages to the clusters';
COMMENT ON FUNCTION simhash_dedup_run_table(regclass, integer) IS
    'simhash_dedup support: applies up to max_changes queued changes of one table, unless another session is';
COMMENT ON FUNCTION simhash_dedup_start(regclass, name, name, integer, name, double precision, text) IS
    'from now on keeps the duplicate clusters of a table current: registers it, adds its capture triggers and computes its clusters (returns how many)';
COMMENT ON FUNCTION simhash_dedup_run(regclass, integer) IS
    'applies queued changes to the clusters of one registered table or all (NULL) the caller owns; returns how many changes; call it from a scheduler';
COMMENT ON FUNCTION simhash_dedup_wait(regclass, interval) IS
    'waits until the changes of a registered table committed before the call are applied; false after the timeout';
COMMENT ON FUNCTION simhash_dedup_stop(regclass) IS
    'stops keeping a table''s duplicate clusters: drops its triggers and its state';
COMMENT ON FUNCTION simhash_dedup_clusters(regclass) IS
    'one row per page of a registered table that has a near-duplicate: its cluster''s stable id and whether it is the canonical page';
COMMENT ON FUNCTION simhash_dedup_status(regclass) IS
    'pages in clusters, clusters, changes not yet applied (backlog) and the age of the oldest (lag), last run';
COMMENT ON FUNCTION simhash_dedup_altered() IS
    'event trigger: follows a rename of a registered table''s id, hash or sketch column (its capture triggers name them)';
COMMENT ON FUNCTION simhash_dedup_dropped() IS
    'event trigger: forgets a registered table that is dropped, or whose id, hash or sketch column is dropped';
