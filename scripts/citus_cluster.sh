#!/usr/bin/env bash
# A Citus cluster on loopback running every recipe of README "Scaling out", checked and timed.
#
#   scripts/citus_cluster.sh [ROWS]          (default 100000; needs Citus installed for pg_config's server)
#
# Starts a coordinator and two workers (scripts/pgtmp.sh, as the postgres OS user, 127.0.0.1 only),
# loads ROWS generated pages (70% random hashes, 30% in groups of three near copies) into a local
# table on the coordinator and into a distributed one, then:
#   - distributed all-pairs: each worker groups its shards' rows by key (simhash_key_groups) into a
#     table distributed by key, each key's node pairs its groups (simhash_group_pairs) into a table
#     distributed the same way: exactly simhash_pairs's pairs on the coordinator's local table
#     (one node), both timed;
#   - radius and nearest neighbours on the table distributed by id (fan-out to every shard) and
#     routed through the keys table (at most k + 1 shards), each equal to the local table, p50 timed.
# Prints a line per figure and ends "citus: all recipes exact" (exit 0), or exits 1 on a difference.
# Exit status 3: Citus is not installed.
set -euo pipefail

ROWS=${1:-100000}
K=5
BLOCKS=6
cd "$(dirname "$0")/.."
export PATH="$(pg_config --bindir):$PATH"
if [ ! -f "$(pg_config --pkglibdir)/citus.so" ]; then
    echo "citus: Citus is not installed for $(pg_config --version)"
    exit 3
fi

dirs=()
cleanup() { for d in "${dirs[@]}"; do scripts/pgtmp.sh stop "$d" || true; done; }
trap cleanup EXIT
ports=()
for node in coordinator worker1 worker2; do
    eval "$(SIMHASH_PG_OPTS="-c shared_preload_libraries=citus -c max_connections=200 -c shared_buffers=1GB \
        -c work_mem=256MB -c maintenance_work_mem=1GB -c max_wal_size=8GB -c synchronous_commit=off" scripts/pgtmp.sh start)"
    dirs+=("$SIMHASH_PGDIR")
    ports+=("$PGPORT")
done
on() { local port=$1; shift; psql -X -q -At -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U postgres -d postgres "$@"; }
coord() { on "${ports[0]}" "$@"; }
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

for p in "${ports[@]}"; do on "$p" -c "CREATE EXTENSION citus"; done
coord -c "SELECT citus_set_coordinator_host('127.0.0.1', ${ports[0]})" \
      -c "SELECT citus_add_node('127.0.0.1', ${ports[1]})" \
      -c "SELECT citus_add_node('127.0.0.1', ${ports[2]})" >/dev/null
# CREATE EXTENSION and CREATE INDEX on a distributed table reach the workers.
coord -c "CREATE EXTENSION simhash"
echo "citus: $(coord -c "SELECT extversion FROM pg_extension WHERE extname = 'citus'"), 1 coordinator + 2 workers," \
     "$(coord -c "SHOW citus.shard_count") shards, $ROWS rows"
[ "$(on "${ports[1]}" -c "SELECT count(*) FROM pg_extension WHERE extname = 'simhash'")" = 1 ] ||
    { echo "citus: CREATE EXTENSION simhash did not reach the workers"; exit 1; }

t0=$(now)
coord >/dev/null <<SQL
CREATE TABLE pages_local (id bigint PRIMARY KEY, sh simhash NOT NULL);
INSERT INTO pages_local
SELECT i, CASE WHEN i % 10 < 7 THEN ('x' || substr(md5(i::text), 1, 16))::bit(64)::simhash
               ELSE ('x' || substr(md5((i / 10) || 'c'), 1, 16))::bit(64)::simhash
                    # (1::bigint << (i * 7 % 64)::int)::simhash END
FROM generate_series(1, $ROWS) i;
CREATE INDEX ON pages_local USING simhash_mih (sh);
ANALYZE pages_local;
CREATE TABLE pages (id bigint PRIMARY KEY, sh simhash NOT NULL);
SELECT create_distributed_table('pages', 'id');
INSERT INTO pages SELECT * FROM pages_local;
CREATE INDEX pages_sh_idx ON pages USING simhash_mih (sh);
ANALYZE pages;
SQL
echo "load: $(secs "$t0" "$(now)") s (local table and distributed table, with indexes)"
# Vacuumed and checkpointed before anything is timed: neither side shares its cores with
# autovacuum's first pass over the new rows or with a checkpoint of the load.
settle() { coord -c "VACUUM ANALYZE $*" >/dev/null; for p in "${ports[@]}"; do on "$p" -c "CHECKPOINT"; done; }
settle pages_local, pages
[ "$(on "${ports[2]}" -c "SELECT count(*) FROM pg_indexes WHERE indexdef LIKE '%USING simhash_mih%'")" -gt 0 ] ||
    { echo "citus: the simhash_mih index did not reach the workers' shards"; exit 1; }

# ---- all-pairs: one node, then distributed --------------------------------------------------
t0=$(now)
coord -c "CREATE TABLE single_pairs AS SELECT * FROM simhash_pairs('SELECT id, sh FROM pages_local', $K)"
single=$(secs "$t0" "$(now)")
# Each worker groups the rows of its own shards of pages by key (simhash_key_groups), one shard
# after another, and sends one row a key, its rows packed, to the key's shard (sequential mode:
# one connection a node). Each key's node joins its parts and pairs them, into a table
# distributed the same way, so no pair travels. One session a worker for both steps: each worker
# here has one core to itself (run_command_on_shards, every shard at once, oversubscribed them).
coord >/dev/null <<SQL
CREATE UNLOGGED TABLE page_key_groups (key bigint NOT NULL, key_rows bytea NOT NULL) WITH (toast_tuple_target = 8160);
ALTER TABLE page_key_groups ALTER key_rows SET STORAGE EXTERNAL;
SELECT create_distributed_table('page_key_groups', 'key');
CREATE UNLOGGED TABLE page_pairs (key bigint NOT NULL, id_a bigint NOT NULL, id_b bigint NOT NULL, distance integer NOT NULL);
SELECT create_distributed_table('page_pairs', 'key', colocate_with := 'page_key_groups');
SQL
t0=$(now)
failed=$(coord -c "SELECT count(*) FROM run_command_on_workers(\$cmd\$
DO \$do\$
DECLARE shard text;
BEGIN
    SET LOCAL citus.multi_shard_modify_mode TO sequential;
    FOR shard IN SELECT format('%I', shard_name('pages'::regclass, shardid))
                 FROM pg_dist_shard JOIN pg_dist_placement USING (shardid)
                 WHERE logicalrelid = 'pages'::regclass AND groupid = (SELECT groupid FROM pg_dist_local_group)
    LOOP
        EXECUTE 'INSERT INTO page_key_groups
                 SELECT g.* FROM (SELECT array_agg(id) AS ids, array_agg(sh) AS shs FROM ' || shard || ') a,
                                 simhash_key_groups(a.ids, a.shs, $K, $BLOCKS) g';
    END LOOP;
END \$do\$ \$cmd\$) WHERE NOT success")
[ "$failed" = 0 ] || { echo "citus: grouping failed on $failed workers"; exit 1; }
[ "$(coord -c "SELECT sum(length(key_rows)) / 16 FROM page_key_groups")" = $((ROWS * BLOCKS)) ] ||
    { echo "citus: the key groups do not hold every row $BLOCKS times"; exit 1; }
t1=$(now)
pair_groups="INSERT INTO page_pairs
             SELECT g.key, p.* FROM (SELECT key, string_agg(key_rows, '') AS key_rows FROM page_key_groups GROUP BY key) g,
                                    simhash_group_pairs(g.key, g.key_rows, $K, $BLOCKS) p"
coord -c "SET citus.max_adaptive_executor_pool_size = 1" -c "$pair_groups"
t2=$(now)
pairs=$(coord -c "SELECT count(*) FROM single_pairs")
diff=$(coord -c "SELECT (SELECT count(*) FROM (SELECT id_a, id_b, distance FROM page_pairs EXCEPT ALL TABLE single_pairs) d)
                      + (SELECT count(*) FROM (TABLE single_pairs EXCEPT ALL SELECT id_a, id_b, distance FROM page_pairs) d)")
echo "all-pairs k=$K: one node simhash_pairs $single s; distributed $(secs "$t0" "$t2") s" \
     "(group by key and ship $(secs "$t0" "$t1") s + join and pair $(secs "$t1" "$t2") s); $pairs pairs, $diff differ"
[ "$diff" = 0 ] || { echo "citus: the distributed pairs differ from simhash_pairs"; exit 1; }
plan=$(coord -c "EXPLAIN $pair_groups")
grep -q "Task Count: $(coord -c "SHOW citus.shard_count")" <<<"$plan" && grep -q "simhash_group_pairs" <<<"$plan" ||
    { echo "citus: the group pairs are not pushed to every shard:"; echo "$plan"; exit 1; }

# The routing table for radius search: a row for each key of each page, indexed.
t0=$(now)
coord >/dev/null <<SQL
CREATE UNLOGGED TABLE page_keys (key bigint NOT NULL, id bigint NOT NULL, sh simhash NOT NULL);
SELECT create_distributed_table('page_keys', 'key');
INSERT INTO page_keys SELECT unnest(simhash_table_keys(sh, $K, $BLOCKS)), id, sh FROM pages;
SQL
coord -c "CREATE INDEX ON page_keys USING simhash_mih (sh)" -c "ANALYZE page_keys"
echo "routing table page_keys (six rows a page, indexed): $(secs "$t0" "$(now)") s"
settle page_keys

# ---- radius and nearest neighbours: exactness, shards touched, p50 ---------------------------
coord >/dev/null <<'SQL'
CREATE TABLE queries AS
SELECT q, CASE WHEN q % 2 = 0 THEN (SELECT sh FROM pages_local WHERE id = q * 37 % (SELECT count(*) FROM pages_local) + 1)
                                   # (1::bigint << (q % 64)::int)::simhash
               ELSE ('x' || substr(md5('q' || q), 1, 16))::bit(64)::simhash END AS sh
FROM generate_series(1, 200) q;
SQL
routed_radius="SELECT DISTINCT id FROM page_keys WHERE key = ANY(simhash_table_keys(%L::simhash, $K, $BLOCKS)) AND hamming(sh, %L::simhash) <= $K"
fanout_radius="SELECT id FROM pages WHERE hamming(sh, %L::simhash) <= $K"
local_radius="SELECT id FROM pages_local WHERE hamming(sh, %L::simhash) <= $K"
fanout_knn="SELECT id, sh <-> %L::simhash AS d FROM pages ORDER BY sh <-> %L::simhash LIMIT 10"
local_knn="SELECT id, sh <-> %L::simhash AS d FROM pages_local ORDER BY sh <-> %L::simhash LIMIT 10"
routed_knn="SELECT id, min(hamming(sh, %L::simhash)) AS d FROM page_keys WHERE key = ANY(simhash_table_keys(%L::simhash, $K, $BLOCKS)) AND hamming(sh, %L::simhash) <= $K GROUP BY id ORDER BY d, id LIMIT 10"

# Citus joins no local table with a distributed one, so each query runs alone, as a client's would.
coord >/dev/null <<SQL
CREATE FUNCTION wrong_answers() RETURNS bigint LANGUAGE plpgsql AS \$\$
DECLARE r record; one bigint[]; other bigint[]; wrong bigint := 0;
BEGIN
    FOR r IN SELECT sh FROM queries ORDER BY q LOOP
        EXECUTE format('SELECT array_agg(id ORDER BY id) FROM ($local_radius) s', r.sh) INTO one;
        EXECUTE format('SELECT array_agg(id ORDER BY id) FROM ($fanout_radius) s', r.sh) INTO other;
        wrong := wrong + (one IS DISTINCT FROM other)::int;
        EXECUTE format('SELECT array_agg(id ORDER BY id) FROM ($routed_radius) s', r.sh, r.sh) INTO other;
        wrong := wrong + (one IS DISTINCT FROM other)::int;
        EXECUTE format('SELECT array_agg(d ORDER BY d) FROM ($local_knn) s', r.sh, r.sh) INTO one;
        EXECUTE format('SELECT array_agg(d ORDER BY d) FROM ($fanout_knn) s', r.sh, r.sh) INTO other;
        wrong := wrong + (one IS DISTINCT FROM other)::int;
        -- routed: the nearest within k only
        EXECUTE format('SELECT array_agg(d ORDER BY d) FROM ($local_knn) s WHERE d <= $K', r.sh, r.sh) INTO one;
        EXECUTE format('SELECT array_agg(d ORDER BY d) FROM ($routed_knn) s', r.sh, r.sh, r.sh) INTO other;
        wrong := wrong + (one IS DISTINCT FROM other)::int;
    END LOOP;
    RETURN wrong;
END \$\$;
SQL
wrong=$(coord -c "SELECT wrong_answers()")
echo "radius and nearest: $wrong of 800 answers differ from the local table (200 queries: fan-out and routed radius, fan-out KNN-10, routed KNN-10 within k)"
[ "$wrong" = 0 ] || { echo "citus: distributed answers differ"; exit 1; }

tasks() { coord -c "EXPLAIN $(coord -c "SELECT format('$1', sh, sh, sh) FROM queries WHERE q = $2")" | sed -n 's/.*Task Count: \([0-9]*\).*/\1/p' | head -n1; }
max_routed=$(for q in $(seq 1 20); do tasks "$routed_radius" "$q"; done | sort -n | tail -n1)
echo "routed radius: at most $max_routed shards of $(coord -c "SHOW citus.shard_count") touched (20 queries; k + 1 = $((K + 1)))"
[ "$max_routed" -le $((K + 1)) ] || { echo "citus: a routed radius query touched more than k + 1 shards"; exit 1; }

# p50 and p99 of each form, every query timed on the coordinator (EXECUTE of the literal text, so
# the planner prunes shards by the constant keys, as a client's query would).
coord >/dev/null <<'SQL'
CREATE FUNCTION timed(form text) RETURNS TABLE (p50 numeric, p99 numeric) LANGUAGE plpgsql AS $$
DECLARE t timestamptz; times double precision[] := '{}'; r record;
BEGIN
    FOR r IN SELECT sh FROM queries ORDER BY q LOOP
        t := clock_timestamp();
        EXECUTE format('SELECT count(*) FROM (' || form || ') s', r.sh, r.sh, r.sh);
        times := times || extract(epoch FROM clock_timestamp() - t) * 1000;
    END LOOP;
    RETURN QUERY SELECT round(percentile_cont(0.5) WITHIN GROUP (ORDER BY x)::numeric, 2),
                        round(percentile_cont(0.99) WITHIN GROUP (ORDER BY x)::numeric, 2) FROM unnest(times) x;
END $$;
SQL
# Citus's floor: a query that reads one shard (one key's rows within k; not a whole answer).
one_shard="SELECT id FROM page_keys WHERE key = (simhash_table_keys(%L::simhash, $K, $BLOCKS))[1] AND hamming(sh, %L::simhash) <= $K"
for form in local_radius fanout_radius routed_radius one_shard local_knn fanout_knn routed_knn; do
    coord -c "SELECT * FROM timed(\$f\$${!form}\$f\$)" >/dev/null  # warm the caches and connections
    echo "$form: p50 / p99 ms $(coord -F ' / ' -c "SELECT * FROM timed(\$f\$${!form}\$f\$)")"
done
echo "citus: all recipes exact"
