#!/usr/bin/env bash
# Materialized views over a source query survive pg_dump -Fc / pg_restore when the source names its
# tables with their schema (or selects from a schema-qualified view): pg_restore refreshes them
# under an empty search_path. The unqualified form restores unpopulated, and the restore's error
# says why (a hint about the search_path). From PostgreSQL 17 on, CREATE and REFRESH MATERIALIZED
# VIEW always run under search_path = pg_catalog, pg_temp: the unqualified form cannot be created
# at all, and that error carries the hint. Needs the server of scripts/test.sh (PGHOST, PGPORT).
set -euo pipefail
cd "$(dirname "$0")/../.."

src=simhash_dump_src_$$
dst=simhash_dump_dst_$$
work=$(mktemp -d)
cleanup() {
    psql -X -q -d postgres -c "SET client_min_messages = warning" \
        -c "DROP DATABASE IF EXISTS $src" -c "DROP DATABASE IF EXISTS $dst" || true
    rm -rf "$work"
}
trap cleanup EXIT
run() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }

run -d postgres -c "CREATE DATABASE $src" -c "CREATE DATABASE $dst"
run -d "$src" <<'SQL'
CREATE EXTENSION simhash;
CREATE TABLE pages (id bigint PRIMARY KEY, sh simhash);
INSERT INTO pages
SELECT i, ((hashint8(i / 5) & x'7fffffffffffffff'::bigint) # (1::bigint << (i % 5 * 3)))::simhash
FROM generate_series(1, 500) i;
CREATE TABLE diffs (fp_diff int, sh_diff int);
INSERT INTO diffs SELECT i % 7, i % 5 FROM generate_series(1, 100) i;
-- A view keeps whatever else the source needs (functions, operators): it is stored parsed.
CREATE VIEW near_zero AS SELECT id, sh FROM pages WHERE hamming(sh, '0000000000000000') <= 40;

-- The forms that survive a restore: schema-qualified sources.
CREATE MATERIALIZED VIEW dup_pairs AS SELECT * FROM simhash_pairs('SELECT id, sh FROM public.pages', 5);
CREATE MATERIALIZED VIEW near_clusters AS
    SELECT * FROM simhash_clusters('SELECT id, sh FROM public.near_zero', 5);
CREATE MATERIALIZED VIEW diff_cells AS
    SELECT * FROM simhash_joint_histogram('SELECT fp_diff, sh_diff FROM public.diffs');
SQL
# The form that does not survive a restore; from 17 on it cannot be created.
unqualified="CREATE MATERIALIZED VIEW dup_pairs_unqualified AS SELECT * FROM simhash_pairs('SELECT id, sh FROM pages', 5)"
safe_path=$(psql -X -At -d "$src" -c "SELECT current_setting('server_version_num')::int >= 170000")
if [ "$safe_path" = t ]; then
    if psql -X -q -v ON_ERROR_STOP=1 -d "$src" -c "$unqualified" 2>"$work/create.err"; then
        echo "an unqualified source was accepted where CREATE MATERIALIZED VIEW runs with only pg_catalog"; exit 1
    fi
    cat "$work/create.err"
    grep -q "HINT:  The source query runs with the caller's search_path" "$work/create.err" \
        || { echo "the error has no hint about the search_path"; exit 1; }
else
    run -d "$src" -c "$unqualified"
fi

# One line per materialized view: populated or not, and its rows' count and digest.
fingerprint() {
    local mv
    for mv in diff_cells dup_pairs $([ "$safe_path" = t ] || echo dup_pairs_unqualified) near_clusters; do
        if [ "$(psql -X -At -d "$1" -c "SELECT ispopulated FROM pg_matviews WHERE matviewname = '$mv'")" = t ]; then
            echo "$mv populated: $(psql -X -At -v ON_ERROR_STOP=1 -d "$1" -c \
                "SELECT count(*) || ' rows, ' || md5(coalesce(string_agg(t::text, ',' ORDER BY t::text), '')) FROM public.$mv t")"
        else
            echo "$mv not populated"
        fi
    done
}
before=$(fingerprint "$src")
echo "$before"

pg_dump -Fc -f "$work/crawl.dump" -d "$src"
if [ "$safe_path" = t ]; then
    pg_restore -d "$dst" "$work/crawl.dump"
    [ "$(fingerprint "$dst")" = "$before" ] || { echo "restored materialized views differ"; exit 1; }
    echo "the schema-qualified materialized views restored populated, with the same rows"
    exit 0
fi
if pg_restore -d "$dst" "$work/crawl.dump" 2>"$work/restore.err"; then
    echo "pg_restore reported no error, but the unqualified materialized view cannot be refreshed under its empty search_path"
    exit 1
fi
cat "$work/restore.err"
grep -q 'relation "pages" does not exist' "$work/restore.err" || { echo "the restore failed otherwise than expected"; exit 1; }
grep -q "HINT:  The source query runs with the caller's search_path" "$work/restore.err" \
    || { echo "the restore error has no hint about the search_path"; exit 1; }
[ "$(grep -c 'ERROR:' "$work/restore.err")" = 1 ] || { echo "the restore had other errors"; exit 1; }

after=$(fingerprint "$dst")
expected=$(echo "$before" | sed 's/^dup_pairs_unqualified populated.*/dup_pairs_unqualified not populated/')
if [ "$after" != "$expected" ]; then
    printf 'restored materialized views differ:\nexpected:\n%s\ngot:\n%s\n' "$expected" "$after"
    exit 1
fi
echo "the schema-qualified materialized views restored populated, with the same rows"
# Refreshed later, under an ordinary search_path, the unqualified one works again.
run -d "$dst" -c "REFRESH MATERIALIZED VIEW dup_pairs_unqualified"
[ "$(fingerprint "$dst")" = "$before" ] || { echo "after a refresh the unqualified view still differs"; exit 1; }
echo "the unqualified one restored unpopulated with the hint, and refreshes under a search_path that finds its table"
