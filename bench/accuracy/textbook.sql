-- The baseline of issue 4, a textbook simhash on the ground truth's own features: tokens = \w+ of
-- the lower-cased text; features = the distinct 3-shingles, each written as its three tokens
-- joined by single spaces; feature hash = the first 8 bytes of the shingle's MD5 read as a
-- big-endian 64-bit integer; unweighted Charikar (simhash(bigint[]), weight 1 per feature).
-- With a non-empty salt, the MD5 is of salt || ':' || shingle: another draw of the same random hash family,
-- which shows how much the figures at one k owe to the particular hash function.
CREATE OR REPLACE FUNCTION acc_textbook_simhash(page text, salt text DEFAULT '') RETURNS simhash
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT simhash(coalesce(array_agg(DISTINCT ('x' || left(md5(CASE WHEN salt = '' THEN shingle ELSE salt || ':' || shingle END), 16))::bit(64)::bigint), '{}'))
    FROM (SELECT m[1] || ' ' || lead(m[1], 1) OVER w || ' ' || lead(m[1], 2) OVER w AS shingle
          FROM regexp_matches(lower(page), '\w+', 'g') WITH ORDINALITY AS t(m, n)
          WINDOW w AS (ORDER BY n)) s
    WHERE shingle IS NOT NULL
$$;
