-- The baseline of issue 4, a textbook simhash on the ground truth's own features: tokens = \w+ of
-- the lower-cased text; features = the distinct 3-shingles, each written as its three tokens
-- joined by single spaces; feature hash = the first 8 bytes of the shingle's MD5 read as a
-- big-endian 64-bit integer; unweighted Charikar (simhash(bigint[]), weight 1 per feature).
CREATE OR REPLACE FUNCTION acc_textbook_simhash(page text) RETURNS simhash
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT simhash(coalesce(array_agg(DISTINCT ('x' || left(md5(w[i] || ' ' || w[i + 1] || ' ' || w[i + 2]), 16))::bit(64)::bigint),
                            '{}'))
    FROM (SELECT array(SELECT m[1] FROM regexp_matches(lower(page), '\w+', 'g') m) AS w) t,
         generate_series(1, cardinality(w) - 2) i
$$;
