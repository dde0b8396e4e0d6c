#!/usr/bin/env bash
# Builds the crawl dashboard (dashboards/evidence, an Evidence project) against a running crawl
# database whose report is set up (dashboards/setup.sh), serves it on 127.0.0.1, and looks at it in
# headless Chromium (evidence/test/check_pages.mjs): a screenshot of every page into OUT_DIR, and
# every panel showing its data.
#   dashboards/run.sh OUT_DIR            # PGHOST, PGPORT, PGDATABASE name the database
#   dashboards/run.sh --serve OUT_DIR    # then keeps serving the dashboard until interrupted
# The panels' queries run as the read-only role PGBI_USER (default crawl_bi). The npm packages come
# from dashboards/npm_packages.sh. Port: $SIMHASH_DASHBOARD_PORT (default 4391).
set -euo pipefail
serve=0
if [ "${1:-}" = --serve ]; then serve=1; shift; fi
out=${1:?usage: dashboards/run.sh [--serve] OUT_DIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
port=${SIMHASH_DASHBOARD_PORT:-4391}
bi_user=${PGBI_USER:-crawl_bi}
cd "$(dirname "$0")/evidence"

seconds() { echo $(( $(date +%s) - $1 )); }
started=$(date +%s)
../npm_packages.sh
echo "npm packages: $(seconds "$started") s"

# Evidence's sources step runs every panel query (sources/crawl/*.sql) once and stores the answers
# with the site; the pages then query those answers in the browser. No usage statistics are sent.
export SEND_ANONYMOUS_USAGE_STATS=no
export EVIDENCE_SOURCE__crawl__host=${PGHOST:-localhost} EVIDENCE_SOURCE__crawl__port=${PGPORT:-5432} \
       EVIDENCE_SOURCE__crawl__database=${PGDATABASE:-postgres} EVIDENCE_SOURCE__crawl__user=$bi_user
started=$(date +%s)
npx evidence sources >"$out/sources.log" 2>&1 || { cat "$out/sources.log"; exit 1; }
echo "panel queries (evidence sources): $(seconds "$started") s"
started=$(date +%s)
npx evidence build >"$out/build.log" 2>&1 || { tail -n 40 "$out/build.log"; exit 1; }
echo "site build (evidence build): $(seconds "$started") s"

# What each panel must show, read from the database as the dashboard's role sees it.
{
    echo '{"rows": {'
    first=1
    for f in sources/crawl/*.sql; do
        n=$(psql -X -At -v ON_ERROR_STOP=1 -U "$bi_user" -c "SELECT count(*) FROM ($(cat "$f")
        ) s")
        [ $first = 1 ] || echo ','
        first=0
        printf '"%s": %s' "$(basename "$f" .sql)" "$n"
    done
    echo '}, "values":'
    psql -X -At -v ON_ERROR_STOP=1 -U "$bi_user" -c "SELECT json_object_agg('overview.' || key, value)
        FROM (SELECT row_to_json(o) AS j FROM ($(cat sources/crawl/overview.sql)
        ) o) x, json_each(x.j)"
    echo '}'
} >"$out/expected.json"

python3 -m http.server "$port" --bind 127.0.0.1 --directory build >"$out/http.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 1 50); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    sleep 0.2
done
node test/check_pages.mjs "http://127.0.0.1:$port" "$out" "$out/expected.json"
echo "screenshots: $out/overview.png $out/clusters.png $out/thresholds.png"
if [ $serve = 1 ]; then
    echo "the dashboard: http://127.0.0.1:$port/  (Ctrl-C stops it)"
    wait $server
fi
