#!/usr/bin/env bash
# The heat map opens in a browser and its colours follow the scale: headless Chromium renders the SVG
# of a histogram with known counts (1, 1,000 and 1,000,000 pairs) to PNG, and the pixels of each
# cell are checked: the fewest pairs at the violet-magenta end, the most at the red end, and 1,000
# mid-scale (green) on the logarithmic scale but at the violet end on the linear one.
# Needs the server of scripts/test.sh (PGHOST, PGPORT) and chromium (scripts/install-deps.sh).
# Runs once: the SVG is the core's, the browser the host's.
set -euo pipefail
cd "$(dirname "$0")/../.."

db=heatmap_render_$$
work=$(mktemp -d)
chmod 755 "$work"
trap 'psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db"; rm -rf "$work"' EXIT
psql -X -q -d postgres -c "CREATE DATABASE $db"
psql -X -q -d "$db" -c "CREATE EXTENSION simhash"

histogram='SELECT * FROM (VALUES (0, 0, 1000000), (50, 30, 1), (100, 60, 1000)) h(fp_diff, sh_diff, pairs)'
# Cell centres in the SVG's pixels (src/core/heatmap_svg.hpp: 6-pixel cells, plot at (70, 50)).
centre() { echo "$((70 + $1 * 6 + 3)),$((50 + (64 - $2) * 6 + 3))"; }
most=$(centre 0 0) fewest=$(centre 50 30) middle=$(centre 100 60)

failures=0
check() {  # check NAME R G B CONDITION(in r, g, b)
    local name=$1 r=$2 g=$3 b=$4 condition=$5
    if (( $condition )); then echo "ok: $name ($r $g $b)"; else echo "FAILED: $name ($r $g $b)"; failures=$((failures + 1)); fi
}

for scale in log linear; do
    psql -X -q -At -v ON_ERROR_STOP=1 -d "$db" \
        -c "SELECT simhash_heatmap_svg(\$\$$histogram\$\$, '$scale')" >"$work/$scale.svg"
    chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --force-device-scale-factor=1 \
        --window-size=1100,600 --screenshot="$work/$scale.png" "file://$work/$scale.svg" >"$work/chromium.log" 2>&1 ||
        { cat "$work/chromium.log"; exit 1; }
    [ -s "$work/$scale.png" ] || { echo "chromium wrote no PNG"; cat "$work/chromium.log"; exit 1; }
    while read -r point r g b; do
        case $point in
            "$most")   check "$scale: most pairs is red" "$r" "$g" "$b" 'r > 200 && g < 60 && b < 60' ;;
            "$fewest") check "$scale: fewest pairs is violet-magenta" "$r" "$g" "$b" 'r > 200 && b > 200 && g < 60' ;;
            "$middle")
                if [ "$scale" = log ]; then
                    check "log: 1,000 of 1 .. 1,000,000 is mid-scale green" "$r" "$g" "$b" 'g > 200 && r < 60'
                else
                    check "linear: 1,000 of 1 .. 1,000,000 is at the violet end" "$r" "$g" "$b" 'r > 200 && b > 200 && g < 60'
                fi ;;
        esac
    done < <(python3 test/scripts/png_pixels.py "$work/$scale.png" "$most" "$fewest" "$middle")
done
[ "$failures" = 0 ]
