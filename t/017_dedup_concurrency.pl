# Duplicate clusters kept current under concurrent writers (simhash_dedup_*): clients insert near
# copies of a few pages with ids taken from a sequence and commit out of id order, delete pages and
# change hashes, while another client runs simhash_dedup_run over and over. Once the queue is
# applied, the clusters equal simhash_clusters' over the same rows, each with one canonical page.
# A second maintainer returns at once while one holds the table; writers never wait for it.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time);

my $node = PostgreSQL::Test::Cluster->new('dedup');
$node->init;
# the runs here are the clients' own (t/019 has the background worker's)
$node->append_conf('postgresql.conf', 'simhash.dedup_in_background = off');
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION simhash;
	CREATE TABLE pages (id bigint PRIMARY KEY, base int, sh simhash);
	CREATE INDEX ON pages USING simhash_mih (sh);
	CREATE SEQUENCE page_ids;
	-- 40 far-apart pages; their copies differ from them in at most 2 bits (so at most 4 from each
	-- other): at k = 3 a group falls apart into several clusters and joins again as copies come and go.
	CREATE FUNCTION copy_of(base int, f1 int, f2 int) RETURNS simhash LANGUAGE sql IMMUTABLE AS $$
		SELECT ('x' || substr(md5('base' || base), 1, 16))::bit(64)::simhash
		       # ((1::bigint << f1) | (1::bigint << f2))::simhash $$;
	INSERT INTO pages SELECT nextval('page_ids'), b, copy_of(b, b % 64, (b * 7) % 64) FROM generate_series(1, 40) b;
	INSERT INTO pages SELECT nextval('page_ids'), b % 40 + 1, copy_of(b % 40 + 1, b % 64, (b * 3) % 64) FROM generate_series(1, 200) b;
	SELECT simhash_dedup_start('pages', 'id', 'sh', 3);
});

# Writers: an id first, the row a few milliseconds later (so commits come out of id order), and now
# and then a delete or a hash change of another page. The maintainer runs in between.
my $write = q{
	\set base random(1, 40)
	\set f1 random(0, 63)
	\set f2 random(0, 63)
	\set op random(1, 10)
	\set victim random(1, 600)
	BEGIN;
	SELECT nextval('page_ids') AS id \gset
	SELECT pg_sleep(random() * 0.01);
	INSERT INTO pages VALUES (:id, :base, copy_of(:base, :f1, :f2));
	DELETE FROM pages WHERE :op = 1 AND id = :victim;
	UPDATE pages SET sh = copy_of(base, :f2, :f1) WHERE :op = 2 AND id = :victim;
	UPDATE pages SET sh = NULL WHERE :op = 3 AND id = :victim;
	COMMIT;
};
my $maintain = q{
	SELECT simhash_dedup_run('pages', 500);
};
$node->pgbench(
	'--no-vacuum --client=5 --jobs=3 --transactions=120 --random-seed=17',
	0,
	[qr{processed: 600/600}],
	[qr{^(?:pgbench: setting random seed to 17\n)?$}],
	'600 transactions of writers and the maintainer',
	{ 'dedup_write@4' => $write, 'dedup_maintain@1' => $maintain });

my $backlog = $node->safe_psql('postgres', q{SELECT backlog FROM simhash_dedup_status('pages')});
note "backlog after the writers: $backlog";
$node->safe_psql('postgres', q{SELECT simhash_dedup_run('pages')});
is($node->safe_psql('postgres', q{SELECT backlog || ' ' || lag FROM simhash_dedup_status('pages')}), '0 00:00:00',
	'caught up');

my $compare = q{
	WITH d AS (SELECT c.id, min(c.id) OVER (PARTITION BY c.cluster_id) AS rep FROM simhash_dedup_clusters('pages') c),
	     e AS (SELECT c.id, c.cluster_id AS rep FROM simhash_clusters('SELECT id, sh FROM pages WHERE sh IS NOT NULL', 3) c)
	SELECT (SELECT count(*) FROM e) || ' ' || count(*) FILTER (WHERE d.rep IS DISTINCT FROM e.rep)
	FROM d FULL JOIN e USING (id)};
my ($pages, $differences) = split / /, $node->safe_psql('postgres', $compare);
cmp_ok($pages, '>', 100, "pages in clusters ($pages)");
is($differences, '0', 'the clusters equal simhash_clusters over the same rows');
is($node->safe_psql('postgres', q{
	SELECT count(*) FROM (SELECT cluster_id FROM simhash_dedup_clusters('pages') GROUP BY cluster_id
	                      HAVING count(*) FILTER (WHERE canonical) <> 1 OR min(id) <> min(id) FILTER (WHERE canonical)) x}),
	'0', 'one canonical page per cluster, the smallest id');

# One maintainer at a time: while a session holds the table (in a transaction that ran it), another
# returns 0 at once, and writers go on.
$node->safe_psql('postgres', q{INSERT INTO pages SELECT nextval('page_ids'), 1, copy_of(1, 5, 6) FROM generate_series(1, 3)});
my $bg = $node->background_psql('postgres');
$bg->query_safe('BEGIN');
is($bg->query_safe(q{SELECT simhash_dedup_run('pages')}), '3', 'the first maintainer applies the changes');
$node->safe_psql('postgres', q{INSERT INTO pages SELECT nextval('page_ids'), 2, copy_of(2, 5, 6) FROM generate_series(1, 2)});
my $t0 = time();
is($node->safe_psql('postgres', q{SELECT simhash_dedup_run('pages')}), '0', 'a second maintainer returns 0');
cmp_ok(time() - $t0, '<', 5, 'without waiting for the first');
$node->safe_psql('postgres', q{
	UPDATE pages SET sh = sh # '0000000000000001' WHERE id = (SELECT max(id) FROM pages);
	DELETE FROM pages WHERE id = (SELECT max(id) FROM pages WHERE base = 1)}, timeout => 10);
pass('writers do not wait for the maintainer');
$bg->query_safe('COMMIT');
$bg->quit;
# two inserts, a hash change and a delete
is($node->safe_psql('postgres', q{SELECT simhash_dedup_run('pages')}), '4', 'their changes are applied afterwards');
($pages, $differences) = split / /, $node->safe_psql('postgres', $compare);
is($differences, '0', 'and the clusters equal simhash_clusters again');

$node->stop;
done_testing();
