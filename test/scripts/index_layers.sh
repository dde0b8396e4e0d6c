#!/usr/bin/env bash
# The simhash_mih access method (src/pg/index_am) is layered: am -> lsm -> store -> format, each a
# folder. A file includes the headers of its own layer and the layers below, never above; and no
# two of its C files call each other, directly or round a circle (read from the built objects'
# symbols, so a forward declaration cannot hide a call). Prints the folder graph of the includes
# and the file graph of the calls; exits 1 on an include or call running up, or a circle.
# Needs the objects of a build (make); no server.
# Runs once: it reads the tree and the host's build.
set -euo pipefail
cd "$(dirname "$0")/../.."

dir=src/pg/index_am
rank() { case $1 in format) echo 0 ;; store) echo 1 ;; lsm) echo 2 ;; am) echo 3 ;; *) echo 9 ;; esac; }
bad=0

stray=$(find "$dir" -maxdepth 1 -type f -name '*.[ch]')
if [ -n "$stray" ]; then
    echo "files outside the layers: $stray"
    bad=1
fi

echo "includes (folder -> folder: files):"
edges=$(for f in "$dir"/*/*.[ch]; do
    from=$(basename "$(dirname "$f")")
    sed -n 's/^#include "\(am\|lsm\|store\|format\)\/.*/\1/p' "$f" | sort -u | sed "s|^|$from |"
done)
echo "$edges" | sort | uniq -c | awk '{printf "  %-6s -> %-6s %d\n", $2, $3, $1}'
while read -r from to; do
    if [ "$(rank "$to")" -gt "$(rank "$from")" ]; then
        echo "include running up: $from -> $to in:"
        grep -l "^#include \"$to/" "$dir/$from"/*.[ch] | sed 's/^/  /'
        bad=1
    fi
done <<<"$edges"

objs=$(ls "$dir"/*/*.o 2>/dev/null || true)
if [ -z "$objs" ]; then
    echo "no objects under $dir: run make first"
    exit 1
fi
defs=$(for o in $objs; do nm --defined-only -g "$o" | awk -v f="${o#$dir/}" '$2 ~ /[TDBR]/ {print $3, f}'; done | sort)
uses=$(for o in $objs; do nm -u "$o" | awk -v f="${o#$dir/}" '{print $2, f}'; done | sort)
calls=$(join <(echo "$defs") <(echo "$uses") | awk '$2 != $3 {print $3, $2}' | sort -u)
echo "calls (file -> file it calls):"
echo "$calls" | sed 's/\.o//g; s/^/  /; s/ \([^ ]*\)$/ -> \1/'
while read -r user def; do
    [ -z "$user" ] && continue
    if [ "$(rank "${def%%/*}")" -gt "$(rank "${user%%/*}")" ]; then
        echo "call running up: $user -> $def"
        bad=1
    fi
done <<<"$calls"
if ! echo "$calls" | tsort >/dev/null 2>/tmp/index_layers.$$; then
    echo "a circle of calls:"
    cat /tmp/index_layers.$$
    bad=1
fi
rm -f /tmp/index_layers.$$

if [ "$bad" = 0 ]; then
    echo "layers: no include or call runs up, no circle"
fi
exit "$bad"
