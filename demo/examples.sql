-- A first look at the simhash extension (run by scripts/demo.sh).
\pset footer off
CREATE EXTENSION IF NOT EXISTS simhash;

\echo '--- a simhash is 64 bits, written as 16 hex digits'
SELECT '0xDEADBEEF'::simhash AS from_text,
       (-1)::bigint::simhash AS from_bigint,
       '8000000000000000'::simhash::bit(64) AS as_bits;

\echo '--- Hamming distance: how many of the 64 bits differ'
SELECT hamming('f0f0f0f0f0f0f0f0'::simhash, 'f0f0f0f0f0f0f0f1') AS one_bit_apart,
       'f0f0f0f0f0f0f0f0'::simhash <-> '0f0f0f0f0f0f0f0f' AS all_bits_apart;

\echo '--- a small crawl: pages stored with their simhash (legacy tables kept them as bigint)'
CREATE TEMP TABLE pages (id int PRIMARY KEY, url text, sh simhash);
INSERT INTO pages VALUES
    (1, 'https://example.com/',            'a3c1f0e2d4b59687'),
    (2, 'https://example.com/index.html',  'a3c1f0e2d4b59687'),
    (3, 'https://example.com/?utm=x',      'a3c1f0e2d4b59685'),
    (4, 'https://example.com/blog/1',      'a3c1f0e2d4b5968f'::simhash # '0000000000000300'),
    (5, 'https://example.com/about',       '1b2e3c4d5f60718a');

\echo '--- pages within 5 bits of the home page (duplicates by the simhash rule)'
SELECT b.url, hamming(a.sh, b.sh) AS distance
FROM pages a JOIN pages b ON a.id = 1 AND b.id <> 1
WHERE hamming(a.sh, b.sh) <= 5
ORDER BY distance, b.url;

\echo '--- exact duplicates: pages sharing one simhash'
SELECT sh, array_agg(url ORDER BY url) AS urls FROM pages GROUP BY sh HAVING count(*) > 1;
