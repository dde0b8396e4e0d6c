# Several clients insert into an indexed table while others run radius and nearest-neighbour
# queries and VACUUM (pgbench): no errors, and afterwards each index answers what a sequential
# scan answers.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my @indexes = ('USING gist (sh)', 'USING gin (sh simhash_mih_ops)', 'USING simhash_mih (sh)',
    'USING simhash_mih (sh) WITH (compact = on)');

my $node = PostgreSQL::Test::Cluster->new('concurrency');
$node->init;
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION simhash');

for my $n (0 .. $#indexes)
{
    my $def = $indexes[$n];
    $node->safe_psql('postgres', qq{
        DROP TABLE IF EXISTS t;
        CREATE TABLE t (id bigserial, sh simhash);
        INSERT INTO t (sh) SELECT ('x' || substr(md5(g::text), 1, 16))::bit(64)::simhash FROM generate_series(1, 5000) g;
        CREATE INDEX t_idx ON t $def;
    });
    $node->pgbench(
        '--no-vacuum --client=6 --jobs=3 --transactions=150 --random-seed=7',
        0,
        [qr{processed: 900/900}],
        [qr{^(?:pgbench: setting random seed to 7\n)?$}],
        "$def: concurrent inserts and queries",
        {
            "insert_$n" => q{
                \set r random(1, 1000000000)
                INSERT INTO t (sh) SELECT ('x' || substr(md5((:r + g)::text), 1, 16))::bit(64)::simhash FROM generate_series(1, 20) g;
            },
            "radius_$n" => q{
                \set r random(1, 1000000)
                SELECT count(*) FROM t WHERE hamming(sh, ('x' || substr(md5(:r::text), 1, 16))::bit(64)::simhash) <= 6;
            },
            "vacuum_$n" => q{
                VACUUM t;
            },
            "knn_$n" => q{
                \set r random(1, 1000000)
                SELECT id FROM t ORDER BY sh <-> ('x' || substr(md5(:r::text), 1, 16))::bit(64)::simhash LIMIT 5;
            },
        });
    is($node->safe_psql('postgres', q{
        SET enable_seqscan = off; SET enable_bitmapscan = off;
        SELECT count(*) FROM generate_series(1, 40) q,
        LATERAL (SELECT array_agg(id ORDER BY id) AS ids FROM t
                 WHERE hamming(sh, ('x' || substr(md5(q::text), 1, 16))::bit(64)::simhash) <= 12) i,
        LATERAL (SELECT array_agg(id ORDER BY id) AS ids FROM t
                 WHERE hamming(sh::bigint, ('x' || substr(md5(q::text), 1, 16))::bit(64)::bigint) <= 12) s
        WHERE i.ids IS DISTINCT FROM s.ids}), '0', "$def: index equals sequential scan after the concurrent run");
    if ($def =~ /USING simhash_mih/)
    {
        is($node->safe_psql('postgres', q{
            SELECT live_sorted_rows + pending_rows = (SELECT count(*) FROM t) FROM simhash_mih_check('t_idx')}),
            't', "$def: the index passes its consistency check and holds every row");

        # A scan ordered by distance, overtaken by a merge between two fetches, goes on through
        # the new tables from the last row it returned.
        my $expected = $node->safe_psql('postgres', q{
            SELECT string_agg(d::text, ' ' ORDER BY d) FROM (SELECT hamming(sh::bigint, 0)::int AS d FROM t) s});
        my $bg = $node->background_psql('postgres');
        $bg->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ');
        $bg->query_safe('SET LOCAL enable_seqscan = off');
        $bg->query_safe('SET LOCAL enable_sort = off');
        $bg->query_safe(q{DECLARE c CURSOR FOR SELECT (sh <-> '0')::int FROM t ORDER BY sh <-> '0'});
        my $first = $bg->query_safe('FETCH 300 FROM c');
        my $build = $node->safe_psql('postgres', q{SELECT sorted_rows FROM simhash_mih_check('t_idx')});
        $node->safe_psql('postgres', q{
            INSERT INTO t (sh) SELECT ('x' || substr(md5('late' || g), 1, 16))::bit(64)::simhash FROM generate_series(1, 3000) g;
            VACUUM t;});
        isnt($node->safe_psql('postgres', q{SELECT sorted_rows FROM simhash_mih_check('t_idx')}), $build,
            "$def: VACUUM merged while the cursor was open");
        my $rest = $bg->query_safe('FETCH ALL FROM c');
        $bg->query_safe('COMMIT');
        $bg->quit;
        is(join(' ', split(/\n/, "$first\n$rest")), $expected,
            "$def: the ordered scan returns every row once, in order, across the merge");
    }
}

$node->stop;
done_testing();
