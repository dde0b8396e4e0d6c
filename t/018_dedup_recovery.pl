# Duplicate clusters kept current (simhash_dedup_*) survive what a server goes through:
# (1) a crash in the middle of simhash_dedup_run, twice (the primary stopped immediately, then the
#     run's backend killed), with writers committing meanwhile and a streaming standby: after
#     recovery the unfinished run left nothing behind (the queue and the clusters as before it),
#     runs until the backlog is 0 give exactly simhash_clusters' partition over the same rows with
#     one canonical page per cluster, and the standby holds the same clusters; there
#     simhash_dedup_status, simhash_dedup_clusters and the relation simhash_dedup_members read as on
#     the primary (also for a read-only role), while simhash_dedup_run fails as any write does on a
#     standby (25006);
# (2) DROP DATABASE by its owner (no superuser) right after writes, with a backlog and the merge
#     worker connected: it succeeds within 10 s and nothing crashes;
# (3) ALTER EXTENSION UPDATE: a database created at 1.3 (by its owner, no superuser) updated to 1.4,
#     the clusters kept, changes queued, then updated to the default version, the queue applied;
# (4) DROP TABLE (and DROP SCHEMA ... CASCADE) of registered tables with changes queued, also with
#     the event trigger not firing (session_replication_role = replica): simhash_dedup_run() for
#     every table works and no row of the dropped tables is left; a DROP TABLE while a run works
#     on the table waits for it and then forgets the table (it used to deadlock with the run: the
#     event trigger lost, warned and left the state behind), and a run while a DROP TABLE is not
#     committed skips the table at once.
# Runs once, on the host: the state is ordinary heap and btree tables written by PL/pgSQL in one
# transaction a run, whose crash recovery, WAL replay and read-only standby rules are the server's
# own; what of this is the extension's and depends on the major is tested on every major elsewhere
# (the simhash_mih probe's WAL replay: t/002, t/003; the merge worker leaving a database that
# DROP DATABASE needs: t/016; the update scripts: test/scripts/upgrade.sh; the functions:
# sql/dedup.sql through pg_regress on every major's package).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use Time::HiRes qw(time usleep);

my $primary = PostgreSQL::Test::Cluster->new('dedup_primary');
$primary->init(allows_streaming => 1);
# The merge worker stays a minute after writes (as in t/016): it is in the database DROP DATABASE
# drops. A killed backend restarts the server as in production (the test framework turns that off).
# The runs here are the test's own (the background worker's are in t/019), but in (2).
$primary->append_conf('postgresql.conf',
	"simhash.settle_delay = 60\nrestart_after_crash = on\nsimhash.dedup_in_background = off\n");
$primary->start;
$primary->safe_psql('postgres', q{
	CREATE EXTENSION simhash;
	CREATE ROLE crawler LOGIN CREATEDB;
	CREATE ROLE reader LOGIN;
	SELECT pg_create_physical_replication_slot('standby', true);
	-- 2,000 far-apart pages; a copy differs from its page in at most 2 bits (so at most 4 from
	-- another copy): at k = 3 a group splits and joins again as copies come and go.
	CREATE FUNCTION copy_of(base int, f1 int, f2 int) RETURNS simhash LANGUAGE sql IMMUTABLE AS $$
		SELECT ('x' || substr(md5('base' || base), 1, 16))::bit(64)::simhash
		       # ((1::bigint << f1) | (1::bigint << f2))::simhash $$;
	CREATE TABLE pages (id bigint PRIMARY KEY, base int NOT NULL, sh simhash);
	CREATE INDEX ON pages USING simhash_mih (sh);
	CREATE SEQUENCE page_ids;
	INSERT INTO pages SELECT nextval('page_ids'), b, copy_of(b, b % 64, (b * 7) % 64) FROM generate_series(1, 2000) b;
	INSERT INTO pages SELECT nextval('page_ids'), b % 2000 + 1, copy_of(b % 2000 + 1, b % 64, (b * 3) % 64)
	FROM generate_series(1, 4000) b;
	ANALYZE pages;
	GRANT SELECT ON pages TO reader;
	SELECT simhash_dedup_start('pages', 'id', 'sh', 3);
});
$primary->backup('base');
my $standby = PostgreSQL::Test::Cluster->new('dedup_standby');
$standby->init_from_backup($primary, 'base', has_streaming => 1);
$standby->append_conf('postgresql.conf', "primary_slot_name = 'standby'\n");
$standby->start;

# A writer's transaction: 100 pages (copies of 100 pages, every tenth an exact copy), a few deletes,
# hash changes and a hash set to NULL, here and there in the table.
my $write = q{
	\set base random(1, 2000)
	\set f1 random(0, 63)
	\set f2 random(0, 63)
	\set victim random(1, 40000)
	BEGIN;
	INSERT INTO pages SELECT nextval('page_ids'), x.b,
	       CASE WHEN i % 10 = 0 THEN copy_of(x.b, 0, 0) ELSE copy_of(x.b, (:f1 + i) % 64, (:f2 + 7 * i) % 64) END
	FROM generate_series(1, 100) i, LATERAL (SELECT (:base + 13 * i) % 2000 + 1 AS b) x;
	DELETE FROM pages WHERE id BETWEEN :victim AND :victim + 3;
	UPDATE pages SET sh = copy_of(base, :f2, :f1) WHERE id BETWEEN :victim + 10 AND :victim + 12;
	UPDATE pages SET sh = NULL WHERE id = :victim + 20;
	COMMIT;
};
my $script = PostgreSQL::Test::Utils::tempdir() . '/write.sql';
PostgreSQL::Test::Utils::append_to_file($script, $write);

# $clients writers, $transactions each; waits for them.
sub writers
{
	my ($clients, $transactions, $what) = @_;
	$primary->command_ok(
		[ 'pgbench', '--no-vacuum', "--client=$clients", "--jobs=$clients", "--transactions=$transactions",
		  '--file', $script, $primary->connstr('postgres') ],
		$what);
	return;
}

# Starts a writer that goes on until the server goes away (it is not waited for).
sub writer_until_crash
{
	my ($out, $err) = ('', '');
	return IPC::Run::start(
		[ 'pgbench', '--no-vacuum', '--client=1', '--time=300', '--rate=20', '--file', $script,
		  $primary->connstr('postgres') ],
		'>', \$out, '2>', \$err);
}

# The clusters against simhash_clusters over the same rows, as partitions (each page's cluster
# named by its smallest page on both sides): "pages in clusters, pages placed otherwise".
my $compare = q{
	WITH d AS (SELECT c.id, min(c.id) OVER (PARTITION BY c.cluster_id) AS rep FROM simhash_dedup_clusters('%1$s') c),
	     e AS (SELECT c.id, c.cluster_id AS rep FROM simhash_clusters('SELECT id, sh FROM %1$s WHERE sh IS NOT NULL', %2$d) c)
	SELECT (SELECT count(*) FROM e) || ' ' || count(*) FILTER (WHERE d.rep IS DISTINCT FROM e.rep)
	FROM d FULL JOIN e USING (id)};
# Clusters without exactly one canonical page, the smallest id.
my $canonical = q{
	SELECT count(*) FROM (SELECT cluster_id FROM simhash_dedup_clusters('%s') GROUP BY cluster_id
	                      HAVING count(*) FILTER (WHERE canonical) <> 1 OR min(id) <> min(id) FILTER (WHERE canonical)) x};

# Runs simhash_dedup_run until the backlog of $tbl is 0 (at most 20 runs), then checks the
# clusters against simhash_clusters(k) and the canonical pages.
sub caught_up_and_exact
{
	my ($node, $db, $tbl, $k, $what, %opts) = @_;
	my @psql = $opts{as} ? (extra_params => [ '-U', $opts{as} ]) : ();
	my $backlog;
	for (1 .. 20)
	{
		$node->safe_psql($db, 'SELECT simhash_dedup_run()', @psql);
		$backlog = $node->safe_psql($db, "SELECT backlog FROM simhash_dedup_status('$tbl')", @psql);
		last if $backlog eq '0';
	}
	is($backlog, '0', "$what: caught up");
	my ($pages, $differences) = split / /, $node->safe_psql($db, sprintf($compare, $tbl, $k), @psql);
	cmp_ok($pages, '>', $opts{min_pages} // 100, "$what: pages in clusters ($pages)");
	is($differences, '0', "$what: the clusters equal simhash_clusters over the same rows");
	is($node->safe_psql($db, sprintf($canonical, $tbl), @psql), '0',
		"$what: one canonical page per cluster, the smallest id");
	return;
}

# The state of every registered table, as one digest (the queue without its order).
my $members_digest = q{SELECT count(*) || ' ' || md5(coalesce(string_agg(tbl::oid || ':' || id || ':' || cluster_id
	|| ':' || canonical, ',' ORDER BY tbl::oid, id), '')) FROM simhash_dedup_members};
my $queue_digest = q{SELECT count(*) || ' ' || md5(coalesce(string_agg(tbl::oid || ':' || coalesce(id::text, 'T')
	|| ':' || queued, ',' ORDER BY tbl::oid, id, queued), '')) FROM simhash_dedup_queue};

# Starts simhash_dedup_run() in a session of its own, waits until it has written (its transaction
# has an id: it took its first batch off the queue) and runs for $secs more; returns the session
# and the backend's pid. Fails the test if the run ended before.
sub run_in_background
{
	my ($secs, $what) = @_;
	my $bg = $primary->background_psql('postgres', on_error_stop => 0);
	my $pid = $bg->query_safe('SELECT pg_backend_pid()');
	$bg->query_until(qr/started/, "\\echo started\nSELECT simhash_dedup_run();\n");
	my $state = "SELECT state || ' ' || (backend_xid IS NOT NULL) FROM pg_stat_activity WHERE pid = $pid";
	my $t0 = time;
	$primary->poll_query_until('postgres', $state, 'active true') or die "the run never wrote";
	note(sprintf('%s: the run wrote after %.2f s', $what, time - $t0));
	usleep($secs * 1e6);
	is($primary->safe_psql('postgres', $state), 'active true', "$what: the run is still applying batches");
	return ($bg, $pid);
}

# ---- (1) crashes in the middle of simhash_dedup_run, with a standby ----------------------------
writers(4, 70, 'writers queue about 30,000 changes');
$primary->safe_psql('postgres', q{
	CREATE TABLE queue_before AS SELECT * FROM simhash_dedup_queue;
	CREATE TABLE members_before AS SELECT * FROM simhash_dedup_members;});
my $queued = $primary->safe_psql('postgres', 'SELECT count(*) FROM queue_before');
cmp_ok($queued, '>', 25000, "changes queued: $queued (over 5 batches)");
my $writer = writer_until_crash();
my ($bg) = run_in_background(1, 'immediate stop');
$primary->stop('immediate');
eval { $bg->quit };
$writer->finish;
$primary->start;

# The queue of the unfinished run is back whole (and the writer's committed changes are queued
# after it); the clusters are as before the run.
is($primary->safe_psql('postgres', q{
	SELECT count(*) FROM queue_before b WHERE NOT EXISTS (
		SELECT FROM simhash_dedup_queue q WHERE q.tbl = b.tbl AND q.id IS NOT DISTINCT FROM b.id AND q.queued = b.queued)}),
	'0', 'after the crash every change the unfinished run took is queued again');
is($primary->safe_psql('postgres', q{SELECT count(*) FROM (
	(SELECT * FROM simhash_dedup_members EXCEPT ALL SELECT * FROM members_before)
	UNION ALL (SELECT * FROM members_before EXCEPT ALL SELECT * FROM simhash_dedup_members)) x}),
	'0', 'and the clusters are those before the run');
cmp_ok($primary->safe_psql('postgres', q{SELECT backlog FROM simhash_dedup_status('pages')}), '>=', $queued,
	'simhash_dedup_status counts them in the backlog');
caught_up_and_exact($primary, 'postgres', 'pages', 3, 'after the immediate stop');

# The run's backend killed: the postmaster restarts every backend (the standby's walsender too).
writers(2, 40, 'writers queue 8,000 changes more');
$primary->safe_psql('postgres', q{
	DELETE FROM queue_before; INSERT INTO queue_before SELECT * FROM simhash_dedup_queue;
	DELETE FROM members_before; INSERT INTO members_before SELECT * FROM simhash_dedup_members;});
$writer = writer_until_crash();
my $pid;
($bg, $pid) = run_in_background(0.3, 'killed backend');
kill 'KILL', $pid;
eval { $bg->quit };
$writer->finish;
$primary->poll_query_until('postgres', 'SELECT 1', '1') or die 'the server did not come back';
like(slurp_file($primary->logfile), qr/server process \(PID $pid\) was terminated by signal 9/,
	'the postmaster restarted after the run\'s backend was killed');
is($primary->safe_psql('postgres', q{
	SELECT (SELECT count(*) FROM queue_before b WHERE NOT EXISTS (
		SELECT FROM simhash_dedup_queue q WHERE q.tbl = b.tbl AND q.id IS NOT DISTINCT FROM b.id AND q.queued = b.queued))
	    + (SELECT count(*) FROM ((SELECT * FROM simhash_dedup_members EXCEPT ALL SELECT * FROM members_before)
	       UNION ALL (SELECT * FROM members_before EXCEPT ALL SELECT * FROM simhash_dedup_members)) x)}),
	'0', 'after the kill the queue and the clusters are as before the run');
caught_up_and_exact($primary, 'postgres', 'pages', 3, 'after the killed backend');

# The standby replays it all: the same members, and the readers' functions answer there.
# (psql, not safe_psql: an error there is a failed check, and the checks after it still run.)
sub standby_is
{
	my ($sql, $want, $name, @params) = @_;
	my ($ret, $out, $err) = $standby->psql('postgres', $sql, @params);
	is($out, $want, $name) or diag($err);
	return;
}
$primary->wait_for_catchup($standby);
standby_is($members_digest, $primary->safe_psql('postgres', $members_digest), 'the standby holds the same clusters');
standby_is($queue_digest, $primary->safe_psql('postgres', $queue_digest), 'and the same (empty) queue');
my $status = q{SELECT pages || ' ' || clusters || ' ' || backlog || ' ' || lag FROM simhash_dedup_status('pages')};
standby_is($status, $primary->safe_psql('postgres', $status),
	'simhash_dedup_status on the standby answers as on the primary');
my $clusters = q{SELECT md5(string_agg(id || ':' || cluster_id || ':' || canonical, ',' ORDER BY id))
	FROM simhash_dedup_clusters('pages')};
standby_is($clusters, $primary->safe_psql('postgres', $clusters), 'and simhash_dedup_clusters');
my $as_reader = q{SELECT count(*) || ' ' || count(DISTINCT cluster_id) FROM simhash_dedup_members
	WHERE tbl = 'pages'::regclass};
standby_is($as_reader, $primary->safe_psql('postgres', $as_reader),
	'a read-only role reads simhash_dedup_members on the standby', extra_params => [ '-U', 'reader' ]);
standby_is(q{SELECT backlog FROM simhash_dedup_status('pages')}, '0', 'and simhash_dedup_status',
	extra_params => [ '-U', 'reader' ]);
# The standby's own changes cannot be applied there: the run fails as any write does.
$primary->safe_psql('postgres', q{INSERT INTO pages VALUES (nextval('page_ids'), 1, copy_of(1, 5, 6))});
$primary->wait_for_catchup($standby);
standby_is(q{SELECT backlog FROM simhash_dedup_status('pages')}, '1', 'the standby shows the primary\'s backlog');
my ($ret, $out, $err) = $standby->psql('postgres', q{\set VERBOSITY verbose
	SELECT simhash_dedup_run()});
like($err, qr/ERROR:  25006: cannot execute .* in a read-only transaction/,
	'simhash_dedup_run on the standby fails with 25006 (read-only transaction)');
$primary->safe_psql('postgres', 'SELECT simhash_dedup_run()');

# ---- (4) DROP TABLE of registered tables with changes queued ---------------------------------
$primary->safe_psql('postgres', q{
	CREATE SCHEMA gone;
	CREATE TABLE drop_me (LIKE pages INCLUDING ALL);
	CREATE TABLE gone.pages (LIKE pages INCLUDING ALL);
	CREATE TABLE quiet (LIKE pages INCLUDING ALL);
	CREATE TABLE kept (LIKE pages INCLUDING ALL);
	INSERT INTO drop_me SELECT * FROM pages WHERE id <= 3000;
	INSERT INTO gone.pages SELECT * FROM pages WHERE id <= 3000;
	INSERT INTO quiet SELECT * FROM pages WHERE id <= 3000;
	INSERT INTO kept SELECT * FROM pages WHERE id <= 3000;
	SELECT simhash_dedup_start('drop_me', 'id', 'sh', 3);
	SELECT simhash_dedup_start('gone.pages', 'id', 'sh', 3);
	SELECT simhash_dedup_start('quiet', 'id', 'sh', 3);
	SELECT simhash_dedup_start('kept', 'id', 'sh', 3);
	INSERT INTO drop_me SELECT * FROM pages WHERE id BETWEEN 3001 AND 6000;
	INSERT INTO gone.pages SELECT * FROM pages WHERE id BETWEEN 3001 AND 6000;
	INSERT INTO quiet SELECT * FROM pages WHERE id BETWEEN 3001 AND 6000;
	INSERT INTO kept SELECT * FROM pages WHERE id BETWEEN 3001 AND 6000;
	DELETE FROM kept WHERE id % 7 = 0;
	CREATE TABLE dropped_oids AS SELECT oid FROM pg_class WHERE oid IN ('drop_me'::regclass, 'gone.pages'::regclass, 'quiet'::regclass);});
my $left = q{SELECT (SELECT count(*) FROM simhash_dedup_tables WHERE tbl::oid IN (SELECT oid FROM dropped_oids))
	|| ' ' || (SELECT count(*) FROM simhash_dedup_members WHERE tbl::oid IN (SELECT oid FROM dropped_oids))
	|| ' ' || (SELECT count(*) FROM simhash_dedup_queue WHERE tbl::oid IN (SELECT oid FROM dropped_oids))};
like($primary->safe_psql('postgres', $left), qr/^3 [1-9]\d* [1-9]\d*$/, 'three tables with clusters and queued changes');
$primary->safe_psql('postgres', q{
	DROP TABLE drop_me;
	DROP SCHEMA gone CASCADE;
	-- the event trigger does not fire
	SET session_replication_role = replica;
	DROP TABLE quiet;});
is($primary->safe_psql('postgres', q{SELECT count(*) FROM simhash_dedup_tables WHERE tbl::oid IN (SELECT oid FROM dropped_oids)}),
	'1', 'DROP TABLE and DROP SCHEMA CASCADE forget their tables (the third DROP bypassed the event trigger)');
my $kept_backlog = $primary->safe_psql('postgres', q{SELECT backlog FROM simhash_dedup_status('kept')});
is($primary->safe_psql('postgres', 'SELECT simhash_dedup_run()'), $kept_backlog,
	'then simhash_dedup_run() for every table applies the changes of the table left');
is($primary->safe_psql('postgres', $left), '0 0 0', 'and no row of the dropped tables is left');
caught_up_and_exact($primary, 'postgres', 'kept', 3, 'the table left');

# DROP TABLE while a run works on the table: the run locks the table before its registry row, as
# DROP TABLE does before its event trigger deletes the row, so the DROP waits for the run and then
# forgets the table (the other order deadlocked: the event trigger lost, warned, and left the
# table's state behind). A session holding the table's queue rows keeps the run waiting meanwhile.
$primary->safe_psql('postgres', q{
	CREATE TABLE racy (LIKE pages INCLUDING ALL);
	INSERT INTO racy SELECT * FROM pages WHERE id <= 3000;
	SELECT simhash_dedup_start('racy', 'id', 'sh', 3);
	INSERT INTO racy SELECT * FROM pages WHERE id BETWEEN 3001 AND 4000;
	DELETE FROM dropped_oids; INSERT INTO dropped_oids VALUES ('racy'::regclass::oid);});
my $racy_backlog = $primary->safe_psql('postgres', q{SELECT backlog FROM simhash_dedup_status('racy')});
my $holder = $primary->background_psql('postgres');
$holder->query_safe(q{BEGIN; SELECT count(*) FROM (SELECT FROM simhash_dedup_queue WHERE tbl = 'racy'::regclass FOR UPDATE) x});
my $runner = $primary->background_psql('postgres', on_error_stop => 0);
my $runner_pid = $runner->query_safe('SELECT pg_backend_pid()');
$runner->query_until(qr/started/, "\\echo started\nSELECT 'applied ' || simhash_dedup_run('racy');\n\\echo run-done\n");
ok($primary->poll_query_until('postgres', "SELECT wait_event_type FROM pg_stat_activity WHERE pid = $runner_pid", 'Lock'),
	'a run waits for the session holding the queue');
my $dropper = $primary->background_psql('postgres', on_error_stop => 0);
my $dropper_pid = $dropper->query_safe('SELECT pg_backend_pid()');
$dropper->query_until(qr/started/, "\\echo started\nDROP TABLE racy;\n\\echo dropped\n");
ok($primary->poll_query_until('postgres', "SELECT wait_event_type FROM pg_stat_activity WHERE pid = $dropper_pid", 'Lock'),
	'DROP TABLE waits');
$holder->query_safe('COMMIT');
like($runner->query_until(qr/run-done/, ''), qr/applied $racy_backlog\b/, "the run applies the table's $racy_backlog changes")
	or diag($runner->{stderr});
$dropper->query_until(qr/dropped/, '');
is($dropper->{stderr}, '', 'then the DROP TABLE goes through without a warning');
is($primary->safe_psql('postgres', $left), '0 0 0', 'and forgets the table');
$_->quit for ($holder, $runner, $dropper);
# The other way round: while a DROP TABLE is not committed, a run skips the table at once.
$primary->safe_psql('postgres', q{
	CREATE TABLE racy (LIKE pages INCLUDING ALL);
	INSERT INTO racy SELECT * FROM pages WHERE id <= 3000;
	SELECT simhash_dedup_start('racy', 'id', 'sh', 3);
	INSERT INTO racy SELECT * FROM pages WHERE id BETWEEN 3001 AND 4000;
	DELETE FROM dropped_oids; INSERT INTO dropped_oids VALUES ('racy'::regclass::oid);});
$dropper = $primary->background_psql('postgres');
$dropper->query_safe('BEGIN; DROP TABLE racy');
my $t1 = time;
is($primary->safe_psql('postgres', 'SELECT simhash_dedup_run()', timeout => 20), '0',
	'a run while a DROP TABLE is in progress skips the table');
cmp_ok(time - $t1, '<', 5, 'without waiting for it');
$dropper->query_safe('COMMIT');
$dropper->quit;
is($primary->safe_psql('postgres', $left), '0 0 0', 'the committed DROP forgets the table');

# ---- (2) DROP DATABASE by its owner right after writes ----------------------------------------
# The background worker applies this database's changes: it is working there when DROP DATABASE comes.
$primary->safe_psql('postgres', 'CREATE DATABASE crawl', extra_params => [ '-U', 'crawler' ]);
$primary->safe_psql('crawl', q{
	CREATE EXTENSION simhash;
	-- (the setting is known once the library is loaded: then its database's owner may set it)
	SELECT '0000000000000000'::simhash;
	ALTER DATABASE crawl SET simhash.dedup_in_background = on;
	CREATE TABLE pages (id bigserial PRIMARY KEY, sh simhash);
	CREATE INDEX ON pages USING simhash_mih (sh) WITH (pending_limit = 64);
	INSERT INTO pages (sh) SELECT ('x' || substr(md5(g::text), 1, 16))::bit(64)::simhash FROM generate_series(1, 3000) g;
	INSERT INTO pages (sh) SELECT sh # '0000000000000003' FROM pages;
	SELECT simhash_dedup_start('pages', 'id', 'sh', 3);
	INSERT INTO pages (sh) SELECT sh # '0000000000000100' FROM pages WHERE id <= 5000;
	SELECT simhash_dedup_run();}, extra_params => [ '-U', 'crawler' ]);
my $applied = $primary->safe_psql('crawl', q{SELECT applied FROM simhash_dedup_tables}, extra_params => [ '-U', 'crawler' ]);
$primary->safe_psql('crawl', q{
	-- two flushes of the index's pending rows: the merge worker comes
	INSERT INTO pages (sh) SELECT ('x' || substr(md5(random()::text), 1, 16))::bit(64)::simhash FROM generate_series(1, 10000);
	DELETE FROM pages WHERE id % 5 = 0;}, extra_params => [ '-U', 'crawler' ]);
ok($primary->poll_query_until('postgres',
	q{SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'simhash_mih merge' AND datname = 'crawl'}, '1'),
	'the owner\'s database: the merge worker connected to it');
ok($primary->poll_query_until('crawl', qq{SELECT applied > $applied FROM simhash_dedup_tables}),
	'and applying the changes in the background');
note('backlog at the DROP: ' . $primary->safe_psql('crawl', q{SELECT backlog FROM simhash_dedup_status('pages')}));
my $t0 = time;
($ret, $out, $err) = $primary->psql('postgres', 'DROP DATABASE crawl', extra_params => [ '-U', 'crawler' ]);
my $took = time - $t0;
note(sprintf('DROP DATABASE: %.2f s', $took));
is($err, '', 'its owner drops the database right after writes');
cmp_ok($took, '<', 10, 'within 10 s');
is($primary->safe_psql('postgres', q{SELECT count(*) FROM pg_database WHERE datname = 'crawl'}), '0', 'it is gone');

# ---- (3) ALTER EXTENSION UPDATE -------------------------------------------------------------
my $default = $primary->safe_psql('postgres',
	q{SELECT default_version FROM pg_available_extensions WHERE name = 'simhash'});
$primary->safe_psql('postgres', 'CREATE DATABASE old OWNER crawler');
$primary->safe_psql('old', q{
	CREATE EXTENSION simhash VERSION '1.3';
	CREATE FUNCTION copy_of(base int, f1 int, f2 int) RETURNS simhash LANGUAGE sql IMMUTABLE AS $$
		SELECT ('x' || substr(md5('base' || base), 1, 16))::bit(64)::simhash
		       # ((1::bigint << f1) | (1::bigint << f2))::simhash $$;
	CREATE TABLE pages (id bigint PRIMARY KEY, base int NOT NULL, sh simhash);
	CREATE INDEX ON pages USING simhash_mih (sh);
	INSERT INTO pages SELECT b, b % 300 + 1, copy_of(b % 300 + 1, b % 64, (b * 3) % 64) FROM generate_series(1, 3000) b;
	CREATE TABLE doomed (LIKE pages INCLUDING ALL);
	INSERT INTO doomed SELECT * FROM pages;}, extra_params => [ '-U', 'crawler' ]);
is($primary->safe_psql('old', q{SELECT to_regproc('simhash_dedup_start') IS NULL}), 't', '1.3 has no simhash_dedup');
$primary->safe_psql('old', q{
	ALTER EXTENSION simhash UPDATE TO '1.4';
	SELECT simhash_dedup_start('pages', 'id', 'sh', 3);
	SELECT simhash_dedup_start('doomed', 'id', 'sh', 3);
	INSERT INTO pages SELECT 3000 + b, b % 300 + 1, copy_of(b % 300 + 1, (b * 5) % 64, (b * 11) % 64) FROM generate_series(1, 1500) b;
	SELECT simhash_dedup_run();
	DELETE FROM pages WHERE id % 9 = 0;
	UPDATE pages SET sh = copy_of(base, 7, 8) WHERE id % 13 = 0;
	INSERT INTO doomed SELECT * FROM pages WHERE id > 3000;}, extra_params => [ '-U', 'crawler' ]);
cmp_ok($primary->safe_psql('old', q{SELECT backlog FROM simhash_dedup_status('pages')}), '>', 0,
	'updated to 1.4 by its owner: clusters kept, changes queued');
$primary->safe_psql('old', 'ALTER EXTENSION simhash UPDATE', extra_params => [ '-U', 'crawler' ]);
is($primary->safe_psql('old', q{SELECT extversion FROM pg_extension WHERE extname = 'simhash'}), $default,
	"then updated to the default version ($default)");
my $doomed = $primary->safe_psql('old', q{SELECT 'doomed'::regclass::oid});
$primary->safe_psql('old', 'DROP TABLE doomed', extra_params => [ '-U', 'crawler' ]);
is($primary->safe_psql('old', qq{SELECT count(*) FROM simhash_dedup_tables WHERE tbl::oid = $doomed}), '0',
	'the updated extension\'s event trigger forgets a dropped table');
caught_up_and_exact($primary, 'old', 'pages', 3, 'after the updates', as => 'crawler');

# Nothing crashed but what the test killed.
my $log = slurp_file($primary->logfile);
my @signals = $log =~ /(was terminated by signal \d+)/g;
is(scalar(@signals), 1, 'one process ended by a signal: the killed run');
unlike($log, qr/PANIC|being accessed by other users|could not forget a dropped table/,
	'no PANIC, no command waited for a database in vain, no dropped table left unforgotten');

$standby->stop;
$primary->stop;
done_testing();
