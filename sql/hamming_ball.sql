-- hamming_ball, <@ / @> and hamming_within: the explicit radius-query forms.
\i sql/include/try.sql

SELECT '(ff, 5)'::hamming_ball, ' ( 0x1F ,  5 ) '::hamming_ball, hamming_ball('ff', 3),
       center(hamming_ball('ff', 3)), radius(hamming_ball('ff', 3));
-- The radius is clamped to -1..64: negative contains nothing, 64 and more contain everything.
SELECT hamming_ball('0', -7) AS negative, hamming_ball('0', 100) AS huge, '(0,-2147483648)'::hamming_ball AS int_min,
       '(0,99999999999)'::hamming_ball AS beyond_int;

-- <@, @> and hamming_within agree with hamming() <= k for every radius, on random pairs.
CREATE TEMP TABLE pairs AS
SELECT ('x' || substr(md5(i::text), 1, 16))::bit(64)::simhash AS a,
       ('x' || substr(md5(i::text), 1, 16))::bit(64)::simhash # ('x' || substr(md5((i * 7)::text), 1, 16))::bit(64)::simhash
         & ('x' || substr(md5((i * 13)::text), 1, 16))::bit(64)::simhash
         & ('x' || substr(md5((i * 17)::text), 1, 16))::bit(64)::simhash AS b
FROM generate_series(1, 2000) i;
SELECT count(*) AS checks,
       count(*) FILTER (WHERE (a <@ hamming_ball(b, k)) <> (hamming(a, b) <= k)) AS in_ball_mismatches,
       count(*) FILTER (WHERE (hamming_ball(b, k) @> a) <> (hamming(a, b) <= k)) AS contains_mismatches,
       count(*) FILTER (WHERE hamming_within(a, b, k) <> (hamming(a, b) <= k)) AS within_mismatches,
       count(DISTINCT hamming(a, b)) > 10 AS varied_distances
FROM pairs, generate_series(-2, 66) k;

-- Text round trip; binary form is center int8 then radius int4.
SELECT b::text::hamming_ball::text = b::text AS round_trips, hamming_ball_send(b)
FROM (VALUES ('(8000000000000000,5)'::hamming_ball), ('(0,-1)'), ('(ffffffffffffffff,64)')) t(b);

-- Malformed input is 22P02 with what was wrong.
SELECT v, pg_temp.try(format('SELECT %L::hamming_ball', v))
FROM (VALUES (''), ('ff,5'), ('(ff 5)'), ('(zz,5)'), ('(ff,)'), ('(ff,5'), ('(ff,5) x'), ('(ff,5.5)'),
             ('(ff,99999999999999999999)'), ('(,5)')) t(v);
\set VERBOSITY default
SELECT '(ff,x)'::hamming_ball;
SELECT hamming_within(NULL, '0', 1), hamming_ball(NULL, 1), hamming_ball('0', NULL);
