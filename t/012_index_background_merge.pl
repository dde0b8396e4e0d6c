# Big runs of a simhash_mih index are merged by a background worker that inserters start, without a
# VACUUM, while inserts and checked scans go on, and so are the small runs above the smallest tier
# (an inserter merges only that tier: it must not stall) and the other runs into a base run once
# they hold a sixteenth of its rows (small merges go on beside: they leave the runs the worker
# marked), and the runs beside the base into one once all but the biggest hold an eighth of its
# rows; a temporary index's inserter merges big runs itself; with no worker slot free, VACUUM
# merges them. The worker's, VACUUM's and simhash_mih_merge's merges show in
# pg_stat_progress_vacuum and simhash_mih_merge_progress while they run.
# With pending_limit = 64 (4,656 rows), a run is big from 64 limits (297,984 rows) on, and the
# index keeps at most 3 of them: about 1.2M inserted rows make 4, so one merge is due.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);
use t::MihScans;

my $node = PostgreSQL::Test::Cluster->new('background');
$node->init;
# The worker merges what is due and exits: the settle once the writers paused is t/014's.
$node->append_conf('postgresql.conf', "autovacuum = off\nsimhash.settle_delay = -1\n");
$node->start;
$node->safe_psql('postgres', q{
    CREATE EXTENSION simhash;
    CREATE TABLE t (id bigserial, sh simhash);
    INSERT INTO t (sh) SELECT ('x' || substr(md5(g::text), 1, 16))::bit(64)::simhash FROM generate_series(1, 20000) g;
    CREATE INDEX t_mih ON t USING simhash_mih (sh) WITH (pending_limit = 64);
});
create_mismatches($node);

my $big = q{SELECT count(*) FROM simhash_mih_runs('t_mih') WHERE tier >= 3};
my $worker_active = q{SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'simhash_mih merge'};

# Inserts in statements of 1,000 rows until table $table (default t) has about $rows rows.
sub fill
{
    my ($rows, $table) = @_;
    $table //= 't';
    $node->safe_psql('postgres', qq{
        DO \$\$
        BEGIN
            FOR b IN 1 .. ($rows - (SELECT count(*) FROM $table)) / 1000 + 1 LOOP
                INSERT INTO $table (sh) SELECT ('x' || substr(md5(random()::text), 1, 16))::bit(64)::simhash
                FROM generate_series(1, 1000);
            END LOOP;
        END \$\$});
}

# Waits until no merge worker runs and none is due.
sub settle
{
    for (1 .. 600)
    {
        return if $node->safe_psql('postgres', $worker_active) eq '0'
          && $node->safe_psql('postgres', $big) <= 3;
        usleep(100_000);
    }
}

# pgbench: 3 clients insert 2,000 rows a transaction or (one transaction in four) compare the
# index's answers with a sequential scan's in one snapshot, $transactions each.
my $pgbench_runs = 0;
sub insert_and_check
{
    my ($transactions, $seed, $while) = @_;
    # pgbench's script files are named by these keys and may not exist yet.
    $pgbench_runs++;
    $node->pgbench(
        "--no-vacuum --client=3 --jobs=2 --transactions=$transactions --random-seed=$seed",
        0,
        [qr{processed: [1-9]}],
        [qr{^(?:pgbench: setting random seed to $seed\n)?$}],
        "inserts and scans compared with a sequential scan $while",
        {
            "insert_$pgbench_runs\@3" => q{
                INSERT INTO t (sh) SELECT ('x' || substr(md5(random()::text), 1, 16))::bit(64)::simhash
                FROM generate_series(1, 2000);
            },
            "check_$pgbench_runs\@1" => q{
                BEGIN ISOLATION LEVEL REPEATABLE READ;
                SELECT 1 / (mismatches(2) = 0)::int;
                COMMIT;
            },
        });
    return;
}

# Starts, in another session, a loop that every 5 ms (for at most 5 minutes) runs $each and ends
# once $exit_when holds, both on fresh statistics; returns the session, whose quit waits for it.
sub background_loop
{
    my ($each, $exit_when) = @_;
    my $bg = $node->background_psql('postgres');
    $bg->query_until(qr/looping/, qq{
        \\echo looping
        DO \$\$
        BEGIN
            FOR i IN 1 .. 60000 LOOP
                PERFORM pg_stat_clear_snapshot();
                $each
                EXIT WHEN $exit_when;
                PERFORM pg_sleep(0.005);
            END LOOP;
        END \$\$;
    });
    return $bg;
}

# Runs $code while another session samples the merges under way every 5 ms into the table seen.
sub watch_merges
{
    my ($code) = @_;
    $node->safe_psql('postgres', q{
        DROP TABLE IF EXISTS seen, watch_stop;
        CREATE TABLE seen (backend_type text, vacuum_phase text, relid regclass, indexrelid regclass,
                           phase text, rows_total bigint, rows_done bigint);
        CREATE TABLE watch_stop ();});
    my $bg = background_loop(q{
        INSERT INTO seen
        SELECT a.backend_type, v.phase, m.relid, m.indexrelid, m.phase, m.rows_total, m.rows_done
        FROM simhash_mih_merge_progress m JOIN pg_stat_progress_vacuum v USING (pid)
        JOIN pg_stat_activity a USING (pid);},
        'EXISTS (SELECT FROM watch_stop)');
    $code->();
    $node->safe_psql('postgres', 'INSERT INTO watch_stop DEFAULT VALUES');
    $bg->quit;
}

# What the sampler saw of one kind of backend's merges of t_mih: whether it saw some, each in
# VACUUM's index cleanup of t with a phase of its own, rows done at most rows to do, and the most
# rows to do (at least the two big runs merged).
sub seen_merges
{
    my ($backend_type) = @_;
    return $node->safe_psql('postgres', qq{
        SELECT count(*) > 0 AND bool_and(relid = 't'::regclass AND indexrelid = 't_mih'::regclass
                                        AND vacuum_phase = 'cleaning up indexes' AND phase IS NOT NULL
                                        AND rows_done <= rows_total)
               AND max(rows_total) >= 2 * 297984
        FROM seen WHERE backend_type = '$backend_type'});
}

# Writers and checked readers at once, from just below 4 big runs to beyond: the worker's merge is
# installed under their feet.
fill(1_150_000);
watch_merges(sub {
insert_and_check(70, 7, 'while runs flush and merge');
fill(1_350_000);
settle();
});
is(seen_merges('simhash_mih merge'), 't', "the worker's merge showed in pg_stat_progress_vacuum and simhash_mih_merge_progress");
ok($node->safe_psql('postgres', q{SELECT count(*) > 0 FROM seen WHERE backend_type = 'simhash_mih merge' AND rows_total < 297984}) eq 't',
    'the worker merged small runs too');
is($node->safe_psql('postgres', 'SELECT count(*) FROM simhash_mih_merge_progress'), '0', 'and left them when it ended');
is($node->safe_psql('postgres', $big), '3', 'the worker keeps 3 big runs, without a VACUUM');
ok($node->safe_psql('postgres', q{SELECT max(rows) >= 2 * 297984 FROM simhash_mih_runs('t_mih')}) eq 't',
    'two big runs were merged into one');
ok($node->safe_psql('postgres', q{SELECT count(*) FROM pg_stat_all_tables WHERE relname = 't' AND vacuum_count + autovacuum_count > 0}) eq '0',
    'no VACUUM ran');
is($node->safe_psql('postgres', 'SELECT mismatches(12)'), '0', 'the index answers like a sequential scan');
is($node->safe_psql('postgres', q{SELECT live_sorted_rows + pending_rows = (SELECT count(*) FROM t) FROM simhash_mih_check('t_mih')}),
    't', 'every row is in the index once and every run passes simhash_mih_check');

# A temporary table's index: no other process can read its pages, so its inserter merges.
my $temp = $node->safe_psql('postgres', q{
    CREATE TEMP TABLE tt (id bigserial, sh simhash);
    CREATE INDEX tt_mih ON tt USING simhash_mih (sh) WITH (pending_limit = 64);
    DO $$
    BEGIN
        FOR b IN 1 .. 1250 LOOP
            INSERT INTO tt (sh) SELECT ('x' || substr(md5(random()::text), 1, 16))::bit(64)::simhash
            FROM generate_series(1, 1000);
        END LOOP;
    END $$;
    SELECT count(*) FILTER (WHERE tier >= 3) || ' ' || (max(rows) >= 2 * 297984) FROM simhash_mih_runs('tt_mih')});
is($temp, '3 true', 'a temporary index keeps 3 big runs: its inserter merged two');
unlike(slurp_file($node->logfile), qr/temporary tables of other sessions|background worker "simhash_mih merge".*exited with exit code 1/,
    'no merge worker failed');

# No worker slot: a fourth big run waits for VACUUM. The inserters merge the runs above the
# smallest tier only once they take half the run slots, so 700k rows make one.
$node->safe_psql('postgres', 'ALTER SYSTEM SET max_worker_processes = 0');
$node->restart;
fill(2_050_000);
ok($node->safe_psql('postgres', $big) > 3, 'without a worker slot, big runs wait');
watch_merges(sub { $node->safe_psql('postgres', 'VACUUM t'); });
is(seen_merges('client backend'), 't', "VACUUM's merge showed in simhash_mih_merge_progress");
ok($node->safe_psql('postgres', $big) <= 3, 'VACUUM merges them');
is($node->safe_psql('postgres', 'SELECT mismatches(12)'), '0', 'the index still answers like a sequential scan');
is($node->safe_psql('postgres', q{SELECT live_sorted_rows + pending_rows = (SELECT count(*) FROM t) FROM simhash_mih_check('t_mih')}),
    't', 'and passes simhash_mih_check');

# An inserter merges only the smallest tier: 81,000 rows, 17 flushes of 4,656, make four runs of
# tier 1, which it leaves for the worker (none here) or VACUUM.
my $tiers = q{SELECT string_agg(tier || ':' || n, ' ' ORDER BY tier) FROM
              (SELECT tier, count(*) n FROM simhash_mih_runs('t2_mih') GROUP BY tier) s};
$node->safe_psql('postgres', q{
    CREATE TABLE t2 (id bigserial, sh simhash);
    CREATE INDEX t2_mih ON t2 USING simhash_mih (sh) WITH (pending_limit = 64);});
# Empties t2, then inserts 81,000 rows in statements of 1,000.
sub refill_t2
{
    $node->safe_psql('postgres', 'TRUNCATE t2');
    fill(80_000, 't2');
}
refill_t2();
is($node->safe_psql('postgres', $tiers), '0:1 1:4', "the inserters merged tier 0 only, leaving tier 1's four runs");
$node->safe_psql('postgres', 'VACUUM t2');
like($node->safe_psql('postgres', $tiers), qr/^(0:\d )?2:1$/, 'VACUUM merges them');

# A merge of every run shows the same way.
watch_merges(sub { $node->safe_psql('postgres', q{SELECT simhash_mih_merge('t_mih')}); });
is(seen_merges('client backend'), 't', "simhash_mih_merge's merge showed in simhash_mih_merge_progress");
is($node->safe_psql('postgres', q{SELECT count(*) FROM simhash_mih_runs('t_mih')}), '1', 'and merged every run');

# With a worker slot, the worker merges tier 1's four runs that the inserters leave.
$node->safe_psql('postgres', 'ALTER SYSTEM RESET max_worker_processes');
$node->restart;
refill_t2();
for (1 .. 600)
{
    last if $node->safe_psql('postgres', $worker_active) eq '0' && $node->safe_psql('postgres', $tiers) =~ /2:1$/;
    usleep(100_000);
}
is($node->safe_psql('postgres', $tiers), '0:1 2:1', 'the worker merges the runs of tier 1 that the inserters leave');
is($node->safe_psql('postgres', q{SELECT live_sorted_rows + pending_rows = (SELECT count(*) FROM t2) FROM simhash_mih_check('t2_mih')}),
    't', 'into a run that passes simhash_mih_check');

# Once the biggest run is the index's base (four big runs' rows or more), the other runs merge
# into it as soon as they hold a sixteenth of its rows (base_share, 16 by default): the worker
# does it, waiting out the inserters' small merges, while inserts and checked scans go on.
my $base = $node->safe_psql('postgres', q{SELECT max(rows) FROM simhash_mih_runs('t_mih')});
cmp_ok($base, '>=', 4 * 297984, "that run has four big runs' rows: it is the index's base");
my $vacuums = q{SELECT vacuum_count + autovacuum_count FROM pg_stat_all_tables WHERE relname = 't'};
my $vacuums_before = $node->safe_psql('postgres', $vacuums);
my $base_due = q{SELECT (sum(rows) - max(rows)) * 16 >= max(rows) FROM simhash_mih_runs('t_mih')};
# With base_share = 0 they never merge into it.
$node->safe_psql('postgres', 'ALTER INDEX t_mih SET (base_share = 0)');
fill(int($base + $base / 16 + 10_000));
settle();
is($node->safe_psql('postgres', $base_due), 't', 'with base_share = 0 the other runs stay beside the base run');
is($node->safe_psql('postgres', q{SELECT max(rows) FROM simhash_mih_runs('t_mih')}), $base, 'which keeps its rows');
$node->safe_psql('postgres', 'ALTER INDEX t_mih RESET (base_share)');
watch_merges(sub {
insert_and_check(40, 8, 'while the other runs merge into the base run');
for (1 .. 600)
{
    last if $node->safe_psql('postgres', $worker_active) eq '0'
      && $node->safe_psql('postgres', $base_due) eq 'f';
    usleep(100_000);
}
});
ok($node->safe_psql('postgres', qq{SELECT max(rows) > $base FROM simhash_mih_runs('t_mih')}) eq 't',
    'the worker merged the other runs into the base run');
is($node->safe_psql('postgres', $base_due), 'f', 'the other runs hold less than a sixteenth of its rows now');
ok($node->safe_psql('postgres', qq{SELECT max(rows_total) > $base FROM seen WHERE backend_type = 'simhash_mih merge'}) eq 't',
    'the merge showed in simhash_mih_merge_progress');
is($node->safe_psql('postgres', $vacuums), $vacuums_before, 'no VACUUM ran');
is($node->safe_psql('postgres', 'SELECT mismatches(12)'), '0', 'the index answers like a sequential scan');
is($node->safe_psql('postgres', q{SELECT live_sorted_rows + pending_rows = (SELECT count(*) FROM t) FROM simhash_mih_check('t_mih')}),
    't', 'every row is in the index once and every run passes simhash_mih_check');

# Beside the base, the other runs merge into one as soon as those but the biggest hold an eighth
# of its rows: the worker keeps that run and at most a few flushes' runs that do not reach it,
# where size tiers would leave runs of like sizes, a merge of four flushes each.
$base = $node->safe_psql('postgres', q{SELECT max(rows) FROM simhash_mih_runs('t_mih')});
my $beside = qq{SELECT count(*) || ' ' || coalesce((sum(rows) - max(rows)) * 8 < max(rows), true)
    FROM simhash_mih_runs('t_mih') WHERE rows < $base};
fill(int($node->safe_psql('postgres', 'SELECT count(*) FROM t') + $base / 32));
my $level_state;
for (1 .. 600)
{
    $level_state = $node->safe_psql('postgres', $beside);
    last if $node->safe_psql('postgres', $worker_active) eq '0' && $level_state =~ / true$/;
    usleep(100_000);
}
like($level_state, qr/^[1-4] true$/, 'the worker merges the runs beside the base once they reach an eighth of the biggest');
cmp_ok($node->safe_psql('postgres', qq{SELECT max(rows) FROM simhash_mih_runs('t_mih') WHERE rows < $base}),
    '>', 4 * 4656, 'one of them holds several flushes');
is($node->safe_psql('postgres', qq{SELECT max(rows) FROM simhash_mih_runs('t_mih')}), $base, 'and the base keeps its rows');
is($node->safe_psql('postgres', 'SELECT mismatches(12)'), '0', 'the index answers like a sequential scan');

# The worker marks the runs it merges into the base, and small merges leave marked runs. A worker
# killed in the middle leaves its marks: without a worker slot, the inserters' small merges still
# leave those runs, and VACUUM clears the marks and merges them into the base.
$base = $node->safe_psql('postgres', q{SELECT max(rows) FROM simhash_mih_runs('t_mih')});
$node->safe_psql('postgres', 'ALTER INDEX t_mih SET (base_share = 0)');
fill(int($node->safe_psql('postgres', 'SELECT count(*) FROM t') + $base / 16 + 10_000));
settle();
$node->safe_psql('postgres', 'ALTER INDEX t_mih RESET (base_share)');
# The worker is killed once its merge has rows to do: the runs are marked by then.
my $killer = background_loop('', q{
    EXISTS (SELECT FROM simhash_mih_merge_progress m JOIN pg_stat_activity a USING (pid)
            WHERE a.backend_type = 'simhash_mih merge' AND m.rows_total > 0
              AND pg_terminate_backend(m.pid))});
# One flush, so one worker: the rows that take the pending rows to the limit.
$node->safe_psql('postgres', q{
    INSERT INTO t (sh) SELECT ('x' || substr(md5(random()::text), 1, 16))::bit(64)::simhash
    FROM generate_series(1, (SELECT pending_limit_rows - pending_rows + 1 FROM simhash_mih_state('t_mih')))});
$killer->quit;
my $marked = q{SELECT count(*) FILTER (WHERE merging) || ' ' || coalesce(sum(rows) FILTER (WHERE merging), 0)
               FROM simhash_mih_runs('t_mih')};
my $marked_before = $node->safe_psql('postgres', $marked);
like($marked_before, qr/^([2-9]|\d\d+) /, 'a worker killed in its merge into the base leaves its runs marked');
$node->safe_psql('postgres', 'ALTER SYSTEM SET max_worker_processes = 0');
$node->restart;
my $small_merged = q{SELECT bool_or(NOT merging AND tier >= 1) FROM simhash_mih_runs('t_mih')};
is($node->safe_psql('postgres', $small_merged), 'f', 'no unmarked run was merged yet');
fill(int($node->safe_psql('postgres', 'SELECT count(*) FROM t') + 5 * 4656));
is($node->safe_psql('postgres', $small_merged), 't', 'the inserters merge the runs flushed since');
is($node->safe_psql('postgres', $marked), $marked_before, 'and leave the marked ones');
$node->safe_psql('postgres', 'VACUUM t');
is($node->safe_psql('postgres', qq{SELECT count(*) FILTER (WHERE merging) || ' ' || (max(rows) > $base)
                                  FROM simhash_mih_runs('t_mih')}),
    '0 true', 'VACUUM clears the marks and merges the runs into the base');
is($node->safe_psql('postgres', 'SELECT mismatches(12)'), '0', 'the index answers like a sequential scan');
is($node->safe_psql('postgres', q{SELECT live_sorted_rows + pending_rows = (SELECT count(*) FROM t) FROM simhash_mih_check('t_mih')}),
    't', 'and passes simhash_mih_check');

# The worker marks the runs of its merges of small runs too, and merges them without the small
# merges' lock (LOCK_RUNS, the index's page lock 1), so that the inserters' merges go on beside
# it. One flush at a time until tiers 0, 1 and 2 of t2 hold three runs each: the next flush makes
# a fourth run of each tier in turn (the inserter merges tier 0, the worker tiers 1 and 2), and the
# worker's merge of tier 2 (4 x 74,512 rows) is killed.
$node->safe_psql('postgres', 'ALTER SYSTEM RESET max_worker_processes');
$node->restart;
my $one_flush = q{
    INSERT INTO t2 (sh) SELECT ('x' || substr(md5(random()::text), 1, 16))::bit(64)::simhash
    FROM generate_series(1, (SELECT pending_limit_rows - pending_rows + 1 FROM simhash_mih_state('t2_mih')))};
my $small_due = q{SELECT count(*) FROM (SELECT FROM simhash_mih_runs('t2_mih') WHERE tier <= 2 AND NOT merging
                                       GROUP BY tier HAVING count(*) >= 4) s};
for (1 .. 100)
{
    last if $node->safe_psql('postgres', $tiers) eq '0:3 1:3 2:3';
    $node->safe_psql('postgres', $one_flush);
    for (1 .. 600)
    {
        last if $node->safe_psql('postgres', $worker_active) eq '0' && $node->safe_psql('postgres', $small_due) eq '0';
        usleep(50_000);
    }
}
is($node->safe_psql('postgres', $tiers), '0:3 1:3 2:3', 'three runs in each small tier');
$node->safe_psql('postgres', 'CREATE TABLE worker_locks (rows_total bigint, holds_runs_lock bool)');
$killer = background_loop(q{
    INSERT INTO worker_locks
    SELECT m.rows_total, EXISTS (SELECT FROM pg_locks l WHERE l.pid = m.pid AND l.locktype = 'page'
                                 AND l.relation = 't2_mih'::regclass AND l.page = 1 AND l.granted)
    FROM simhash_mih_merge_progress m JOIN pg_stat_activity a USING (pid)
    WHERE a.backend_type = 'simhash_mih merge' AND m.phase IN ('reading runs', 'writing tables');},
    q{EXISTS (SELECT FROM simhash_mih_merge_progress m JOIN pg_stat_activity a USING (pid)
              WHERE a.backend_type = 'simhash_mih merge' AND m.rows_total >= 4 * 74496
                AND pg_terminate_backend(m.pid))});
$node->safe_psql('postgres', $one_flush);
$killer->quit;
is($node->safe_psql('postgres', q{SELECT count(*) FILTER (WHERE rows_total >= 4 * 74496) > 0
                                         AND NOT bool_or(holds_runs_lock) FROM worker_locks}),
    't', "the worker merged tier 2 without the small merges' lock");
$marked = q{SELECT count(*) FILTER (WHERE merging) || ' ' || coalesce(sum(rows) FILTER (WHERE merging), 0)
            FROM simhash_mih_runs('t2_mih')};
is($node->safe_psql('postgres', $marked), '4 298048', 'a worker killed in its merge of tier 2 leaves its four runs marked');
$node->safe_psql('postgres', 'ALTER SYSTEM SET max_worker_processes = 0');
$node->restart;
$node->safe_psql('postgres', $one_flush) for 1 .. 4;
is($node->safe_psql('postgres', q{SELECT string_agg(tier || ':' || merging || ':' || n, ' ' ORDER BY tier, merging) FROM
                                  (SELECT tier, merging, count(*) n FROM simhash_mih_runs('t2_mih') GROUP BY 1, 2) s}),
    '1:false:1 2:true:4', 'the inserters merge the runs flushed since beside the marked ones');
$node->safe_psql('postgres', 'VACUUM t2');
is($node->safe_psql('postgres', q{SELECT string_agg(tier || ':' || rows || ':' || merging, ' ' ORDER BY tier)
                                  FROM simhash_mih_runs('t2_mih')}),
    '1:18628:false 3:298048:false', 'VACUUM clears the marks and merges the runs of tier 2');
is($node->safe_psql('postgres', q{SELECT live_sorted_rows + pending_rows = (SELECT count(*) FROM t2) FROM simhash_mih_check('t2_mih')}),
    't', 'every row of t2 is in its index once and every run passes simhash_mih_check');

$node->stop;
done_testing();
