-- hamming(), <->, and the hamming_distance domain's comparisons.

-- Against a reference popcount (bit_count of the xor as bit(64)) on random pairs, signed bigints too.
-- Seeded, so that a failure can be reproduced.
SELECT setseed(0.12) AS seeded \gset
CREATE TEMP TABLE pairs AS
SELECT ((random() - 0.5) * 1.8e19)::numeric::bigint AS x, ((random() - 0.5) * 1.8e19)::numeric::bigint AS y
FROM generate_series(1, 2000);
INSERT INTO pairs VALUES (0, 0), (0, -1), (-1, 9223372036854775807), (-9223372036854775808, 9223372036854775807),
                         (-9223372036854775808, 0), (1, 2);
SELECT count(*) AS pairs,
       count(*) FILTER (WHERE hamming(x, y) <> bit_count((x # y)::bit(64))) AS bigint_mismatches,
       count(*) FILTER (WHERE hamming(x::simhash, y::simhash) <> bit_count((x # y)::bit(64))) AS simhash_mismatches,
       count(*) FILTER (WHERE (x::simhash <-> y::simhash) <> hamming(x, y)) AS operator_mismatches
FROM pairs;

SELECT hamming('0'::simhash, 'ffffffffffffffff'), hamming('0'::simhash, '0'), hamming(-1::bigint, 0::bigint),
       '8000000000000000'::simhash <-> '0', hamming(NULL::simhash, '0'), hamming(1::bigint, NULL);

-- The result is the domain hamming_distance; arithmetic and aggregates behave as integer.
SELECT pg_typeof(hamming('1'::simhash, '2')), pg_typeof('1'::simhash <-> '2'),
       pg_typeof(hamming('1'::simhash, '2') + 1), pg_typeof(sum(hamming(x, y))), avg(hamming(x, y)) > 0
FROM pairs;

-- All comparison forms: (distance, integer), (integer, distance), (distance, distance), untyped literals.
SELECT d, d <= 5 AS le, d < 5 AS lt, d = 5 AS eq, d <> 5 AS ne, d >= 5 AS ge, d > 5 AS gt,
       5 >= d AS int_ge, 5 < d AS int_lt, d <= '5' AS unknown_le, d = d AS self_eq,
       d BETWEEN 0 AND 5 AS btw, NOT (d <= 5) AS negated
FROM (SELECT hamming('0'::simhash, v) AS d FROM (VALUES ('0'::simhash), ('f'), ('1f'), ('3f')) t(v)) s
ORDER BY d;
-- Operators of the domain are ours (the planner will ask us about them).
SELECT o.oprname, o.oprleft::regtype, o.oprright::regtype
FROM pg_operator o JOIN pg_depend d ON d.objid = o.oid AND d.classid = 'pg_operator'::regclass
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'simhash'
WHERE o.oprname = '<=' ORDER BY 2, 3;
-- The domain only admits 0..64.
SELECT 64::hamming_distance;
SELECT 65::hamming_distance;
