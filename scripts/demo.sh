#!/usr/bin/env bash
# The demo: installs what is missing, builds and installs simhash, starts a throwaway PostgreSQL
# server, runs demo/examples.sql, then loads a few thousand real HTML pages of Debian's documentation
# packages (apt-get download, nothing installed) and prints a crawl report, with simhash compared to
# the legacy fingerprints; writes the heat maps (log and linear colour scale) as SVG and PNG into
# $SIMHASH_DEMO_OUT (default ./demo-out). The pages are cached in $SIMHASH_DEMO_DIR (default
# /var/tmp/simhash-demo) for the next run. PG_CONFIG picks another PostgreSQL; SIMHASH_SKIP_DEPS=1
# skips installing Debian 12's packages (scripts/test_major.sh runs the demo on another major in a
# root of another release, which holds what the demo needs). Then it sets up the crawl report over
# the table pages (dashboards/setup.sh: its duplicate clusters kept by simhash_dedup), checks that
# after inserts, deletes and hash updates the report equals simhash_clusters and simhash_pairs over
# the same rows and that the dashboard's role can only read, and builds and checks the crawl
# dashboard (dashboards/run.sh: screenshots in $SIMHASH_DEMO_OUT/dashboard; SIMHASH_DASHBOARD=0
# skips it).
#   scripts/demo.sh            # the demo, then exits (and stops its server)
#   scripts/demo.sh --serve    # keeps the dashboard at http://127.0.0.1:4391/ until Ctrl-C
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" != 0 ]; then exec sudo -E "$0" "$@"; fi
serve=()
if [ "${1:-}" = --serve ]; then serve=(--serve); fi

[ "${SIMHASH_SKIP_DEPS:-}" = 1 ] || scripts/install-deps.sh
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
export PATH="$($PG_CONFIG --bindir):$PATH"
export PG_BINDIR=$($PG_CONFIG --bindir)

echo "== building and installing simhash"
make -s -j2 >/dev/null
# The shared PostgreSQL tree holds one build at a time (as scripts/tap.sh): hold it while installing,
# unless the caller holds it (scripts/test.sh: another flock here would wait for it forever).
if [ -n "${SIMHASH_INSTALL_LOCKED:-}" ]; then
    make -s install >/dev/null
else
    (exec 9>/tmp/simhash-install.lock; flock 9; make -s install >/dev/null)
fi

echo "== starting a throwaway PostgreSQL server"
eval "$(scripts/pgtmp.sh start)"
trap 'scripts/pgtmp.sh stop "$SIMHASH_PGDIR"' EXIT

psql -X -q -v ON_ERROR_STOP=1 -f demo/examples.sql

pages_dir=${SIMHASH_DEMO_DIR:-/var/tmp/simhash-demo}
echo
echo "== fetching Debian documentation packages into $pages_dir"
demo/fetch_pages.sh "$pages_dir" >"$pages_dir.list"
chmod 644 "$pages_dir.list"
echo "$(wc -l <"$pages_dir.list") HTML pages"
echo "== loading them into the table pages"
psql -X -q -v ON_ERROR_STOP=1 -v pages_list="$pages_dir.list" -f demo/load_pages.sql
out_dir=${SIMHASH_DEMO_OUT:-$PWD/demo-out}
mkdir -p "$out_dir"
chmod 755 "$out_dir"
psql -X -q -v ON_ERROR_STOP=1 -v outdir="$out_dir" -f demo/report.sql

echo
echo "== rendering the heat maps to PNG with headless Chromium"
for scale in log linear; do
    chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --force-device-scale-factor=1 \
        --window-size=1014,500 --screenshot="$out_dir/heatmap_$scale.png" "file://$out_dir/heatmap_$scale.svg" \
        >/dev/null 2>&1
    echo "$out_dir/heatmap_$scale.svg  $out_dir/heatmap_$scale.png"
done

echo
echo "== the crawl report (dashboards/setup.sh): the clusters kept by simhash_dedup, the report's tables"
dashboards/setup.sh
psql -X -q -v ON_ERROR_STOP=1 -f dashboards/test/maintained.sql
psql -X -q -v ON_ERROR_STOP=1 -f dashboards/test/bi_role.sql 2>/dev/null
if [ "${SIMHASH_DASHBOARD:-1}" = 0 ]; then
    echo "== the crawl dashboard: skipped (SIMHASH_DASHBOARD=0)"
else
    echo "== the crawl dashboard (Evidence): build, serve, screenshots in headless Chromium"
    dashboards/run.sh "${serve[@]}" "$out_dir/dashboard"
fi
