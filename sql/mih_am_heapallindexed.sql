-- simhash_mih_check(index, heapallindexed => true): the heap side of the check, on healthy indexes
-- whose rows live in runs, the sealed and pending lists and HOT chains, after updates, deletes and
-- VACUUM. (t/006_index_corruption.pl removes a row from a damaged index: the check names it.)
CREATE TABLE hai (id int PRIMARY KEY, sh simhash, note text) WITH (autovacuum_enabled = off, fillfactor = 50);
INSERT INTO hai SELECT i, ('x' || substr(md5(i::text), 1, 16))::bit(64)::simhash, 'n'
FROM generate_series(1, 3000) i;
INSERT INTO hai VALUES (0, NULL, 'no hash');
CREATE INDEX hai_mih ON hai USING simhash_mih (sh) WITH (pending_limit = 64);
CREATE INDEX hai_compact ON hai USING simhash_mih (sh) WITH (compact = on, blocks = 4, pending_limit = 64);
-- Rows after the build: several runs and pending rows.
INSERT INTO hai SELECT i, ('x' || substr(md5(i::text), 1, 16))::bit(64)::simhash, 'n'
FROM generate_series(3001, 9000) i;
-- HOT updates (the hash and the indexed column stay; the note changes), new hashes, deletes.
UPDATE hai SET note = 'hot' WHERE id % 7 = 0;
UPDATE hai SET sh = ('x' || substr(md5('u' || id), 1, 16))::bit(64)::simhash WHERE id % 11 = 0;
DELETE FROM hai WHERE id % 13 = 0;
-- The pending rows: some (6,000 rows and the updates' new hashes went in since the build, a flush
-- every 4,656), at most what the chain holds (twice the limit, where inserts wait for a flush).
SELECT blocks, pending_rows BETWEEN 1 AND 2 * (SELECT pending_limit_rows FROM simhash_mih_state('hai_mih')) AS pending_counted
FROM simhash_mih_check('hai_mih', heapallindexed => true);
SELECT blocks FROM simhash_mih_check('hai_compact', true);
VACUUM hai;
SELECT count(*) > 1 AS several_runs FROM simhash_mih_runs('hai_mih');
SELECT blocks FROM simhash_mih_check('hai_mih', true);
SELECT simhash_mih_merge('hai_mih') > 0 AS merged;
SELECT blocks, sorted_rows = (SELECT count(*) FROM hai WHERE sh IS NOT NULL) AS all_rows_sorted
FROM simhash_mih_check('hai_mih', true);
SELECT blocks FROM simhash_mih_check('hai_compact', true);
-- Inside a transaction that changed rows it has not committed: its own snapshot sees them.
BEGIN;
INSERT INTO hai VALUES (100000, 'abcdef0123456789', 'new');
UPDATE hai SET sh = '0000000000000001' WHERE id = 1;
SELECT blocks FROM simhash_mih_check('hai_mih', true);
ROLLBACK;
-- The one-argument call of 1.2 still means heapallindexed => false.
SELECT blocks FROM simhash_mih_check('hai_mih');
DROP TABLE hai;
