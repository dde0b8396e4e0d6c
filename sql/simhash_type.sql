-- The simhash type: text and binary forms, casts, edge values, and every malformed input.
\i sql/include/try.sql

-- Output is always 16 lowercase hex digits; input is 1..16 digits, 0x prefix, any case, padding.
SELECT v, v::simhash
FROM (VALUES ('0'), ('1'), ('0x1F'), ('0XaBcD'), ('  ff  '), (E'\t7fffffffffffffff\n'),
             ('8000000000000000'), ('FFFFFFFFFFFFFFFF'), ('00000000000000000000dead')) t(v);

-- Text round trip on edge values and random values.
SELECT h, h::text::simhash = h AS round_trips
FROM (VALUES ('0'::simhash), ('1'), ('7fffffffffffffff'), ('8000000000000000'), ('ffffffffffffffff')) t(h);
-- Seeded, so that a failure can be reproduced.
SELECT setseed(0.15) AS seeded \gset
SELECT count(*) AS random_round_trip_failures
FROM (SELECT simhash(((random() - 0.5) * 1.8e19)::numeric::bigint) AS h FROM generate_series(1, 1000)) r
WHERE h::text::simhash <> h OR length(h::text) <> 16 OR h::text <> lower(h::text);

-- Every malformed text form is 22P02 and quotes the input.
SELECT v, pg_temp.try(format('SELECT %L::simhash', v))
FROM (VALUES (''), ('   '), ('0x'), ('10000000000000000'), ('0x1ffffffffffffffff'), ('xyz'),
             ('-1'), ('+1'), ('12 34'), ('0x0x1'), ('12g'), ('ff ff'), ('0 x1')) t(v);
-- The full report: message, detail and hint.
\set VERBOSITY default
SELECT 'abcdefg'::simhash;
SELECT '10000000000000000'::simhash;
SELECT ''::simhash;
SELECT '0x'::simhash;

-- bigint: the same 64 bits, two's complement; assignment casts both ways.
SELECT b, b::simhash AS h, b::simhash::bigint = b AS round_trips
FROM (VALUES (0::bigint), (1), (-1), (9223372036854775807), (-9223372036854775808), (42)) t(b);
CREATE TEMP TABLE legacy (id int, sh_bigint bigint, sh simhash);
INSERT INTO legacy VALUES (1, -2::bigint, -2::bigint);  -- bigint assigned to a simhash column
UPDATE legacy SET sh_bigint = sh;               -- simhash assigned to a bigint column
SELECT * FROM legacy;
-- ... but no implicit cast: comparing a simhash with a number is an error, not a reinterpretation.
SELECT pg_temp.try($$SELECT 'ff'::simhash = 255$$);

-- bit(64): most significant bit first, like int8::bit(64); other lengths are 22026.
SELECT h, h::bit(64), h::bit(64)::simhash = h AS round_trips, h::bit(64) = h::bigint::bit(64) AS same_as_int8
FROM (VALUES ('0'::simhash), ('1'), ('7fffffffffffffff'), ('8000000000000000'), ('ffffffffffffffff')) t(h);
SELECT pg_temp.try($$SELECT B'101'::simhash$$);
SELECT pg_temp.try($$SELECT (repeat('1', 65))::bit(65)::simhash$$);
SELECT pg_temp.try($$SELECT B''::simhash$$);
SELECT B'101'::simhash;

-- bytea: 8 bytes, most significant first; other lengths are 22026.
SELECT h, h::bytea, h::bytea::simhash = h AS round_trips
FROM (VALUES ('0'::simhash), ('1'), ('7fffffffffffffff'), ('8000000000000000'), ('ffffffffffffffff')) t(h);
SELECT '\x0102030405060708'::bytea::simhash;
SELECT pg_temp.try($$SELECT '\x010203'::bytea::simhash$$);
SELECT pg_temp.try($$SELECT '\x010203040506070809'::bytea::simhash$$);
SELECT '\x'::bytea::simhash;

-- Binary send/recv: 8 bytes in network order, the same bytes as int8's.
SELECT h, simhash_send(h) AS wire, simhash_send(h) = int8send(h::bigint) AS same_as_int8
FROM (VALUES ('0'::simhash), ('1'), ('8000000000000000'), ('ffffffffffffffff')) t(h);

-- COPY in binary format goes through send/recv.
CREATE TEMP TABLE copy_src AS
SELECT i, h FROM (VALUES (1, '0'::simhash), (2, '1'), (3, '7fffffffffffffff'), (4, '8000000000000000'),
                         (5, 'ffffffffffffffff'), (6, NULL)) t(i, h);
CREATE TEMP TABLE copy_dst (LIKE copy_src);
DO $$
DECLARE f text := '/tmp/simhash_regress_' || pg_backend_pid() || '.bin';
BEGIN
    EXECUTE format('COPY copy_src TO PROGRAM %L (FORMAT binary)', 'cat > ' || f);
    EXECUTE format('COPY copy_dst FROM PROGRAM %L (FORMAT binary)', 'cat ' || f || ' && rm ' || f);
END $$;
SELECT s.i, s.h, d.h IS NOT DISTINCT FROM s.h AS same FROM copy_src s JOIN copy_dst d USING (i) ORDER BY i;
-- A binary field of the wrong length (3 bytes) is rejected, not misread.
CREATE TEMP TABLE copy_bad (h simhash);
COPY copy_bad FROM PROGRAM $$printf 'PGCOPY\n\377\r\n\0\0\0\0\0\0\0\0\0\0\1\0\0\0\3abc\377\377'$$ (FORMAT binary);

-- NULL in, NULL out, for every conversion.
SELECT NULL::simhash AS a, simhash(NULL::bigint) AS b, simhash(NULL::bit) AS c, simhash(NULL::bytea) AS d,
       simhash_to_bigint(NULL) AS e, NULL::simhash::text AS f;

-- Storage: 8 bytes, passed by value.
SELECT typlen, typbyval, typalign FROM pg_type WHERE typname = 'simhash';
