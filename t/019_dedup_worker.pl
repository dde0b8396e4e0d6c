# Duplicate clusters kept current with no shared_preload_libraries and no scheduler: the writers'
# commits wake the database's background worker (the simhash_mih merge worker's process and slots),
# which applies the queued changes one batch a transaction until none are left, then exits.
#   - writers insert, delete and change hashes; nobody calls simhash_dedup_run; the backlog drains
#     and the clusters equal simhash_clusters' over the same rows;
#   - one commit of one row is applied within seconds (the lag is noted, not asserted);
#   - at most simhash.max_merge_workers_per_database workers, while merges and the clusters share it;
#   - the keep expression runs as the table's owner, never as the worker's superuser;
#   - a table whose run fails is logged and left for later; the database's other tables go on;
#   - simhash.dedup_in_background = off (ALTER DATABASE) leaves the queue to simhash_dedup_run;
#   - pg_cron (when installed) calling simhash_dedup_run keeps them current instead.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time usleep);

my $node = PostgreSQL::Test::Cluster->new('dedup_worker');
$node->init;
# no settling of the index: the worker stays only for the clusters (and merges due)
$node->append_conf('postgresql.conf', "simhash.settle_delay = -1");
$node->start;

my $compare = q{
	WITH d AS (SELECT c.id, min(c.id) OVER (PARTITION BY c.cluster_id) AS rep FROM simhash_dedup_clusters('%1$s') c),
	     e AS (SELECT c.id, c.cluster_id AS rep FROM simhash_clusters('SELECT id, sh FROM %1$s WHERE sh IS NOT NULL', 3) c)
	SELECT (SELECT count(*) FROM e) || ' ' || count(*) FILTER (WHERE d.rep IS DISTINCT FROM e.rep)
	FROM d FULL JOIN e USING (id)};

# Waits until the table's backlog is 0 (at most $timeout seconds); the seconds it took, or undef.
sub drained
{
	my ($node, $db, $tbl, $timeout) = @_;
	my $t0 = time();
	while (time() - $t0 < $timeout)
	{
		return time() - $t0
		  if $node->safe_psql($db, qq{SELECT backlog FROM simhash_dedup_status('$tbl')}) eq '0';
		usleep(50_000);
	}
	return undef;
}

sub workers
{
	my ($node, $db) = @_;
	return $node->safe_psql($db,
		qq{SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'simhash_mih merge' AND datname = '$db'});
}

$node->safe_psql('postgres', q{
	CREATE EXTENSION simhash;
	CREATE ROLE crawler LOGIN;
	GRANT CREATE ON SCHEMA public TO crawler;
});
$node->safe_psql('postgres', q{
	SET ROLE crawler;
	CREATE TABLE pages (id bigint PRIMARY KEY, base int, sh simhash);
	CREATE INDEX ON pages USING simhash_mih (sh) WITH (pending_limit = 64);
	CREATE SEQUENCE page_ids;
	CREATE FUNCTION copy_of(base int, f1 int, f2 int) RETURNS simhash LANGUAGE sql IMMUTABLE AS $$
		SELECT ('x' || substr(md5('base' || base), 1, 16))::bit(64)::simhash
		       # ((1::bigint << f1) | (1::bigint << f2))::simhash $$;
	-- who evaluates keep: the table's owner, whoever runs the maintenance
	CREATE TABLE keep_callers (who name PRIMARY KEY);
	CREATE FUNCTION keep_rank(page bigint) RETURNS bigint LANGUAGE plpgsql AS $$
	BEGIN
		INSERT INTO public.keep_callers VALUES (current_user) ON CONFLICT DO NOTHING;
		RETURN page;
	END $$;
	INSERT INTO pages SELECT nextval('page_ids'), b, copy_of(b, b % 64, (b * 7) % 64) FROM generate_series(1, 40) b;
	SELECT simhash_dedup_start('pages', 'id', 'sh', 3, keep => 'public.keep_rank(id)');
});

my $write = q{
	\set base random(1, 40)
	\set f1 random(0, 63)
	\set f2 random(0, 63)
	\set op random(1, 10)
	\set victim random(1, 2000)
	BEGIN;
	INSERT INTO pages VALUES (nextval('page_ids'), :base, copy_of(:base, :f1, :f2));
	DELETE FROM pages WHERE :op = 1 AND id = :victim;
	UPDATE pages SET sh = copy_of(base, :f2, :f1) WHERE :op = 2 AND id = :victim;
	COMMIT;
};
$node->pgbench(
	'--no-vacuum --client=4 --jobs=2 --transactions=500 --random-seed=5 --username=crawler',
	0,
	[qr{processed: 2000/2000}],
	[qr{^(?:pgbench: setting random seed to 5\n)?$}],
	'2,000 transactions of 4 writers, nobody calling simhash_dedup_run',
	{ 'dedup_write' => $write });
my $seconds = drained($node, 'postgres', 'pages', 120);
ok(defined $seconds, 'the background worker applies the backlog');
note sprintf('drained %.1f s after the writers finished', $seconds // -1);
my ($pages, $differences) = split / /, $node->safe_psql('postgres', sprintf($compare, 'pages'));
cmp_ok($pages, '>', 500, "pages in clusters ($pages)");
is($differences, '0', 'the clusters equal simhash_clusters over the same rows');
is($node->safe_psql('postgres', q{
	SELECT count(*) FROM (SELECT cluster_id FROM simhash_dedup_clusters('pages') GROUP BY cluster_id
	                      HAVING count(*) FILTER (WHERE canonical) <> 1 OR min(id) <> min(id) FILTER (WHERE canonical)) x}),
	'0', 'one canonical page per cluster, the first by keep');
is($node->safe_psql('postgres', q{SELECT string_agg(who, ',' ORDER BY who) FROM keep_callers}), 'crawler',
	'keep ran as the table owner only');
unlike(slurp_file($node->logfile), qr/background run of table \d+ failed/, 'no run failed');

# One row, one commit: applied in seconds, by a worker woken by the commit.
my $t0 = time();
$node->safe_psql('postgres', q{INSERT INTO pages VALUES (nextval('page_ids'), 7, copy_of(7, 1, 2))}, extra_params => ['-U', 'crawler']);
$seconds = drained($node, 'postgres', 'pages', 60);
ok(defined $seconds, 'a single committed insert is applied');
note sprintf('one insert applied %.2f s after its commit', $seconds // -1);
($pages, $differences) = split / /, $node->safe_psql('postgres', sprintf($compare, 'pages'));
is($differences, '0', 'and the clusters are exact');

# Once nothing is left the worker exits (after a few seconds' stay).
my $gone = 0;
for (1 .. 200)
{
	if (workers($node, 'postgres') eq '0') { $gone = 1; last; }
	usleep(100_000);
}
ok($gone, 'the worker exits once the queue is empty');

# A table whose keep fails for one page: the worker logs it and goes on with the others.
$node->safe_psql('postgres', q{
	CREATE TABLE fragile (id bigint PRIMARY KEY, sh simhash);
	CREATE INDEX ON fragile USING simhash_mih (sh);
	SELECT simhash_dedup_start('fragile', 'id', 'sh', 3, keep => '1 / (id - 13)');
	INSERT INTO fragile VALUES (13, '00000000000000ff'), (14, '00000000000000fe');
	INSERT INTO pages SELECT nextval('page_ids'), 9, copy_of(9, b, b + 1) FROM generate_series(1, 30) b;
});
ok(defined drained($node, 'postgres', 'pages', 60), 'the other table is applied');
ok($node->poll_query_until('postgres',
		q{SELECT count(*) > 0 FROM pg_stat_activity WHERE backend_type = 'simhash_mih merge'}),
	'the worker stays while a table fails');
my $failed = 0;
for (1 .. 300)
{
	if (slurp_file($node->logfile) =~ /simhash_dedup: the background run of table \d+ failed, tried again in 30 s: division by zero/)
	{
		$failed = 1;
		last;
	}
	usleep(100_000);
}
ok($failed, 'the failing run is logged with its error');
cmp_ok($node->safe_psql('postgres', q{SELECT backlog FROM simhash_dedup_status('fragile')}), '>', 0,
	'its changes stay queued');
$node->safe_psql('postgres', q{SELECT simhash_dedup_stop('fragile'); DROP TABLE fragile});
ok($node->poll_query_until('postgres',
		q{SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type = 'simhash_mih merge'}),
	'stopped, the worker exits');

# Off for the database: changes wait for simhash_dedup_run.
$node->safe_psql('postgres', q{ALTER DATABASE postgres SET simhash.dedup_in_background = off});
$node->safe_psql('postgres', q{INSERT INTO pages SELECT nextval('page_ids'), 11, copy_of(11, b, 63 - b) FROM generate_series(1, 20) b});
sleep(3);
is($node->safe_psql('postgres', q{SELECT backlog FROM simhash_dedup_status('pages')}), '20',
	'with simhash.dedup_in_background = off the changes wait');
is(workers($node, 'postgres'), '0', 'and no worker came for them');
is($node->safe_psql('postgres', q{SELECT simhash_dedup_run()}), '20', 'simhash_dedup_run applies them');
$node->safe_psql('postgres', q{ALTER DATABASE postgres RESET simhash.dedup_in_background});

# The merges and the clusters share the database's worker slots: with many flushes due and pages
# arriving, never more than simhash.max_merge_workers_per_database (1) workers.
my $max_seen = 0;
my $writers = $node->background_psql('postgres');
$writers->query_until(qr/started/, q{
	\echo started
	DO $$ BEGIN FOR i IN 1 .. 150 LOOP
		INSERT INTO pages SELECT nextval('page_ids'), (i * 7) % 40 + 1, copy_of((i * 7) % 40 + 1, b, (b * 5) % 64)
		FROM generate_series(1, 100) b;
		COMMIT;
	END LOOP; END $$;
	\echo done
});
for (1 .. 100)
{
	my $n = workers($node, 'postgres');
	$max_seen = $n if $n > $max_seen;
	usleep(50_000);
}
$writers->query_until(qr/done/, '');
$writers->quit;
cmp_ok($max_seen, '==', 1, 'one worker served merges and clusters together');
ok(defined drained($node, 'postgres', 'pages', 120), 'and applied the backlog');
($pages, $differences) = split / /, $node->safe_psql('postgres', sprintf($compare, 'pages'));
is($differences, '0', 'the clusters equal simhash_clusters after 15,000 more pages');
$node->stop;

# The scheduler instead of the worker: pg_cron calls simhash_dedup_run every minute.
SKIP:
{
	my $libdir = $node->config_data('--pkglibdir');
	skip 'pg_cron is not installed', 3 unless -e "$libdir/pg_cron.so";
	my $cron = PostgreSQL::Test::Cluster->new('dedup_cron');
	$cron->init;
	$cron->append_conf('postgresql.conf', q{
shared_preload_libraries = 'pg_cron'
cron.database_name = 'postgres'
cron.use_background_workers = on
max_worker_processes = 16
simhash.dedup_in_background = off
});
	$cron->start;
	$cron->safe_psql('postgres', q{
		CREATE EXTENSION simhash;
		CREATE EXTENSION pg_cron;
		CREATE TABLE pages (id bigint PRIMARY KEY, sh simhash);
		CREATE INDEX ON pages USING simhash_mih (sh);
		SELECT simhash_dedup_start('pages', 'id', 'sh', 3);
		INSERT INTO pages SELECT b * 10 + m, (('x' || substr(md5('p' || b), 1, 16))::bit(64)::bigint # (m::bigint << 3))::simhash
		FROM generate_series(1, 100) b, generate_series(0, 3) m;
		SELECT cron.schedule('simhash_dedup', '* * * * *', 'SELECT simhash_dedup_run()');
	});
	is($cron->safe_psql('postgres', q{SELECT backlog FROM simhash_dedup_status('pages')}), '400',
		'pg_cron: the inserts are queued');
	ok(defined drained($cron, 'postgres', 'pages', 150), 'pg_cron\'s job applied them');
	($pages, $differences) = split / /, $cron->safe_psql('postgres', sprintf($compare, 'pages'));
	is("$pages $differences", '400 0', 'the clusters equal simhash_clusters');
	$cron->stop;
}

done_testing();
