#!/usr/bin/env bash
# Checks that bench/gen/workload.cpp produces exactly the reference workload's output (rows,
# queries, exact answers) for a few sizes and seeds. The reference generator is not part of this
# project: pass the path of its C source.
#
#   bench/check_workload.sh PATH/TO/simhash_gen.c
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
reference=${1:?usage: bench/check_workload.sh PATH/TO/simhash_gen.c}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
g++ -O2 -std=c++17 -mpopcnt -pthread -o "$work/ours" "$here/gen/workload.cpp"
cc -O2 -fopenmp -o "$work/reference" "$reference"
status=0
for args in "rows 1000 7" "rows 100000 42" "rows 1000000 42" "queries 1000000 42 1000" \
            "truth 50000 42 300 8" "knntruth 50000 42 300 10"; do
    # shellcheck disable=SC2086
    if cmp -s <("$work/ours" $args) <("$work/reference" $args); then
        echo "same: $args"
    else
        echo "DIFFERENT: $args"; status=1
    fi
done
exit $status
