# Every run of a simhash_mih index has a build id of its own, even when runs are written in one
# microsecond. A run's pages carry its id's tag, and backends cache a run's directory by its id:
# when the id was the time at which the run was written, a flush and a merge that read the same
# microsecond made two runs of one tag (of one id, in one backend), and the scans that followed
# found pages of another build (index_corrupted) or a run that was gone. Here the server's clock stands still (libfaketime), so that every run
# reads the same microsecond: one backend's flushes and merges, then several backends' at once. The
# index answers as a sequential scan and passes simhash_mih_check (every run's id given out, every
# tag its own).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use POSIX qw(strftime);
use t::MihScans;

my ($faketime) = glob('/usr/lib/*/faketime/libfaketime.so.1');
plan skip_all => 'libfaketime is not installed' unless $faketime;

my $node = PostgreSQL::Test::Cluster->new('build_ids');
$node->init;
$node->append_conf('postgresql.conf', "autovacuum = off\nsimhash.settle_delay = -1\n");
# The server's clock only (pg_ctl, psql and pgbench keep real time) stands still, a minute ahead:
# pg_ctl takes a server that started before it for another one. In UTC, which has one hour of each
# name.
my $frozen = strftime('%Y-%m-%d %H:%M:%S', gmtime(time + 60));
{
    local $ENV{LD_PRELOAD} = $faketime;
    local $ENV{FAKETIME} = $frozen;
    local $ENV{FAKETIME_ONLY_CMDS} = 'postgres';
    local $ENV{TZ} = 'UTC';
    $node->start;
}
# Nor do the server's timeouts end (they compare deadlines with its clock): a lock wait that the
# deadlock check would end would hang. The test's own clock ends it.
local $SIG{ALRM} = sub { die "t/015 took over ten minutes: a wait that no timeout of the server ends\n" };
alarm(600);

$node->safe_psql('postgres', q{
    CREATE EXTENSION simhash;
    CREATE TABLE t (id bigserial, sh simhash);
    CREATE INDEX t_mih ON t USING simhash_mih (sh) WITH (pending_limit = 64);
});
create_mismatches($node);
my $started = $node->safe_psql('postgres', 'SELECT clock_timestamp()');

my $checked = q{
    SET enable_seqscan = off; SET enable_bitmapscan = off;
    SELECT (SELECT count(*) FROM t WHERE sh <@ hamming_ball('0', 64)) = (SELECT count(*) FROM t)
           AND c.sorted_rows + c.pending_rows = (SELECT count(*) FROM t)
    FROM simhash_mih_check('t_mih') c};

# One statement: each flush and the merges after it in one backend, a few at each microsecond.
$node->safe_psql('postgres', q{
    INSERT INTO t (sh) SELECT ('x' || substr(md5(g::text), 1, 16))::bit(64)::simhash FROM generate_series(1, 100000) g;
});
cmp_ok($node->safe_psql('postgres', q{SELECT written_rows FROM simhash_mih_state('t_mih')}), '>', 100000,
    'one backend flushed and merged');
is($node->safe_psql('postgres', 'SELECT clock_timestamp()'), $started, 'in one microsecond of the server\'s clock');
is($node->safe_psql('postgres', q{SELECT mismatches(40)}), '0',
    'one backend: the index answers as a sequential scan');
is($node->safe_psql('postgres', $checked), 't', 'one backend: every run checks clean');

# Several backends flush and merge at once (counts of transactions: pgbench's time is real).
$node->pgbench(
    '--no-vacuum --client=4 --jobs=2 --transactions=150 --random-seed=3',
    0,
    [qr{processed: 600/600}],
    [qr{^(?:pgbench: setting random seed to 3\n)?$}],
    'several backends insert, merge and vacuum at once',
    {
        'insert@6' => q{
            \set r random(1, 1000000000)
            INSERT INTO t (sh) SELECT ('x' || substr(md5((:r + g)::text), 1, 16))::bit(64)::simhash FROM generate_series(1, 200) g;
        },
        'maintain@1' => q{
            \set r random(1, 2)
            SELECT CASE WHEN :r = 1 THEN simhash_mih_merge('t_mih') END;
            VACUUM t;
        },
        'scan@2' => q{
            BEGIN ISOLATION LEVEL REPEATABLE READ;
            SELECT 1 / (mismatches(2) = 0)::int;
            COMMIT;
        },
    });
is($node->safe_psql('postgres', q{SELECT mismatches(40)}), '0',
    'several backends: the index answers as a sequential scan');
is($node->safe_psql('postgres', $checked), 't', 'several backends: every run checks clean');
is($node->safe_psql('postgres', 'SELECT clock_timestamp()'), $started, 'all in that microsecond');

alarm(0);
$node->stop;
done_testing();
