#!/usr/bin/env bash
# Databases not in UTF-8: text goes to the core as UTF-8 and comes back in the database encoding.
# In LATIN1 and EUC_JP databases the same text gives the same simhash as in a UTF-8 one (non-ASCII
# letters are letters, not separators); html_text returns text in the database encoding, and a
# character reference the encoding cannot hold is error 22P05 with a hint, never foreign bytes
# (which would make a dump unrestorable: a dump and restore in EUC_JP is checked). SQL_ASCII has
# no encoding: bytes go as they are. Needs the server of scripts/test.sh (PGHOST, PGPORT).
set -euo pipefail
cd "$(dirname "$0")/../.."

export PGCLIENTENCODING=UTF8
dbs=(simhash_enc_latin1_$$ simhash_enc_eucjp_$$ simhash_enc_ascii_$$ simhash_enc_eucjp_copy_$$ simhash_enc_utf8_$$)
work=$(mktemp -d)
cleanup() {
    for db in "${dbs[@]}"; do
        psql -X -q -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $db" || true
    done
    rm -rf "$work"
}
trap cleanup EXIT
latin1=${dbs[0]} eucjp=${dbs[1]} ascii=${dbs[2]} eucjp_copy=${dbs[3]} utf8=${dbs[4]}

q() { psql -X -q -At -v ON_ERROR_STOP=1 -d "$1" -c "$2"; }
failures=0
check() {  # check NAME EXPECTED ACTUAL
    if [ "$2" = "$3" ]; then echo "ok: $1"; else echo "FAILED: $1"; echo "  expected: $2"; echo "  actual:   $3"; failures=$((failures + 1)); fi
}

psql -X -q -v ON_ERROR_STOP=1 -d postgres <<SQL
CREATE DATABASE $latin1 ENCODING 'LATIN1' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0;
CREATE DATABASE $eucjp ENCODING 'EUC_JP' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0;
CREATE DATABASE $eucjp_copy ENCODING 'EUC_JP' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0;
CREATE DATABASE $ascii ENCODING 'SQL_ASCII' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0;
CREATE DATABASE $utf8 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0;
SQL
for db in "$latin1" "$eucjp" "$ascii" "$utf8"; do q "$db" "CREATE EXTENSION simhash"; done

# The same text, the same simhash, whatever the database encoding can hold.
latin_text="Le café et la crème brûlée du marché, où l'on déjeune à midi"
for f in "simhash(@::text)" "simhash(@::text, size => 1)" "simhash(@::text, shingle => 'character', size => 4)" \
         "simhash_html(@::text)" "fingerprints(@::text)::text" "simhash(ARRAY[@, 'x']::text[])"; do
    expr=${f//@/\$t\$$latin_text\$t\$}
    want=$(q "$utf8" "SELECT $expr")
    check "LATIN1: $f" "$want" "$(q "$latin1" "SELECT $expr")"
    check "EUC_JP: $f" "$want" "$(q "$eucjp" "SELECT $expr")"
done
japanese="東京の天気は晴れです。明日も晴れるでしょう"
want=$(q "$utf8" "SELECT simhash('$japanese'::text, shingle => 'character', size => 2)")
check "EUC_JP: Japanese text" "$want" "$(q "$eucjp" "SELECT simhash('$japanese'::text, shingle => 'character', size => 2)")"
# Non-ASCII letters are letters: two words that differ only there give different one-word shingles.
check "LATIN1: café and cafö differ" "t" \
    "$(q "$latin1" "SELECT simhash('café bar baz'::text, size => 1) <> simhash('cafö bar baz'::text, size => 1)")"
check "ASCII text in SQL_ASCII" "$(q "$utf8" "SELECT simhash('plain ascii words here'::text)")" \
    "$(q "$ascii" "SELECT simhash('plain ascii words here'::text)")"

# html_text answers in the database encoding.
check "LATIN1: html_text decodes &#xE9; to é" "78c3a979" \
    "$(q "$latin1" "SELECT encode(convert_to(html_text('x&#xE9;y'), 'UTF8'), 'hex')")"
check "EUC_JP: html_text decodes &#x6771; to 東" "78e69db179" \
    "$(q "$eucjp" "SELECT encode(convert_to(html_text('x&#x6771;y'), 'UTF8'), 'hex')")"
check "SQL_ASCII: html_text returns the UTF-8 bytes" "78c3a979" \
    "$(q "$ascii" "SELECT encode(convert_to(html_text('x&#xE9;y'), 'SQL_ASCII'), 'hex')")"
# A character the encoding cannot hold: 22P05 with a hint, no foreign bytes stored.
for case in "$latin1:x&#x6771;y" "$eucjp:a&#x80;b"; do
    db=${case%%:*}; html=${case#*:}
    out=$(psql -X -q -At -d "$db" -c "\\set VERBOSITY verbose" -c "SELECT html_text('$html')" 2>&1 || true)
    if echo "$out" | grep -q "ERROR:  22P05" && echo "$out" | grep -q "HINT:  .*cannot hold"; then
        echo "ok: $html in $db is 22P05 with a hint"
    else
        echo "FAILED: $html in $db: $out"; failures=$((failures + 1))
    fi
done

# A table made from html_text in EUC_JP dumps and restores.
q "$eucjp" "CREATE TABLE texts AS SELECT i, html_text(format('<p>第%s章 &amp; caf&eacute; &#x6771;</p>', i)) AS t FROM generate_series(1, 20) i"
pg_dump -Fc -d "$eucjp" -t texts -f "$work/texts.dump"
pg_restore -d "$eucjp_copy" "$work/texts.dump"
check "EUC_JP: dump and restore of html_text output" \
    "$(q "$eucjp" "SELECT md5(string_agg(t, '|' ORDER BY i)) FROM texts")" \
    "$(q "$eucjp_copy" "SELECT md5(string_agg(t, '|' ORDER BY i)) FROM texts")"

echo "$failures failure(s)"
[ "$failures" = 0 ]
