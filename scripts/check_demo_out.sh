#!/usr/bin/env bash
# The demo's output is what a newcomer looks at: both heat maps (log and linear colour scale) as
# non-empty PNG files in DIR. Prints each with its size; exits 1 if one is missing, empty or not a
# PNG (Chromium can exit 0 without writing its screenshot).
#   scripts/check_demo_out.sh DIR
set -uo pipefail
dir=${1:?usage: check_demo_out.sh DIR}
ok=0
for scale in log linear; do
    png="$dir/heatmap_$scale.png"
    if [ -s "$png" ] && [ "$(head -c 8 "$png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; then
        echo "$png: $(stat -c %s "$png") bytes"
    else
        echo "$png is missing, empty or not a PNG"; ok=1
    fi
done
exit $ok
