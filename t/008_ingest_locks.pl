# The crawler's insert-and-check pattern under concurrency: clients insert near copies of a few
# pages at once, each learning the nearest stored near-duplicate of its page in the same statement.
# With simhash_lock_neighbourhood taken first, in its own statement, the check is exact: the first
# page of each group of near copies finds none, and every later one finds an earlier page.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('ingest');
$node->init;
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION simhash;
	CREATE TABLE pages (id bigserial PRIMARY KEY, base int, sh simhash NOT NULL);
	CREATE INDEX ON pages USING simhash_mih (sh);
	CREATE TABLE checked (id bigint PRIMARY KEY, duplicate_of bigint, distance int);
	-- 25 far-apart pages; their copies differ from them in at most 2 bits (so at most 4 from each other).
	CREATE FUNCTION copy_of(base int, f1 int, f2 int) RETURNS simhash LANGUAGE sql IMMUTABLE AS $$
		SELECT ('x' || substr(md5('base' || base), 1, 16))::bit(64)::simhash
		       # ((1::bigint << f1) | (1::bigint << f2))::simhash $$;
});

# Each transaction: lock the page's neighbourhood, then insert it and record its nearest earlier
# near-duplicate (the inserted row is not visible to the statement's own query).
my $insert = q{
	\set base random(1, 25)
	\set f1 random(0, 63)
	\set f2 random(0, 63)
	BEGIN;
	SELECT simhash_lock_neighbourhood(copy_of(:base, :f1, :f2), 5);
	WITH page AS (INSERT INTO pages (base, sh) VALUES (:base, copy_of(:base, :f1, :f2)) RETURNING id, sh)
	INSERT INTO checked
	SELECT page.id, near.id, near.distance FROM page LEFT JOIN LATERAL (
		SELECT p.id, hamming(p.sh, page.sh) AS distance FROM pages p
		WHERE hamming(p.sh, page.sh) <= 5 ORDER BY p.sh <-> page.sh, p.id LIMIT 1) near ON true;
	COMMIT;
};
$node->pgbench(
	'--no-vacuum --client=6 --jobs=3 --transactions=100 --random-seed=11',
	0,
	[qr{processed: 600/600}],
	[qr{^(?:pgbench: setting random seed to 11\n)?$}],
	'600 checked inserts from 6 clients',
	{ 'insert_checked' => $insert });

is($node->safe_psql('postgres', 'SELECT count(*) FROM checked'), '600', 'every insert was checked');
is($node->safe_psql('postgres', 'SELECT count(*) FROM checked WHERE duplicate_of IS NULL'),
	$node->safe_psql('postgres', 'SELECT count(DISTINCT base) FROM pages'),
	'exactly one page of each group found no near-duplicate');
is($node->safe_psql('postgres', q{
	SELECT count(*) FROM pages p JOIN checked c USING (id)
	WHERE c.duplicate_of IS NULL AND EXISTS (
		SELECT 1 FROM pages q WHERE q.id < p.id AND hamming(q.sh, p.sh) <= 5)}),
	'0', 'no page missed an earlier near-duplicate');
is($node->safe_psql('postgres', q{
	SELECT count(*) FROM checked c JOIN pages d ON d.id = c.duplicate_of JOIN pages p ON p.id = c.id
	WHERE d.id >= p.id OR hamming(d.sh, p.sh) <> c.distance OR c.distance > 5
	   OR EXISTS (SELECT 1 FROM pages q WHERE q.id < p.id AND hamming(q.sh, p.sh) < c.distance)}),
	'0', 'each found near-duplicate is an earlier page at the nearest distance');
is($node->safe_psql('postgres', q{
	SET enable_seqscan = off; SET enable_bitmapscan = off;
	SELECT count(*) FROM pages p, pages q WHERE hamming(p.sh, q.sh) <= 5}),
	$node->safe_psql('postgres', q{
	SET enable_indexscan = off; SET enable_bitmapscan = off;
	SELECT count(*) FROM pages p, pages q WHERE hamming(p.sh, q.sh) <= 5}),
	'afterwards the index answers as a sequential scan');

# The locks: one per band key (k + 1), none of the session's left after the transaction (the
# index's merge worker, which the inserts above started, holds one of its own), and no deadlock
# between two sessions locking overlapping neighbourhoods in different orders of arrival.
is($node->safe_psql('postgres', q{
	BEGIN;
	SELECT simhash_lock_neighbourhood('0123456789abcdef', 5) || ' '
	       || (SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid());
	COMMIT;
	SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()}), "6 6\n0",
	'k + 1 advisory locks, released at commit');

$node->stop;
done_testing();
