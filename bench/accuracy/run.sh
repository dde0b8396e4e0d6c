#!/usr/bin/env bash
# Accuracy of simhash pipelines against a corpus's exact Jaccard ground truth (formats: doc/accuracy.md).
#
#   bench/accuracy/run.sh [-p NAME=SQL_EXPRESSION]... [--draws N] [--no-load] [--confirmed] CORPUS_DIR...
#
# Needs a running server with the extension installed (PGHOST, PGPORT, ... as for psql); creates
# the extension if missing. Each CORPUS_DIR holds pages.tsv and gt_pairs_ge05_ids.tsv. A pipeline is
# an SQL expression over the columns `html` and `text` of a page (the corpus's visible text)
# returning simhash. Measured every run, in this order: `textbook` (the baseline of issue 4, see
# textbook.sql), then the -p pipelines, or by default `simhash_html(html)` and `simhash(text)`.
# --draws N adds the textbook pipeline with N other MD5 salts (textbook_s1..N): the spread of the
# figures over draws of the feature hash. With --no-load, tables left by an earlier run of the
# same corpus are reused.
#
# Prints for k = 0..10 the pairs with Hamming distance <= k among ALL pairs of pages (exact, from
# simhash_pairs), precision and recall against J >= 0.9 and J >= 0.8, and flagged pairs with
# J < 0.5 (flagged pairs absent from gt_pairs_ge05, which lists every pair with J >= 0.5); and, when
# the extension has them, the same figures for the legacy fingerprints (fingerprints_html) at
# difference <= 6. --confirmed adds the default simhash confirmed by resemblance sketches at several
# min_resemblance values (confirmed.sql).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

pipelines=()
load=1
draws=0
confirmed=0
while [ $# -gt 0 ]; do
    case $1 in
        -p) pipelines+=("$2"); shift 2 ;;
        --draws) draws=$2; shift 2 ;;
        --no-load) load=0; shift ;;
        --confirmed) confirmed=1; shift ;;
        -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
        *) break ;;
    esac
done
[ $# -gt 0 ] || { echo "usage: $0 [-p NAME=SQL_EXPRESSION]... [--draws N] [--no-load] [--confirmed] CORPUS_DIR..." >&2; exit 2; }
[ ${#pipelines[@]} -gt 0 ] || pipelines=("simhash_html=simhash_html(html)" "simhash_text=simhash(text)")
for s in $(seq 1 "$draws"); do pipelines+=("textbook_s$s=acc_textbook_simhash(text, '$s')"); done

q() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }

q -c "CREATE EXTENSION IF NOT EXISTS simhash" -f "$here/textbook.sql"

for dir in "$@"; do
    tag=$(basename "$dir" | tr -c 'a-zA-Z0-9_\n' _)
    if [ "$load" = 1 ]; then
        q -v tag="$tag" -f "$here/load_tables.sql"
        q -c "COPY acc_pages_$tag (url, html, text) FROM STDIN" <"$dir/pages.tsv"
        q -c "COPY acc_gt_$tag FROM STDIN" <"$dir/gt_pairs_ge05_ids.tsv"
        q -c "ANALYZE acc_pages_$tag" -c "ANALYZE acc_gt_$tag"
    fi
    q -c "DELETE FROM acc_sh_$tag"
    for p in "textbook=acc_textbook_simhash(text)" "${pipelines[@]}"; do
        name=${p%%=*}
        expr=${p#*=}
        start=$(date +%s.%N)
        q -v tag="$tag" -v name="$name" \
          -c "INSERT INTO acc_sh_$tag SELECT '$name', id, $expr FROM acc_pages_$tag"
        printf '%s: %s computed in %.1f s\n' "$tag" "$name" "$(echo "$(date +%s.%N) - $start" | bc)" >&2
    done
    q -v tag="$tag" -f "$here/report.sql"
    if [ "$(psql -X -A -t -c "SELECT to_regproc('fingerprints_html') IS NOT NULL")" = t ]; then
        q -v tag="$tag" -f "$here/fingerprints.sql"
    fi
    [ "$confirmed" = 0 ] || q -v tag="$tag" -f "$here/confirmed.sql"
done
