# A streaming replica, built from WAL alone, answers radius and nearest-neighbour queries through
# each simhash index exactly as the primary does.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my @indexes = ('USING gist (sh)', 'USING gin (sh simhash_mih_ops)', 'USING simhash_mih (sh)',
    'USING simhash_mih (sh) WITH (compact = on)');

my $primary = PostgreSQL::Test::Cluster->new('primary');
$primary->init(allows_streaming => 1);
$primary->start;
$primary->safe_psql('postgres', 'CREATE EXTENSION simhash');
$primary->backup('base');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'base', has_streaming => 1);
$standby->start;

my $answers = q{
    SET enable_seqscan = off; SET enable_bitmapscan = off;
    SELECT md5(string_agg(r, ',' ORDER BY q)) FROM (
        SELECT q, (SELECT string_agg(id::text, ' ' ORDER BY id) FROM t
                   WHERE hamming(sh, ('x' || substr(md5(q::text), 1, 16))::bit(64)::simhash) <= 10)
               || '|' || (SELECT string_agg(d::text, ' ') FROM (
                   SELECT (sh <-> ('x' || substr(md5(q::text), 1, 16))::bit(64)::simhash)::int AS d FROM t
                   ORDER BY sh <-> ('x' || substr(md5(q::text), 1, 16))::bit(64)::simhash LIMIT 5) k) AS r
        FROM generate_series(1, 30) q) s};

for my $def (@indexes)
{
    $primary->safe_psql('postgres', qq{
        DROP TABLE IF EXISTS t;
        CREATE TABLE t (id bigint, sh simhash);
        INSERT INTO t SELECT g, ('x' || substr(md5(g::text), 1, 16))::bit(64)::simhash FROM generate_series(1, 10000) g;
        CREATE INDEX t_idx ON t $def;
        INSERT INTO t SELECT 100000 + id, sh # (1::bigint << (id % 64)::int)::simhash FROM t WHERE id <= 3000;
        DELETE FROM t WHERE id % 11 = 0;
        VACUUM t;
    });
    $primary->wait_for_catchup($standby);
    my $on_primary = $primary->safe_psql('postgres', $answers);
    is($standby->safe_psql('postgres', $answers), $on_primary, "$def: standby answers as the primary");
    if ($def =~ /USING simhash_mih/)
    {
        # VACUUM merged the pending rows on the primary; the standby replayed the new tables.
        is($standby->safe_psql('postgres', q{SELECT pending_rows FROM simhash_mih_check('t_idx')}),
            '0', "$def: the standby's index passes its consistency check, merged");
    }
    like($standby->safe_psql('postgres', q{SET enable_seqscan = off; EXPLAIN (COSTS OFF)
            SELECT id FROM t WHERE hamming(sh, '0') <= 5}), qr/t_idx/, "$def: the standby uses the index");
    if ($def !~ /USING gin/)
    {
        like($standby->safe_psql('postgres', q{EXPLAIN (COSTS OFF)
                SELECT id FROM t ORDER BY sh <-> '0' LIMIT 5}), qr/Index Scan using t_idx/,
            "$def: the standby orders by distance through the index");
    }
}

$standby->stop;
$primary->stop;
done_testing();
