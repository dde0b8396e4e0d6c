-- Every documented spelling of a radius or nearest-neighbour query uses the index, in a fresh
-- session with nothing preloaded (pg_regress runs each file in a new connection).
CREATE TABLE pf (id int PRIMARY KEY, grp int, sh simhash);
INSERT INTO pf SELECT i, i % 10, ('x' || substr(md5(i::text), 1, 16))::bit(64)::simhash FROM generate_series(1, 20000) i;
CREATE INDEX pf_sh ON pf USING gist (sh);
ANALYZE pf;

EXPLAIN (COSTS OFF) SELECT id FROM pf WHERE hamming(sh, '0123456789abcdef') <= 5;
EXPLAIN (COSTS OFF) SELECT id FROM pf WHERE hamming(sh, '0123456789abcdef') < 6;
EXPLAIN (COSTS OFF) SELECT id FROM pf WHERE hamming('0123456789abcdef', sh) <= 5;
EXPLAIN (COSTS OFF) SELECT id FROM pf WHERE 5 >= hamming(sh, '0123456789abcdef');
EXPLAIN (COSTS OFF) SELECT id FROM pf WHERE 6 > hamming(sh, '0123456789abcdef');
EXPLAIN (COSTS OFF) SELECT id FROM pf WHERE hamming(sh, '0123456789abcdef') BETWEEN 0 AND 5;
-- Not an index spelling since 1.1: sh <-> q is a plain integer (what clients should see), so this
-- is PostgreSQL's own integer <=, a filter evaluated row by row (README, Querying).
EXPLAIN (COSTS OFF) SELECT id FROM pf WHERE sh <-> '0123456789abcdef' <= 5;
EXPLAIN (COSTS OFF) SELECT id FROM pf WHERE hamming(sh, '0123456789abcdef') <= '5';
EXPLAIN (COSTS OFF) SELECT id FROM pf WHERE hamming_within(sh, '0123456789abcdef', 5);
EXPLAIN (COSTS OFF) SELECT id FROM pf WHERE sh <@ hamming_ball('0123456789abcdef', 5);
EXPLAIN (COSTS OFF) SELECT id FROM pf WHERE hamming_ball('0123456789abcdef', 5) @> sh;
-- A bound of -2147483648 with < cannot overflow: it folds to "contains nothing".
EXPLAIN (COSTS OFF) SELECT id FROM pf WHERE hamming(sh, '0123456789abcdef') < -2147483648;
SELECT count(*) FROM pf WHERE hamming(sh, '0123456789abcdef') < -2147483648;

-- The crawl's self-join: a nested loop whose inner side is an index scan parameterized by a.sh.
EXPLAIN (COSTS OFF) SELECT a.id, b.id FROM pf a JOIN pf b ON hamming(a.sh, b.sh) <= 5 AND a.id < b.id;

-- Nearest neighbours, with and without a filter on another column.
EXPLAIN (COSTS OFF) SELECT id FROM pf ORDER BY sh <-> '0123456789abcdef' LIMIT 10;
EXPLAIN (COSTS OFF) SELECT id FROM pf WHERE grp = 3 ORDER BY sh <-> '0123456789abcdef' LIMIT 10;

-- Parameters: custom and generic plans.
PREPARE near(simhash, int) AS SELECT count(*) FROM pf WHERE hamming(sh, $1) <= $2;
PREPARE knn(simhash) AS SELECT id FROM pf ORDER BY sh <-> $1 LIMIT 3;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE near('0123456789abcdef', 5);
EXPLAIN (COSTS OFF) EXECUTE knn('0123456789abcdef');
EXECUTE near('0123456789abcdef', 64);
SET plan_cache_mode = force_custom_plan;
EXPLAIN (COSTS OFF) EXECUTE near('0123456789abcdef', 5);
RESET plan_cache_mode;

-- Spellings that are not rewritten (documented): other comparisons, and a bigint bound, which
-- resolves to integer comparison operators.
EXPLAIN (COSTS OFF) SELECT id FROM pf WHERE hamming(sh, '0123456789abcdef') >= 60;
EXPLAIN (COSTS OFF) SELECT id FROM pf WHERE hamming(sh, '0123456789abcdef') <= 5::bigint;

-- A query returning most of the table does not use the index.
EXPLAIN (COSTS OFF) SELECT count(*) FROM pf WHERE hamming(sh, '0123456789abcdef') <= 40;

-- Partial-index predicates and CHECK constraints (simplified without a planner) work too.
CREATE INDEX pf_near_zero ON pf (id) WHERE hamming(sh, '0') <= 20;
ALTER TABLE pf ADD CONSTRAINT not_all_ones CHECK (hamming(sh, 'ffffffffffffffff') >= 1);
DROP TABLE pf;
