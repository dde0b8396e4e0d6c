# Once the writers of a simhash_mih index pause for simhash.settle_delay, the merge worker that a
# flush started settles the index: the pending rows become a run and the runs beside the biggest
# merge into one (they cost a scan little), or into the biggest, the base (they hold an eighth of
# a table's block values and a 64th of its rows). While a writer writes, the worker waits, idle in
# pg_stat_activity, and merges the runs beside the base into it once they hold that much, with
# time to spare; terminated there, it lets go of its lock, and the next flush starts another.
# With simhash.settle_delay = -1 nothing settles. The index answers like a sequential scan
# throughout.
# With pending_limit = 64, a flush writes 4,657 rows; a run of 1.19M rows or more is a base.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);
use t::MihScans;

my $node = PostgreSQL::Test::Cluster->new('settle');
$node->init;
$node->append_conf('postgresql.conf', "autovacuum = off\nsimhash.settle_delay = 2\n");
$node->start;
$node->safe_psql('postgres', q{
    CREATE EXTENSION simhash;
    CREATE TABLE t (id bigserial, sh simhash);
    CREATE INDEX t_mih ON t USING simhash_mih (sh) WITH (pending_limit = 64);
});
create_mismatches($node);

my $state = q{SELECT runs || ' runs, ' || pending_rows + sealed_rows || ' pending' FROM simhash_mih_state('t_mih')};
my $worker = q{SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'simhash_mih merge'};
# The worker's advisory lock: the index in classid, 0x5348 in objsubid.
my $worker_lock = q{SELECT count(*) FROM pg_locks
    WHERE locktype = 'advisory' AND classid = 't_mih'::regclass::oid AND objid = 0 AND objsubid = 21320};

# Inserts $rows random rows into t in statements of 1,000.
sub fill
{
    my ($rows) = @_;
    $node->safe_psql('postgres', qq{
        DO \$\$
        BEGIN
            FOR b IN 1 .. $rows / 1000 LOOP
                INSERT INTO t (sh) SELECT ('x' || substr(md5(random()::text), 1, 16))::bit(64)::simhash
                FROM generate_series(1, 1000);
            END LOOP;
        END \$\$});
    return;
}

# A writer that keeps writing $rows random rows every 0.2 s (for at most $times statements) in a
# session of its own, until stop_writer.
my $writer;
sub start_writer
{
    my ($rows, $times) = @_;
    $node->safe_psql('postgres', 'CREATE TABLE IF NOT EXISTS writer_stop (); DELETE FROM writer_stop');
    $writer = $node->background_psql('postgres');
    $writer->query_until(qr/writing/, qq{
        \\echo writing
        DO \$\$
        BEGIN
            FOR i IN 1 .. $times LOOP
                EXIT WHEN EXISTS (SELECT FROM writer_stop);
                INSERT INTO t (sh) SELECT ('x' || substr(md5(random()::text), 1, 16))::bit(64)::simhash
                FROM generate_series(1, $rows);
                COMMIT;
                PERFORM pg_sleep(0.2);
            END LOOP;
        END \$\$;
    });
    return;
}

sub stop_writer
{
    $node->safe_psql('postgres', 'INSERT INTO writer_stop DEFAULT VALUES');
    $writer->quit;
    return;
}

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

# Waits (at most 3 minutes) until $sql returns something that matches $want; returns the match's
# groups, or nothing.
sub wait_for_match
{
    my ($sql, $want) = @_;
    for (1 .. 1800)
    {
        my @groups = $node->safe_psql('postgres', $sql) =~ $want;
        return @groups if @groups;
        usleep(100_000);
    }
    return;
}

sub answers_like_a_sequential_scan
{
    my ($when) = @_;
    is($node->safe_psql('postgres', 'SELECT mismatches(12)'), '0', "the index answers like a sequential scan $when");
    is($node->safe_psql('postgres', q{SELECT count(*) FROM simhash_mih_check('t_mih')}), '1', "simhash_mih_check passes $when");
    return;
}

# The runs beside the biggest and the pending rows merge into one.
fill(30_000);
like($node->safe_psql('postgres', $state), qr/^[3-9] runs, [1-9]\d* pending$/, 'inserts leave runs and pending rows');
is(wait_for($state, '2 runs, 0 pending'), '2 runs, 0 pending', 'once the writer paused, the worker merged them into one run beside the biggest');
is(wait_for($worker, '0'), '0', 'and exited');
answers_like_a_sequential_scan('settled');

# A writer that keeps writing (a row every 0.2 s until told to stop): the worker waits, idle, and
# settles once it stops.
fill(10_000);
start_writer(1, 1500);
my ($polls, $unsettled, $idle) = (0, 0, 0);
for (1 .. 12)
{
    usleep(500_000);
    $polls++;
    $unsettled++ if $node->safe_psql('postgres', q{SELECT runs FROM simhash_mih_state('t_mih')}) >= 3;
    $idle++ if $node->safe_psql('postgres',
        q{SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'simhash_mih merge' AND state = 'idle'}) eq '1';
}
is($unsettled, $polls, 'no settle while a writer writes (6 s, settle_delay 2 s)');
cmp_ok($idle, '>=', $polls - 2, 'the worker waits, idle in pg_stat_activity');
is($node->safe_psql('postgres', $worker_lock), '1', 'it holds its lock');
stop_writer();
is(wait_for($state, '2 runs, 0 pending'), '2 runs, 0 pending', 'the writer stopped: the worker settled the index');
answers_like_a_sequential_scan('settled after a writer');

# A worker terminated while it waits lets go of its lock; the next flush starts another.
fill(10_000);
is(wait_for($worker_lock, '1'), '1', 'the flushes started a worker');
$node->safe_psql('postgres', q{SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE backend_type = 'simhash_mih merge'});
is(wait_for($worker_lock, '0'), '0', 'a terminated worker lets go of its lock');
fill(5_000);
is(wait_for($state, '2 runs, 0 pending'), '2 runs, 0 pending', 'the next flush started a worker that settled the index');

# simhash.settle_delay = -1: nothing settles, and no worker waits.
$node->append_conf('postgresql.conf', "simhash.settle_delay = -1\n");
$node->reload;
wait_for(q{SELECT current_setting('simhash.settle_delay') = '-1'}, 't');
fill(10_000);
is(wait_for($worker, '0'), '0', 'settle_delay -1: no worker waits');
sleep(3);
like($node->safe_psql('postgres', $state), qr/^[2-9] runs, [1-9]\d* pending$/, 'and the index stays as the writer left it');
$node->append_conf('postgresql.conf', "simhash.settle_delay = 2\n");
$node->reload;
wait_for(q{SELECT current_setting('simhash.settle_delay') IN ('2', '2s')}, 't');

# A base run (blocks = 4: tables of 16-bit blocks, an eighth of whose values is 8,192 rows;
# base_share = 1, so no merge into the base is due before the settle). A few flushes' rows stay
# beside the base, merged into one run; 25,000 rows (2% of the base's) go into it: once they hold
# a 64th of its rows, with time to spare while they are inserted, or else once the writer paused.
# Either way what is left beside the base is less than that.
$node->safe_psql('postgres', q{
    DROP INDEX t_mih;
    TRUNCATE t;
    INSERT INTO t (sh) SELECT ('x' || substr(md5(g::text), 1, 16))::bit(64)::simhash FROM generate_series(1, 1250000) g;
    CREATE INDEX t_mih ON t USING simhash_mih (sh) WITH (pending_limit = 64, blocks = 4, base_share = 1);
});
fill(5_000);
is(wait_for($state, '2 runs, 0 pending'), '2 runs, 0 pending', 'a few flushes beside a base: merged into one run beside it');
is($node->safe_psql('postgres', q{SELECT string_agg(rows::text, ' ' ORDER BY rows DESC) FROM simhash_mih_runs('t_mih')}),
   '1250000 5000', 'the base is as it was');
answers_like_a_sequential_scan('with a run beside the base');
# The base's rows and those beside it, once the index settled (no pending row, no worker left).
my $settled = q{SELECT max(rows) || ' + ' || sum(rows) - max(rows) FROM simhash_mih_runs('t_mih')
    HAVING (SELECT pending_rows + sealed_rows FROM simhash_mih_state('t_mih')) = 0
       AND (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'simhash_mih merge') = 0};
fill(20_000);
my ($in_base, $beside) = wait_for_match($settled, qr/^(\d+) \+ (\d+)$/);
ok(defined $beside, 'settled after 20,000 more rows');
cmp_ok($in_base, '>=', 1_250_000 + 19_532, 'a 64th of the base\'s rows beside it: merged into it');
cmp_ok($beside, '<', 19_532, 'what is left beside it is less');
is($in_base + $beside, 1_275_000, 'the runs hold every row');
answers_like_a_sequential_scan('settled into the base');

# A writer that keeps writing (1,000 rows every 0.2 s): with time to spare, the worker merges the
# runs beside the base into it while the writer writes, once they hold what a settle merges
# (base_share = 1 makes no such merge due otherwise).
start_writer(1000, 600);
my $writing = q{SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%writer_stop%' AND state = 'active' AND pid <> pg_backend_pid()};
is(wait_for(qq{SELECT max(rows) > 1275000 AND ($writing) = 1 FROM simhash_mih_runs('t_mih')}, 't'), 't',
   'while the writer writes, the worker merged the runs beside the base into it');
answers_like_a_sequential_scan('merged into the base while writing');
stop_writer();
($in_base, $beside) = wait_for_match($settled, qr/^(\d+) \+ (\d+)$/);
ok(defined $beside, 'the writer stopped: settled');
is($in_base + $beside, $node->safe_psql('postgres', 'SELECT count(*) FROM t'), 'the runs hold every row');
cmp_ok($beside, '<', $in_base / 64, 'less than a 64th of the base\'s rows beside it');
answers_like_a_sequential_scan('settled after the writer');

$node->stop;
done_testing();
