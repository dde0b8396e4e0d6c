-- The legacy fingerprints: 128 min-hashes per page, their text/binary forms, difference, simhash,
-- band keys, and bad input.
\i sql/include/try.sql
-- Fingerprints whose entries are 1000*seed + i, with the positions in `changed` altered.
CREATE FUNCTION pg_temp.fp(seed int, changed int[] DEFAULT '{}') RETURNS fingerprints
LANGUAGE sql AS $$
    SELECT fingerprints(array_agg(CASE WHEN i = ANY (changed) THEN -(1000 * seed + i) ELSE 1000 * seed + i END
                                  ORDER BY i)::bigint[])
    FROM generate_series(1, 128) i $$;

-- Known answers: a page without features has every entry 2^64-1; a page's entries are pinned.
SELECT fingerprints(''::text) = fingerprints(array_fill(-1::bigint, ARRAY[128])) AS empty_is_all_ones,
       fingerprints('!!! ...'::text) = fingerprints(''::text) AS no_words_is_empty;
SELECT (fingerprint_entries(fingerprints('the quick brown fox jumps over the lazy dog'::text)))[1:4] AS first_entries,
       md5(fingerprints('the quick brown fox jumps over the lazy dog'::text)::text) AS all_entries;
SELECT md5(fingerprints('the quick brown fox'::text, 'character', 5)::text) AS characters,
       md5(fingerprints('The Quick Brown Fox'::text, fold_case => false)::text) AS unfolded,
       fingerprints('The Quick Brown Fox'::text) = fingerprints('the quick brown fox'::text) AS folded_equal;
-- The HTML path is the text path over html_text().
SELECT fingerprints_html('<p>Hello <b>world</b></p><script>x()</script><p>again &amp; again</p>')
     = fingerprints(html_text('<p>Hello <b>world</b></p><script>x()</script><p>again &amp; again</p>')) AS html_path;
-- Near-duplicate pages differ in few entries, unrelated pages in almost all.
WITH p(a, b, c) AS (
    SELECT string_agg('word' || i, ' ' ORDER BY i),
           string_agg(CASE WHEN i = 150 THEN 'changed' ELSE 'word' || i END, ' ' ORDER BY i),
           string_agg('other' || i, ' ' ORDER BY i)
    FROM generate_series(1, 300) i)
SELECT fingerprint_diff(fingerprints(a), fingerprints(b)) BETWEEN 0 AND 12 AS near_duplicate_close,
       fingerprint_diff(fingerprints(a), fingerprints(c)) >= 120 AS unrelated_far
FROM p;

-- Text form: {e1,...,e128}, 16 lowercase hex digits each; input takes what simhash takes per entry.
SELECT pg_temp.fp(1)::text = '{' || string_agg(lpad(to_hex(1000 + i), 16, '0'), ',' ORDER BY i) || '}' AS text_form
FROM generate_series(1, 128) i;
SELECT (' {' || string_agg(CASE WHEN i % 2 = 0 THEN '0x' || to_hex(1000 + i) ELSE upper(to_hex(1000 + i)) END,
                           ' , ' ORDER BY i) || '} ')::fingerprints = pg_temp.fp(1) AS lenient_input
FROM generate_series(1, 128) i;
SELECT fingerprints_in(fingerprints_out(fp)) = fp AS text_round_trip
FROM (VALUES (pg_temp.fp(1)), (pg_temp.fp(2, '{1,64,128}')), (fingerprints('some page text here'::text))) t(fp);
-- Malformed text: each says what is wrong.
SELECT ''::fingerprints;
SELECT '1,2,3'::fingerprints;
SELECT '{}'::fingerprints;
SELECT '{1,2,3}'::fingerprints;
SELECT ('{' || repeat('1,', 128) || '1}')::fingerprints;
SELECT ('{' || repeat('1,', 127) || '1')::fingerprints;
SELECT ('{' || repeat('1,', 126) || 'xyz,1}')::fingerprints;
SELECT ('{' || repeat('1,', 127) || '12345678901234567}')::fingerprints;
SELECT ('{' || repeat('1,', 127) || '1} x')::fingerprints;

-- Binary form: 128 entries of 8 bytes, network order; COPY in binary goes through send/recv.
SELECT length(fingerprints_send(pg_temp.fp(1))) AS wire_bytes,
       substr(fingerprints_send(pg_temp.fp(1)), 1, 16) AS first_two_entries;
CREATE TEMP TABLE copy_src AS
SELECT i, fp FROM (VALUES (1, pg_temp.fp(1)), (2, pg_temp.fp(3, '{5,6}')), (3, fingerprints(''::text)),
                          (4, NULL)) t(i, fp);
CREATE TEMP TABLE copy_dst (LIKE copy_src);
DO $$
DECLARE f text := '/tmp/fingerprints_regress_' || pg_backend_pid() || '.bin';
BEGIN
    EXECUTE format('COPY copy_src TO PROGRAM %L (FORMAT binary)', 'cat > ' || f);
    EXECUTE format('COPY copy_dst FROM PROGRAM %L (FORMAT binary)', 'cat ' || f || ' && rm ' || f);
END $$;
SELECT s.i, d.fp IS NOT DISTINCT FROM s.fp AS same FROM copy_src s JOIN copy_dst d USING (i) ORDER BY i;
-- A binary field of the wrong length (3 bytes) is rejected, not misread.
CREATE TEMP TABLE copy_bad (fp fingerprints);
COPY copy_bad FROM PROGRAM $$printf 'PGCOPY\n\377\r\n\0\0\0\0\0\0\0\0\0\0\1\0\0\0\3abc\377\377'$$ (FORMAT binary);

-- Entries as bigint[] and back; wrong lengths and NULL elements are refused.
SELECT fingerprints(fingerprint_entries(pg_temp.fp(7, '{9}'))) = pg_temp.fp(7, '{9}') AS entries_round_trip;
SELECT pg_temp.try($$SELECT fingerprints(ARRAY[1, 2, 3]::bigint[])$$);
SELECT pg_temp.try($$SELECT fingerprints(array_fill(1::bigint, ARRAY[129]))$$);
SELECT pg_temp.try($$SELECT fingerprints(array_fill(1::bigint, ARRAY[2, 64]))$$);
SELECT pg_temp.try($$SELECT fingerprints(array_fill(1::bigint, ARRAY[127]) || NULL::bigint)$$);

-- Difference: the number of positions that differ, 0..128.
SELECT fingerprint_diff(pg_temp.fp(1), pg_temp.fp(1)) AS same,
       fingerprint_diff(pg_temp.fp(1), pg_temp.fp(1, '{1}')) AS one,
       fingerprint_diff(pg_temp.fp(1), pg_temp.fp(1, '{1,2,3,64,65,127}')) AS six,
       fingerprint_diff(pg_temp.fp(1, '{10,20}'), pg_temp.fp(1, '{20,30}')) AS two,
       fingerprint_diff(pg_temp.fp(1), pg_temp.fp(2)) AS all_differ;

-- simhash(fingerprints) is Charikar over the 128 entries: equal to simhash(bigint[]) of them.
SELECT bool_and(simhash(fp) = simhash(fingerprint_entries(fp))) AS same_as_bigint_array,
       count(DISTINCT simhash(fp)) AS distinct_hashes
FROM (SELECT fingerprints('page number '::text || i || ' with some words') AS fp FROM generate_series(1, 50) i) t;
SELECT simhash(fingerprints(''::text)) AS all_ones_entries;

-- Equality, order and hashing: GROUP BY, DISTINCT, ORDER BY and joins work either way.
CREATE TEMP TABLE fps AS SELECT i, pg_temp.fp(i % 5) AS fp FROM generate_series(1, 50) i;
SET enable_hashagg = off;
SELECT count(*) AS groups_sorted FROM (SELECT fp FROM fps GROUP BY fp) g;
RESET enable_hashagg;
SET enable_sort = off;
SELECT count(*) AS groups_hashed FROM (SELECT DISTINCT fp FROM fps) g;
RESET enable_sort;
SELECT count(*) AS join_pairs FROM fps a JOIN fps b ON a.fp = b.fp;
SELECT pg_temp.fp(1) < pg_temp.fp(2) AS lt, pg_temp.fp(2) > pg_temp.fp(1, '{128}') AS gt,
       pg_temp.fp(1) <> pg_temp.fp(1, '{128}') AS ne, pg_temp.fp(1) <= pg_temp.fp(1) AS le;

-- Band keys: d + 1 keys; the band-key self-join finds exactly the pairs within d, as brute force.
SELECT cardinality(fingerprint_band_keys(pg_temp.fp(1), 0)) AS d0,
       cardinality(fingerprint_band_keys(pg_temp.fp(1), 6)) AS d6,
       cardinality(fingerprint_band_keys(pg_temp.fp(1), 127)) AS d127;
SELECT pg_temp.try($$SELECT fingerprint_band_keys(fingerprints(''::text), -1)$$);
SELECT pg_temp.try($$SELECT fingerprint_band_keys(fingerprints(''::text), 128)$$);
-- 40 clusters of 8 members, each member with up to 15 (hash-chosen) positions changed from its base.
CREATE TEMP TABLE members AS
SELECT c * 100 + m AS id,
       pg_temp.fp(c, ARRAY(SELECT 1 + (hashint4(c * 10000 + m * 100 + j) & 127)
                           FROM generate_series(1, hashint4(c * 100 + m) & 15) j)) AS fp
FROM generate_series(1, 40) c, generate_series(1, 8) m;
CREATE FUNCTION pg_temp.band_pairs(d int) RETURNS TABLE (id_a int, id_b int) LANGUAGE sql AS $$
    WITH k AS (SELECT id, unnest(fingerprint_band_keys(fp, d)) AS key FROM members)
    SELECT DISTINCT a.id, b.id FROM k a JOIN k b ON a.key = b.key AND a.id < b.id
    JOIN members ma ON ma.id = a.id JOIN members mb ON mb.id = b.id
    WHERE fingerprint_diff(ma.fp, mb.fp) <= d $$;
CREATE FUNCTION pg_temp.brute_pairs(d int) RETURNS TABLE (id_a int, id_b int) LANGUAGE sql AS $$
    SELECT a.id, b.id FROM members a JOIN members b ON a.id < b.id WHERE fingerprint_diff(a.fp, b.fp) <= d $$;
SELECT d, (SELECT count(*) FROM pg_temp.brute_pairs(d)) AS pairs,
       NOT EXISTS ((SELECT * FROM pg_temp.band_pairs(d) EXCEPT SELECT * FROM pg_temp.brute_pairs(d))
                   UNION ALL
                   (SELECT * FROM pg_temp.brute_pairs(d) EXCEPT SELECT * FROM pg_temp.band_pairs(d))) AS same_pairs
FROM unnest(ARRAY[0, 2, 6, 10, 20]) d;

-- Options and bad input, as simhash(text) has them.
SELECT pg_temp.try($$SELECT fingerprints('x'::text, 'sentence')$$);
SELECT pg_temp.try($$SELECT fingerprints('x'::text, size => 0)$$);
SELECT pg_temp.try($$SELECT fingerprints_html('x', size => 65)$$);
SELECT fingerprints(NULL::text) IS NULL AS null_text, fingerprint_diff(NULL, pg_temp.fp(1)) IS NULL AS null_diff,
       fingerprint_band_keys(NULL, 6) IS NULL AS null_keys, simhash(NULL::fingerprints) IS NULL AS null_simhash;
-- Malformed HTML never errors.
SELECT fingerprints_html('<div><p>unclosed <b>tags &bogus; <!-- open comment') IS NOT NULL AS malformed_html_ok;
