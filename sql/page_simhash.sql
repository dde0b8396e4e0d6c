-- simhash of page text and HTML, html_text, simhash of given features, and simhash_agg.
\i sql/include/try.sql

-- Known-answer vectors: these values are part of the specification (README, "Computing simhash").
-- The default method (one-bit min-hashes):
SELECT simhash('The quick brown fox jumps over the lazy dog'::text) AS words3,
       simhash('The quick brown fox jumps over the lazy dog'::text, size => 1) AS words1,
       simhash('The quick brown fox jumps over the lazy dog'::text, shingle => 'character', size => 5) AS chars5,
       simhash('The quick brown fox jumps over the lazy dog'::text, fold_case => false) AS unfolded,
       simhash('a b c a b c'::text) = simhash('c a b c a b c'::text) AS sees_a_set,
       simhash('a b c a b c'::text, weighting => 'frequency') AS frequency,
       simhash('a b c d e f'::text, weighting => 'frequency') = simhash('a b c d e f'::text) AS no_repeats_same,
       simhash('The quick brown fox'::text) = simhash('the quick brown fox'::text, method => 'MinHash') AS named;
-- Charikar's sum, with each weighting:
SELECT simhash('The quick brown fox jumps over the lazy dog'::text, method => 'charikar') AS words3,
       simhash('The quick brown fox jumps over the lazy dog'::text, size => 1, method => 'charikar') AS words1,
       simhash('The quick brown fox jumps over the lazy dog'::text, shingle => 'character', size => 5, method => 'charikar') AS chars5,
       simhash('The quick brown fox jumps over the lazy dog'::text, fold_case => false, method => 'charikar') AS unfolded,
       simhash('a b c a b c'::text, weighting => 'frequency', method => 'charikar') AS frequency,
       simhash('a b c a b c'::text, weighting => 'log', method => 'charikar') AS log;
-- Case, punctuation and white space do not matter; words do.
SELECT simhash('Hello,   WORLD! Again.'::text) = simhash('hello world again'::text) AS same,
       simhash('hello world again'::text) = simhash('hello world gain'::text) AS changed_word_differs;
-- Empty or wordless text has no features: 0.
SELECT simhash(''::text), simhash(' ,.;!? '::text), simhash('😀 😀'::text), html_text('');
-- Unicode: accented Latin, Cyrillic, CJK without spaces, combining marks, emoji between words.
SELECT simhash('ÉCOLE Été Ça'::text) = simhash('école été ça'::text) AS latin_folds,
       simhash('ПРИВЕТ МИР ВСЕМ'::text) = simhash('привет мир всем'::text) AS cyrillic_folds,
       simhash('日本語のテキスト'::text) <> '0' AS cjk_has_features,
       simhash('日本語のテキスト'::text, size => 1) AS cjk_unigrams,
       simhash(U&'cafe\0301 noir fort'::text) = simhash(U&'CAFE\0301 NOIR FORT'::text) AS combining_mark_kept,
       simhash(U&'cafe\0301 noir fort'::text) <> simhash('cafe noir fort'::text) AS mark_matters,
       simhash(E'ok \U0001F600 ok then'::text) = simhash('ok ok then'::text) AS emoji_separates;
-- Near-duplicates are close, unrelated pages are not.
WITH page AS (SELECT string_agg('word' || ((i * 7919) % 1000), ' ') AS t FROM generate_series(1, 500) i)
SELECT hamming(simhash(t), simhash(t || ' plus a short footer')) <= 5 AS edit_is_close,
       hamming(simhash(t), simhash(replace(t, 'word', 'term'))) > 10 AS different_is_far
FROM page;

-- HTML: visible text only; simhash_html(h) = simhash(html_text(h)).
SELECT html_text('<html><head><title>Title</title><style>p{color:red}</style></head>'
                 '<body><p>Fish &amp; chips &lt;3 &#233;&#x41;</p><script>var x = "<p>";</script>'
                 '<!-- a comment --><div>next<b>bold</b>word</div><noscript>no</noscript></body></html>');
SELECT simhash_html('<p>Some page text here</p><script>tracking()</script>') = simhash('Some page text here'::text) AS html_same_as_text,
       simhash_html('<p>Some page text here</p>', size => 2) = simhash('Some page text here'::text, size => 2) AS options_apply;
-- Malformed HTML never fails.
SELECT html_text(h) FROM (VALUES ('<p>unclosed <b>bold'), ('<a href="x>y">link</a> after'), ('text <!-- never closed'),
                                 ('<script>never closed'), ('1 < 2 && 3 > 2'), ('&amp &bogus; &#99999999;'),
                                 ('<<<>>>'), ('</p></div>closing only')) t(h);
-- Form controls and images separate words, as the boxes a browser draws for them do.
SELECT html_text('<button>All Classes</button><button>Interfaces</button>Search:<input type="text">go<img src="x.png">on');

-- From features the caller already has.
SELECT simhash(ARRAY['alpha', 'beta', 'gamma']) AS features,
       simhash(ARRAY['alpha', 'beta', 'gamma'], ARRAY[1, 1, 1]::real[]) = simhash(ARRAY['alpha', 'beta', 'gamma']) AS unit_weights,
       simhash(ARRAY['alpha', 'beta'], ARRAY[3, 1]::real[]) AS weighted,
       simhash(ARRAY[]::text[]) AS none,
       simhash(ARRAY[5, 3]::bigint[]) AS raw_and, simhash(ARRAY[-1]::bigint[]) AS raw_one;
-- The aggregate equals the array form, also in a parallel plan.
CREATE TABLE feats (page int, feature text, weight real);
INSERT INTO feats SELECT i % 50, 'f' || (i * 31 % 997), 1 + (i % 4) FROM generate_series(1, 20000) i;
SELECT count(*) AS pages_differing FROM (
    SELECT page, simhash_agg(feature, weight) AS agg, simhash(array_agg(feature), array_agg(weight)) AS arr
    FROM feats GROUP BY page) s WHERE agg <> arr;
SELECT simhash_agg(feature) = simhash(array_agg(feature)) AS unweighted_matches FROM feats;
SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT simhash_agg(feature, weight) FROM feats;
SELECT simhash_agg(feature, weight) = (SELECT simhash(array_agg(feature), array_agg(weight)) FROM feats) AS parallel_same FROM feats;
RESET parallel_setup_cost; RESET parallel_tuple_cost; RESET min_parallel_table_scan_size; RESET max_parallel_workers_per_gather;
SELECT simhash_agg(feature) FROM feats WHERE false;
SELECT simhash_agg(f) FROM (VALUES (NULL::text), ('alpha')) t(f);
DROP TABLE feats;

-- NULL in, NULL out.
SELECT simhash(NULL::text), simhash_html(NULL), html_text(NULL), simhash(NULL::text[]), simhash('x'::text, size => NULL),
       simhash('x'::text, method => NULL);

-- Bad input: each a clear error with its SQLSTATE.
SELECT pg_temp.try(q) FROM (VALUES
    ($$SELECT simhash('x'::text, shingle => 'sentence')$$),
    ($$SELECT simhash('x'::text, weighting => 'tfidf')$$),
    ($$SELECT simhash('x'::text, method => 'bbit')$$),
    ($$SELECT simhash('x'::text, weighting => 'log')$$),
    ($$SELECT simhash_html('x', weighting => 'log', method => 'minhash')$$),
    ($$SELECT simhash('x'::text, size => 0)$$),
    ($$SELECT simhash('x'::text, size => 65)$$),
    ($$SELECT simhash_html('x', size => -1)$$),
    ($$SELECT simhash('x'::text, shingel => 'word')$$),
    ($$SELECT simhash(ARRAY['a', NULL])$$),
    ($$SELECT simhash(ARRAY['a', 'b'], ARRAY[1]::real[])$$),
    ($$SELECT simhash(ARRAY['a'], ARRAY[NULL]::real[])$$),
    ($$SELECT simhash(ARRAY['a'], ARRAY[-1]::real[])$$),
    ($$SELECT simhash(ARRAY['a'], ARRAY['NaN']::real[])$$),
    ($$SELECT simhash(ARRAY['a'], ARRAY['Infinity']::real[])$$),
    ($$SELECT simhash(ARRAY[ARRAY['a'], ARRAY['b']])$$),
    ($$SELECT simhash(ARRAY[1, NULL]::bigint[])$$),
    ($$SELECT simhash_agg(f, w) FROM (VALUES ('a', -2::real)) t(f, w)$$)) t(q);
\set VERBOSITY default
SELECT simhash('x'::text, weighting => 'tfidf');
SELECT simhash('x'::text, method => 'bbit');

-- A large page (20 MB: 20 pieces of 1 MB) works, and the hash does not depend on where the
-- pieces split it; statement_timeout cancels a huge one (200 MB) while it is being hashed.
SELECT simhash(repeat('lorem ipsum dolor sit amet ', 800000)) = simhash(repeat('Lorem Ipsum Dolor Sit Amet ', 800000)) AS big_ok;
CREATE TEMP TABLE big AS SELECT repeat('lorem ipsum dolor sit amet consectetur ', 5000000) AS t;
SET statement_timeout = '500ms';
SELECT simhash(t) FROM big;
RESET statement_timeout;
DROP TABLE big;

-- Character references as browsers decode them: numeric and legacy named ones need no ';', so the
-- HTML path and the text path agree on pages that leave it out.
SELECT html_text('<p>&#65 &#x42 &amp &lt;b&gt &copy2024 &notit; &mdash; &mdash &#150;</p>') AS decoded;
SELECT simhash_html('<p>Fish &amp chips &#38 peas &copy 2024</p>') = simhash('Fish & chips & peas © 2024'::text) AS html_path_is_text_path;
-- Every name of HTML's table (2,231), the longest that matches, as browsers show them (before 1.3,
-- only the legacy names were known: "¬in; ×b; ©sr; <dot;"); some names stand for two code points;
-- only the legacy names match without their ';'; unknown names stay text. The *_html functions
-- read the page the same way.
SELECT html_text('&notin; &timesb; &copysr; &ltdot;') AS full_table,
       html_text('&NotEqualTilde; &fjlig;') = U&'\2242\0338 fj' AS two_code_points,
       html_text('&notit; &notin &timesb &amp &ampersand;') AS legacy_without_semicolon,
       html_text('&nosuch; &NOTIN; &Notin; &mdash') AS unknown_stay_text;
SELECT simhash_html('<p>a x&Afr;y b c d</p>') = simhash(U&'a x\+01D504y b c d'::text) AS simhash_html_decodes,
       fingerprints_html('<p>a x&Afr;y b c d</p>') = fingerprints(U&'a x\+01D504y b c d'::text) AS fingerprints_html_decodes,
       resemblance_sketch_html('<p>a x&Afr;y b c d</p>') = resemblance_sketch(U&'a x\+01D504y b c d'::text) AS sketch_html_decodes,
       simhash_html('<p>a x&Afr;y b c d</p>') <> simhash('a x&Afr;y b c d'::text) AS not_the_old_reading;
