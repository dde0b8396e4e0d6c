# A simhash_mih index under continuous ingestion stays exact: with a small pending_limit, clients
# insert, update and delete (so inserts flush and merge runs), others force merges and VACUUM,
# while others compare, inside one REPEATABLE READ snapshot, the index's radius and nearest-
# neighbour answers with a sequential scan's (a mismatch is an error, which fails pgbench).
# Then the server is killed (immediate stop) in the middle of a merge of every run: the recovered
# index and a streaming replica answer like a sequential scan and pass simhash_mih_check.
# On every major: a crash in a merge, its WAL replay and a standby are the server's.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);

my $node = PostgreSQL::Test::Cluster->new('runs');
$node->init(allows_streaming => 1);
# The standby below has no slot: the primary keeps the WAL it may still need on a slow machine.
# The runs checked are the merges' and VACUUM's, not those of a settle once the writers paused (t/014).
$node->append_conf('postgresql.conf', "autovacuum_naptime = 1s\nwal_keep_size = 512MB\nsimhash.settle_delay = -1\n");
$node->start;
$node->safe_psql('postgres', q{
    CREATE EXTENSION simhash;
    -- Radius and nearest neighbours through the index against a sequential scan, in the
    -- caller's snapshot.
    CREATE FUNCTION check_answers(q simhash, k int) RETURNS void LANGUAGE plpgsql AS $$
    DECLARE a bigint[]; b int[];
    BEGIN
        PERFORM set_config('enable_seqscan', 'off', true);
        PERFORM set_config('enable_bitmapscan', 'off', true);
        SELECT array_agg(id ORDER BY id) INTO a FROM t WHERE hamming(sh, q) <= k;
        SELECT array_agg(d) INTO b FROM (SELECT (sh <-> q)::int AS d FROM t ORDER BY sh <-> q LIMIT 10) s;
        PERFORM set_config('enable_seqscan', 'on', true);
        PERFORM set_config('enable_indexscan', 'off', true);
        IF a IS DISTINCT FROM (SELECT array_agg(id ORDER BY id) FROM t WHERE hamming(sh::bigint, q::bigint) <= k) THEN
            RAISE EXCEPTION 'radius % around % differs from a sequential scan', k, q;
        END IF;
        IF b IS DISTINCT FROM (SELECT array_agg(d) FROM (SELECT hamming(sh::bigint, q::bigint)::int AS d FROM t
                               WHERE sh IS NOT NULL ORDER BY 1 LIMIT 10) s) THEN
            RAISE EXCEPTION 'nearest neighbours of % differ from a sequential scan', q;
        END IF;
        PERFORM set_config('enable_indexscan', 'on', true);
    END $$;
});

my $compare = q{
    SET enable_seqscan = off; SET enable_bitmapscan = off;
    SELECT count(*) FROM generate_series(0, 12) q,
    LATERAL (SELECT ('x' || substr(md5(q::text), 1, 16))::bit(64)::simhash AS h) qh,
    LATERAL (SELECT array_agg(id ORDER BY id) AS ids FROM t WHERE hamming(sh, qh.h) <= 10) i,
    LATERAL (SELECT array_agg(id ORDER BY id) AS ids FROM t WHERE hamming(sh::bigint, qh.h::bigint) <= 10) s,
    LATERAL (SELECT array_agg(d) AS ds FROM (SELECT (sh <-> qh.h)::int AS d FROM t ORDER BY sh <-> qh.h LIMIT 25) x) ki,
    LATERAL (SELECT array_agg(d ORDER BY d) AS ds FROM (SELECT hamming(sh::bigint, qh.h::bigint)::int AS d FROM t
             WHERE sh IS NOT NULL ORDER BY 1 LIMIT 25) y) ks
    WHERE i.ids IS DISTINCT FROM s.ids OR ki.ds IS DISTINCT FROM ks.ds};
# simhash_mih_check raises index_corrupted on any violation in any run; a scan of the whole index
# (radius 64) returns every row once. (Counts of index entries are not compared with the table's:
# a dead row stays in the index while some snapshot, e.g. autovacuum's, may still see it.)
my $consistent = q{
    SET enable_seqscan = off; SET enable_bitmapscan = off;
    SELECT c.live_sorted_rows <= c.sorted_rows AND c.free_pages < c.pages
           AND (SELECT count(*) FROM t WHERE sh <@ hamming_ball('0', 64)) = (SELECT count(sh) FROM t)
           AND (SELECT count(DISTINCT id) FROM t WHERE sh <@ hamming_ball('0', 64)) = (SELECT count(sh) FROM t)
    FROM simhash_mih_check('t_mih') c};

my @variants = ('WITH (pending_limit = 64)', 'WITH (pending_limit = 64, compact = on)');
for my $n (0 .. $#variants)
{
    my $with = $variants[$n];
    $node->safe_psql('postgres', qq{
        DROP TABLE IF EXISTS t;
        CREATE TABLE t (id bigserial, sh simhash);
        INSERT INTO t (sh) SELECT ('x' || substr(md5(g::text), 1, 16))::bit(64)::simhash FROM generate_series(1, 20000) g;
        INSERT INTO t (sh) SELECT NULL FROM generate_series(1, 10);
        CREATE INDEX t_mih ON t USING simhash_mih (sh) $with;
    });
    $node->pgbench(
        '--no-vacuum --client=6 --jobs=2 --time=12 --random-seed=11',
        0,
        [qr{processed: [1-9]}],
        [qr{^(?:pgbench: setting random seed to 11\n)?$}],
        "$with: inserts, updates, deletes, merges, VACUUM and checked scans at once",
        {
            "insert_$n" => q{
                \set r random(1, 1000000000)
                INSERT INTO t (sh) SELECT ('x' || substr(md5((:r + g)::text), 1, 16))::bit(64)::simhash FROM generate_series(1, 50) g;
            },
            "change_$n" => q{
                \set r random(1, 20000)
                UPDATE t SET sh = sh # '0000000000010001' WHERE id BETWEEN :r AND :r + 20;
                DELETE FROM t WHERE id BETWEEN :r + 30 AND :r + 40;
                INSERT INTO t (sh) SELECT sh FROM t WHERE id BETWEEN :r + 50 AND :r + 60;
            },
            "check_$n" => q{
                \set r random(1, 1000000)
                BEGIN ISOLATION LEVEL REPEATABLE READ;
                SELECT check_answers(('x' || substr(md5(:r::text), 1, 16))::bit(64)::simhash, 8);
                SELECT check_answers(sh, 3) FROM t WHERE id = :r % 20000 + 1;
                COMMIT;
            },
            "maintain_$n" => q{
                \set r random(1, 4)
                SELECT CASE WHEN :r = 1 THEN simhash_mih_merge('t_mih') END;
                VACUUM t;
            },
        });
    my $state = $node->safe_psql('postgres',
        q{SELECT inserted_rows, written_rows, runs FROM simhash_mih_state('t_mih')});
    note("$with: inserted, written, runs after the run: $state");
    is($node->safe_psql('postgres', $compare), '0', "$with: index equals a sequential scan after the run");
    is($node->safe_psql('postgres', $consistent), 't', "$with: every run passes simhash_mih_check");
}

# The crash: a table whose index has many runs, a streaming replica, and an immediate stop while
# simhash_mih_merge writes the merged run.
$node->safe_psql('postgres', q{
    DROP TABLE t;
    CREATE TABLE t (id bigserial, sh simhash);
    CREATE INDEX t_mih ON t USING simhash_mih (sh) WITH (pending_limit = 64);
    INSERT INTO t (sh) SELECT ('x' || substr(md5(g::text), 1, 16))::bit(64)::simhash FROM generate_series(1, 300000) g;
    DELETE FROM t WHERE id % 10 = 0;
    VACUUM t;
});
$node->backup('b');
my $standby = PostgreSQL::Test::Cluster->new('runs_standby');
$standby->init_from_backup($node, 'b', has_streaming => 1);
$standby->start;
$node->safe_psql('postgres', q{
    INSERT INTO t (sh) SELECT ('x' || substr(md5('more' || g), 1, 16))::bit(64)::simhash FROM generate_series(1, 20000) g;
    CHECKPOINT;});
my $runs = $node->safe_psql('postgres', q{SELECT runs FROM simhash_mih_state('t_mih')});
cmp_ok($runs, '>', 2, 'several runs before the merge');

my $bg = $node->background_psql('postgres', on_error_stop => 0);
$bg->query_until(qr/started/, q{
    \echo started
    SELECT simhash_mih_merge('t_mih');
});
# Wait until the merge is under way (a merge of 300k rows takes about 0.2 s here), then kill
# the server.
for (1 .. 500)
{
    last if $node->safe_psql('postgres', q{
        SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'SELECT simhash_mih_merge%' AND state = 'active'}) > 0;
    usleep(10_000);
}
usleep(50_000);
$node->stop('immediate');
eval { $bg->quit; };
$node->start;
note('runs after recovery (1: the merge had finished): ',
    $node->safe_psql('postgres', q{SELECT runs FROM simhash_mih_state('t_mih')}));
$node->wait_for_catchup($standby, 'replay', $node->lsn('insert'));
is($node->safe_psql('postgres', $compare), '0', 'after a crash during a merge: index equals a sequential scan');
is($node->safe_psql('postgres', $consistent), 't', 'after a crash during a merge: the index passes its check');
is($standby->safe_psql('postgres', $compare), '0', 'the replica answers like a sequential scan');
# The interrupted merge is done again, inserts go on, and the replica follows.
$node->safe_psql('postgres', q{
    SELECT simhash_mih_merge('t_mih');
    INSERT INTO t (sh) SELECT ('x' || substr(md5('after' || g), 1, 16))::bit(64)::simhash FROM generate_series(1, 10000) g;});
is($node->safe_psql('postgres', q{SELECT runs <= 3 FROM simhash_mih_state('t_mih')}), 't', 'merged again after recovery');
$node->wait_for_catchup($standby, 'replay', $node->lsn('insert'));
is($node->safe_psql('postgres', $compare), '0', 'after the second merge: index equals a sequential scan');
is($standby->safe_psql('postgres', $compare), '0', 'after the second merge: the replica too');
is($node->safe_psql('postgres', $consistent), 't', 'after the second merge: the index passes its check');

$standby->stop;
$node->stop;
done_testing();
