# The simhash_mih merge worker is a good citizen of the server. Right after writes that started it
# (and with a long simhash.settle_delay, so it would stay for a minute), the database's owner, no
# superuser, can DROP it, RENAME it and move it to another tablespace: the worker leaves a database
# such a command needs alone (PostgreSQL waits 5 s for the others to leave, then fails with "being
# accessed by other users"). And one worker serves every index of a database: a crawl table of 16
# partitions, each with its index, all being written, takes at most
# simhash.max_merge_workers_per_database worker processes, so a parallel query still gets its
# workers; once the writers pause, every index is settled, answers like a sequential scan and
# passes simhash_mih_check.
# With pending_limit = 64, a flush writes 4,657 rows, and every flush starts a worker if none is
# there.
# On every major: DROP DATABASE's wait for other backends and BGWORKER_INTERRUPTIBLE (19) are the server's.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use File::Spec;
use Time::HiRes qw(time usleep);

my $node = PostgreSQL::Test::Cluster->new('citizen');
$node->init;
# max_worker_processes = 8 (the default) is shared by the merge workers and parallel query.
$node->append_conf('postgresql.conf', "autovacuum = off\nsimhash.settle_delay = 60\nmax_worker_processes = 8\n");
$node->start;
$node->safe_psql('postgres', q{
    CREATE ROLE crawler LOGIN CREATEDB;
    CREATE EXTENSION simhash;
});

# Runs $sql as the role crawler in database $db.
sub as_crawler
{
    my ($db, $sql) = @_;
    return $node->safe_psql($db, $sql, extra_params => [ '-U', 'crawler' ]);
}

my $workers = q{SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'simhash_mih merge'};

# Waits (at most 3 minutes) until $sql returns $want; returns what it returned last.
sub wait_for
{
    my ($sql, $want) = @_;
    my $got;
    for (1 .. 1800)
    {
        $got = $node->safe_psql('postgres', $sql);
        return $got if $got eq $want;
        usleep(100_000);
    }
    return $got;
}

# Inserts 10,000 random rows into $db's table t as crawler (two flushes: a worker starts) and
# waits until the worker is connected to $db.
sub write_rows
{
    my ($db) = @_;
    as_crawler($db, q{INSERT INTO t (sh) SELECT ('x' || substr(md5(random()::text), 1, 16))::bit(64)::simhash
                      FROM generate_series(1, 10000)});
    return wait_for(qq{SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'simhash_mih merge' AND datname = '$db'}, '1');
}

# Runs the database command $sql as crawler (from database postgres); returns its error output
# and the seconds it took.
sub timed
{
    my ($sql) = @_;
    my $start = time;
    my ($rc, $out, $err) = $node->psql('postgres', $sql, extra_params => [ '-U', 'crawler' ]);
    my $took = time - $start;
    note(sprintf('%s: %.2f s', $sql, $took));
    return ($err, $took);
}

# (i) DROP DATABASE, ALTER DATABASE ... RENAME TO and ... SET TABLESPACE right after writes.
$node->safe_psql('postgres', 'CREATE DATABASE crawl OWNER crawler');
$node->safe_psql('crawl', 'CREATE EXTENSION simhash');
as_crawler('crawl', q{
    CREATE TABLE t (id bigserial, sh simhash);
    CREATE INDEX t_mih ON t USING simhash_mih (sh) WITH (pending_limit = 64);
});
is(write_rows('crawl'), '1', 'writes started a merge worker in the database');
my ($err, $took) = timed('ALTER DATABASE crawl RENAME TO crawl_renamed');
is($err, '', 'its owner renames the database right after writes');
cmp_ok($took, '<', 4, 'within 4 s');

# From PostgreSQL 17 on, tempdir() is relative to the test's directory; a tablespace needs an
# absolute path.
my $location = File::Spec->rel2abs(PostgreSQL::Test::Utils::tempdir());
$node->safe_psql('postgres', qq{
    CREATE TABLESPACE elsewhere LOCATION '$location';
    GRANT CREATE ON TABLESPACE elsewhere TO crawler;
});
is(write_rows('crawl_renamed'), '1', 'writes started a merge worker again');
($err, $took) = timed('ALTER DATABASE crawl_renamed SET TABLESPACE elsewhere');
is($err, '', 'its owner moves the database to another tablespace right after writes');
cmp_ok($took, '<', 4, 'within 4 s');
is($node->safe_psql('crawl_renamed', q{SELECT count(*) FROM simhash_mih_check('t_mih')}), '1',
   'the moved index passes simhash_mih_check');

is(write_rows('crawl_renamed'), '1', 'writes in the moved database started a merge worker');
($err, $took) = timed('DROP DATABASE crawl_renamed');
is($err, '', 'its owner drops the database right after writes');
cmp_ok($took, '<', 4, 'within 4 s');
is(wait_for($workers, '0'), '0', 'no merge worker is left');
unlike(slurp_file($node->logfile), qr/being accessed by other users/, 'no command waited for the worker in vain');

# (ii) A crawl table of 16 partitions, each with its index, all written at once, in batches of
# 16,000 rows (1,000 a partition) every 0.2 s: every index flushes every few batches.
$node->safe_psql('postgres', q{
    CREATE TABLE crawl (id bigint, sh simhash) PARTITION BY HASH (id);
    DO $$
    BEGIN
        FOR p IN 0 .. 15 LOOP
            EXECUTE format('CREATE TABLE crawl_%s PARTITION OF crawl FOR VALUES WITH (MODULUS 16, REMAINDER %s)', p, p);
            EXECUTE format('CREATE INDEX crawl_%s_mih ON crawl_%s USING simhash_mih (sh) WITH (pending_limit = 64)', p, p);
        END LOOP;
    END $$;
    CREATE SEQUENCE crawl_ids;
    CREATE TABLE writer_stop ();
    CREATE TABLE big AS SELECT g AS id FROM generate_series(1, 200000) g;
    ANALYZE big;
});
my $indexes = q{SELECT count(*) FROM pg_class WHERE relname LIKE 'crawl\_%\_mih'};
is($node->safe_psql('postgres', $indexes), '16', '16 partitions, each with its simhash_mih index');
# Whether every partition's index has runs: each was written and flushed.
my $all_flushed = q{SELECT bool_and(r > 0) FROM (SELECT (SELECT count(*) FROM simhash_mih_runs(c.oid::regclass)) AS r
    FROM pg_class c WHERE relname LIKE 'crawl\_%\_mih') x};

# Writes the 16 partitions until told to stop; while they are written, samples the merge workers
# and runs a parallel plan (forced) $plans times; returns the most workers seen and the plans'
# "Workers Launched" lines.
sub while_written
{
    my ($plans) = @_;
    $node->safe_psql('postgres', 'DELETE FROM writer_stop');
    my $writer = $node->background_psql('postgres');
    $writer->query_until(qr/writing/, q{
        \echo writing
        DO $$
        BEGIN
            FOR i IN 1 .. 3000 LOOP
                EXIT WHEN EXISTS (SELECT FROM writer_stop);
                INSERT INTO crawl SELECT nextval('crawl_ids'), ('x' || substr(md5(random()::text), 1, 16))::bit(64)::simhash
                FROM generate_series(1, 16000);
                COMMIT;
                PERFORM pg_sleep(0.2);
            END LOOP;
        END $$;
    });
    wait_for($all_flushed, 't');
    my ($most, @launched) = (0);
    for (1 .. $plans)
    {
        for (1 .. 5)
        {
            my $n = $node->safe_psql('postgres', $workers);
            $most = $n if $n > $most;
            usleep(200_000);
        }
        my $plan = $node->safe_psql('postgres', q{
            SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;
            SET max_parallel_workers_per_gather = 2;
            EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT count(*) FROM big});
        push @launched, $plan =~ /(Workers Launched: \d+)/;
    }
    my $still = $node->safe_psql('postgres', 'SELECT count(*) FROM writer_stop') eq '0';
    $node->safe_psql('postgres', 'INSERT INTO writer_stop DEFAULT VALUES');
    $writer->quit;
    ok($still, 'the writer wrote throughout');
    return ($most, @launched);
}

my ($most, @launched) = while_written(3);
cmp_ok($most, '>=', 1, 'a merge worker served the partitions\' indexes');
cmp_ok($most, '<=', 1, 'at most simhash.max_merge_workers_per_database (1) merge workers while 16 indexes are written');
is(join(', ', @launched), join(', ', ('Workers Launched: 2') x 3), 'a parallel plan launches its 2 workers meanwhile');

# simhash.max_merge_workers_per_database = 2: at most two.
$node->append_conf('postgresql.conf', "simhash.max_merge_workers_per_database = 2\n");
$node->reload;
wait_for(q{SELECT current_setting('simhash.max_merge_workers_per_database')}, '2');
($most, @launched) = while_written(2);
cmp_ok($most, '<=', 2, 'max_merge_workers_per_database = 2: at most two merge workers');
is(join(', ', @launched), join(', ', ('Workers Launched: 2') x 2), 'and a parallel plan launches its 2 workers');

# (iii) The writers paused: with a short settle_delay, the workers settle every index (its pending
# rows and the runs beside the biggest merged: at most 2 runs) and exit.
$node->append_conf('postgresql.conf', "simhash.settle_delay = 2\n");
$node->reload;
wait_for(q{SELECT current_setting('simhash.settle_delay') IN ('2', '2s')}, 't');
my $unsettled = q{SELECT count(*) FROM pg_class c, simhash_mih_state(c.oid::regclass) s
    WHERE c.relname LIKE 'crawl\_%\_mih' AND (s.runs > 2 OR s.pending_rows + s.sealed_rows > 0)};
is(wait_for($unsettled, '0'), '0', 'every partition\'s index settled');
is(wait_for($workers, '0'), '0', 'and the merge workers exited');
is($node->safe_psql('postgres', q{SELECT count(*) FROM pg_class c, simhash_mih_check(c.oid::regclass)
    WHERE c.relname LIKE 'crawl\_%\_mih'}), '16', 'every index passes simhash_mih_check');
is($node->safe_psql('postgres', q{
    SET enable_seqscan = off; SET enable_bitmapscan = off;
    SELECT count(*) FROM generate_series(1, 12) q,
    LATERAL (SELECT ('x' || substr(md5(q::text), 1, 16))::bit(64)::simhash AS h) qh,
    LATERAL (SELECT array_agg(id ORDER BY id) AS ids FROM crawl WHERE hamming(sh, qh.h) <= 9) i,
    LATERAL (SELECT array_agg(id ORDER BY id) AS ids FROM crawl WHERE hamming(sh::bigint, qh.h::bigint) <= 9) s,
    LATERAL (SELECT array_agg(d) AS ds FROM (SELECT (sh <-> qh.h)::int AS d FROM crawl ORDER BY sh <-> qh.h LIMIT 10) x) ki,
    LATERAL (SELECT array_agg(d ORDER BY d) AS ds FROM (SELECT hamming(sh::bigint, qh.h::bigint)::int AS d FROM crawl
             ORDER BY 1 LIMIT 10) y) ks
    WHERE i.ids IS DISTINCT FROM s.ids OR ki.ds IS DISTINCT FROM ks.ds}), '0',
   'the indexes answer radius and nearest-neighbour queries like a sequential scan');
like($node->safe_psql('postgres', q{SET enable_seqscan = off; SET enable_bitmapscan = off;
    EXPLAIN (COSTS OFF) SELECT id FROM crawl WHERE hamming(sh, 'x0123456789abcdef'::bit(64)::simhash) <= 9}),
     qr/Index Scan using crawl_15_mih/, 'through the indexes');
# A worker leaves with exit code 1 only when told to: on 19 the postmaster itself ends an
# interruptible worker that DROP, RENAME or SET TABLESPACE waits for ("due to administrator
# command"); an error or a crash would be an exit without that line before it.
my $log = slurp_file($node->logfile);
my $told = () = $log =~ /FATAL:  terminating background worker "simhash_mih merge" due to administrator command/g;
my $exits = () = $log =~ /background worker "simhash_mih merge" \(PID \d+\) exited with exit code 1/g;
is($exits, $told, 'no merge worker failed: every exit with code 1 was an administrator command');
unlike($log, qr/background worker "simhash_mih merge" \(PID \d+\) (was terminated by signal|exited with exit code [2-9])/,
       'no merge worker crashed');

$node->stop;
done_testing();
