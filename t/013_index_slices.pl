# A merge into the base run of a simhash_mih index goes in slices (mih_am_slices.c): the base's
# tables are replaced one at a time, then table 0 a range at a time, each installed by one change
# of the meta page. Between any two of them the index answers like a sequential scan and passes
# simhash_mih_check: on the primary, on a streaming replica that replays the slices under its
# scans, after a merge stopped between slices and after a crash there; and the merge takes no
# second copy of the base in the index's file.
# On every major: the slices' WAL replayed on a standby and after a crash.
use strict;
use warnings;
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use t::MihScans;

my $primary = PostgreSQL::Test::Cluster->new('primary');
$primary->init(allows_streaming => 1);
# No worker merges on its own, nor settles the index once the writers paused: the merges here
# are simhash_mih_merge's.
$primary->append_conf('postgresql.conf', "autovacuum = off\nsimhash.settle_delay = -1\n");
$primary->start;
# The standby streams through a slot: the primary writes gigabytes of WAL here (whole-page images
# of every slice), a checkpoint every 64 MB (max_wal_size = 128MB), and without a slot it recycles
# the segments a standby that fell a second behind still needs ("requested WAL segment has already
# been removed"): that standby never catches up. The slot, reserved before the backup, keeps them.
$primary->safe_psql('postgres', q{
    CREATE EXTENSION simhash;
    SELECT pg_create_physical_replication_slot('standby', true);});
$primary->backup('base');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'base', has_streaming => 1);
$standby->append_conf('postgresql.conf', "primary_slot_name = 'standby'\n");
$standby->start;

# A base run of 1.3M rows (a base needs four big runs' rows: 4 * 64 limits of 4,656), some of
# them copies of one another, some dead, and runs beside it.
$primary->safe_psql('postgres', q{
    CREATE TABLE t (id bigserial, sh simhash);
    INSERT INTO t (sh) SELECT ('x' || substr(md5(g::text), 1, 16))::bit(64)::simhash FROM generate_series(1, 1300000) g;
    INSERT INTO t (sh) SELECT sh FROM t WHERE id % 100 = 0;
    CREATE INDEX t_mih ON t USING simhash_mih (sh) WITH (pending_limit = 64);
    DELETE FROM t WHERE id % 97 = 0;
    VACUUM t;
    INSERT INTO t (sh) SELECT ('x' || substr(md5((g * 7)::text), 1, 16))::bit(64)::simhash FROM generate_series(1, 40000) g;
    INSERT INTO t (sh) SELECT sh # '0000000000000003' FROM t WHERE id % 53 = 0 AND id < 400000;
});
create_mismatches($primary);
my $runs = q{SELECT count(*) || ' ' || max(rows) FROM simhash_mih_runs('t_mih')};
my $check = q{SELECT live_sorted_rows + pending_rows = (SELECT count(*) FROM t) FROM simhash_mih_check('t_mih')};
my ($nruns, $base) = split / /, $primary->safe_psql('postgres', $runs);
cmp_ok($nruns, '>=', 2, 'the index has runs beside its base run');
cmp_ok($base, '>=', 4 * 297984, 'of four big runs\' rows');

# A merge into the base takes room for a slice, not for a second base.
my $size = q{SELECT pg_relation_size('t_mih') / 8192};
my $pages_before = $primary->safe_psql('postgres', $size);
my $base_pages = $primary->safe_psql('postgres', q{SELECT max(table0_pages) FROM simhash_mih_runs('t_mih')});
$primary->safe_psql('postgres', q{SELECT simhash_mih_merge('t_mih')});
is($primary->safe_psql('postgres', q{SELECT count(*) FROM simhash_mih_runs('t_mih')}), '1', 'simhash_mih_merge merged every run into the base');
cmp_ok($primary->safe_psql('postgres', $size) - $pages_before, '<', $base_pages / 2,
    'and the index grew by less than half its base\'s table 0 (a second base would be twice that)');
is($primary->safe_psql('postgres', 'SELECT mismatches(20)'), '0', 'the index answers like a sequential scan');
is($primary->safe_psql('postgres', $check), 't', 'and passes simhash_mih_check');

# A few rows beside the base whose block 0 is nearly all zeros: they all belong in the first range
# of table 0, so the run they are in is used up, and goes, there, not at the merge's end.
$primary->safe_psql('postgres', q{
    INSERT INTO t (sh) VALUES ('0000000000000001'), ('0000000000000300'), ('0000000000000000');
    SELECT simhash_mih_merge('t_mih');
});
is($primary->safe_psql('postgres', q{SELECT count(*) FROM simhash_mih_runs('t_mih')}), '1', 'three rows merged into the base');
is($primary->safe_psql('postgres', 'SELECT mismatches(20)'), '0', 'the index answers like a sequential scan');
is($primary->safe_psql('postgres', $check), 't', 'and passes simhash_mih_check');

# A hot standby replays the slices without waiting for its scans, and a run changed in slices
# keeps its tag: its scans must tell a page it replaced by the run's epoch, start over, and never
# miss a row or report damage. Inserts and merges in slices on the primary, scans on the standby.
standby_scans_while($primary, $standby, 1, q{
    INSERT INTO t (sh) SELECT ('x' || substr(md5(random()::text), 1, 16))::bit(64)::simhash FROM generate_series(1, 5000);
    SELECT simhash_mih_merge('t_mih');
}, 't_mih', 'merges in slices');
$primary->wait_for_catchup($standby);
is($standby->safe_psql('postgres', 'SELECT mismatches(20)'), '0', 'then the standby answers like a sequential scan');

# A merge stopped between two slices of table 0 leaves the base with some of the other run's
# rows and the other run with the rest: two consistent runs. Stopped by pg_terminate_backend once
# its progress is past the tables 1..m-1 (rows times m - 1 of rows times m, the base's rows and
# more: not the merge of the other runs that comes first), then the server crashes and replays it.
# The base has rows VACUUM cleared: its old pages keep them until their range is rewritten, while
# its other tables are made of its live rows.
$primary->safe_psql('postgres', q{
    DELETE FROM t WHERE id % 89 = 0;
    VACUUM t;
    INSERT INTO t (sh) SELECT ('x' || substr(md5(random()::text), 1, 16))::bit(64)::simhash FROM generate_series(1, 50000);
    CHECKPOINT;
});
($nruns, $base) = split / /, $primary->safe_psql('postgres', $runs);
my $m = $primary->safe_psql('postgres', q{SELECT blocks FROM simhash_mih_state('t_mih')});
my ($merge_out, $merge_err) = ('', '');
my $merge = IPC::Run::start([ 'psql', '-X', '-d', $primary->connstr('postgres'), '-c', q{SELECT simhash_mih_merge('t_mih')} ],
    '>', \$merge_out, '2>', \$merge_err);
is($primary->safe_psql('postgres', qq{
    DO \$\$
    DECLARE
        merging int;
    BEGIN
        FOR i IN 1 .. 60000 LOOP
            SELECT pid INTO merging FROM simhash_mih_merge_progress
            WHERE phase = 'writing tables' AND rows_total * 2 >= $base * $m
              AND rows_done * $m > rows_total * ($m - 1) AND rows_done < rows_total;
            IF merging IS NOT NULL THEN
                PERFORM pg_terminate_backend(merging);
                RETURN;
            END IF;
            PERFORM pg_sleep(0.0005);
            PERFORM pg_stat_clear_snapshot();  -- the progress view, read again
        END LOOP;
        RAISE 'no merge in slices seen';
    END \$\$;
    SELECT 'stopped'}), 'stopped', 'a merge in slices was stopped between slices of table 0');
$merge->finish;
my ($nruns_now, $base_now) = split / /, $primary->safe_psql('postgres', $runs);
cmp_ok($nruns_now, '>=', 2, 'the other run is still there');
cmp_ok($base_now, '>', $base, 'and the base holds some of its rows');
is($primary->safe_psql('postgres', 'SELECT mismatches(20)'), '0', 'the index answers like a sequential scan');
is($primary->safe_psql('postgres', $check), 't', 'and passes simhash_mih_check, every row once');
$primary->wait_for_catchup($standby);
is($standby->safe_psql('postgres', 'SELECT mismatches(20)'), '0', 'the standby answers like a sequential scan');
is($standby->safe_psql('postgres', $check), 't', 'and its index passes simhash_mih_check');

$primary->stop('immediate');
$primary->start;
is($primary->safe_psql('postgres', $runs), "$nruns_now $base_now", 'crash recovery replays the same runs');
is($primary->safe_psql('postgres', 'SELECT mismatches(20)'), '0', 'the recovered index answers like a sequential scan');
is($primary->safe_psql('postgres', $check), 't', 'and passes simhash_mih_check');
$primary->safe_psql('postgres', q{SELECT simhash_mih_merge('t_mih')});
is($primary->safe_psql('postgres', q{SELECT count(*) FROM simhash_mih_runs('t_mih')}), '1', 'the next merge takes the rest in');
is($primary->safe_psql('postgres', 'SELECT mismatches(20)'), '0', 'the index answers like a sequential scan');
is($primary->safe_psql('postgres', $check), 't', 'and passes simhash_mih_check');
$primary->wait_for_catchup($standby);
is($standby->safe_psql('postgres', $check), 't', 'as does the standby\'s');

done_testing();
