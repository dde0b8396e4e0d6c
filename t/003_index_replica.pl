# A streaming replica, built from WAL alone, answers radius and nearest-neighbour queries through
# each simhash index exactly as the primary does; its simhash_mih scans and simhash_mih_check keep
# answering while it replays flushes and merges that recycle the pages they read.
# On every major: streaming replication and the standby's replay are the server's.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use t::MihScans;

my @indexes = ('USING gist (sh)', 'USING gin (sh simhash_mih_ops)', 'USING simhash_mih (sh)',
    'USING simhash_mih (sh) WITH (compact = on)');

my $primary = PostgreSQL::Test::Cluster->new('primary');
# initdb turns data checksums on from PostgreSQL 18: the page damaged at the end would end in the
# server's own checksum error (XX001) before the check sees it.
$primary->init(allows_streaming => 1, $primary->pg_version >= 18 ? (extra => ['--no-data-checksums']) : ());
# The index is to stand still once the writers stop (its damaged page below): no settle (t/014).
$primary->append_conf('postgresql.conf', "simhash.settle_delay = -1\n");
$primary->start;
# The standby streams through a slot, so that the primary keeps the WAL it has not received yet
# (a checkpoint every 64 MB recycles it otherwise: max_wal_size = 128MB) on a slow machine.
$primary->safe_psql('postgres', q{
    CREATE EXTENSION simhash;
    SELECT pg_create_physical_replication_slot('standby', true);});
$primary->backup('base');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'base', has_streaming => 1);
$standby->append_conf('postgresql.conf', "primary_slot_name = 'standby'\n");
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

# A hot standby replays a merge without waiting for its scans, so a scan may find the pages of a
# run recycled, even reused, when it first reads that run's directory and filters: it must start
# over, never report damage or miss rows. Writers on the primary flush a run every 4,656 rows and
# merge them, while new connections to the standby (each reads every run's directory afresh)
# compare the index's answers with a sequential scan's in one snapshot.
$primary->safe_psql('postgres', q{
    DROP TABLE IF EXISTS t;
    CREATE TABLE t (id bigserial, sh simhash);
    INSERT INTO t (sh) SELECT ('x' || substr(md5(g::text), 1, 16))::bit(64)::simhash FROM generate_series(1, 20000) g;
    CREATE INDEX t_idx ON t USING simhash_mih (sh) WITH (pending_limit = 64);
});
create_mismatches($primary);
standby_scans_while($primary, $standby, 2, q{
    INSERT INTO t (sh) SELECT ('x' || substr(md5(random()::text), 1, 16))::bit(64)::simhash FROM generate_series(1, 500);
}, 't_idx', 'flushes and merges');
cmp_ok($primary->safe_psql('postgres', q{SELECT written_rows - (SELECT count(*) FROM t) FROM simhash_mih_state('t_idx')}),
    '>', 0, 'and merged runs meanwhile');
$primary->wait_for_catchup($standby);
is($standby->safe_psql('postgres', q{
    SET enable_seqscan = off; SET enable_bitmapscan = off;
    SELECT count(*) FROM generate_series(1, 20) q,
    LATERAL (SELECT ('x' || substr(md5(q::text), 1, 16))::bit(64)::simhash AS h) qh
    WHERE (SELECT array_agg(id ORDER BY id) FROM t WHERE hamming(sh, qh.h) <= 9)
          IS DISTINCT FROM (SELECT array_agg(id ORDER BY id) FROM t WHERE hamming(sh::bigint, qh.h::bigint) <= 9)}),
    '0', 'then the standby answers like a sequential scan');

# A standby's check starts a pass again only when the index moved under it (the pgbench above runs
# it while merges are replayed): damage to an index that stands still is reported as damage. The
# copy on the standby is damaged once replay has nothing left to write over it.
$primary->safe_psql('postgres', 'ALTER TABLE t SET (autovacuum_enabled = off); CHECKPOINT');
$primary->wait_for_catchup($standby);
$standby->safe_psql('postgres', 'CHECKPOINT');
my $file = $standby->data_dir . '/' . $standby->safe_psql('postgres', q{SELECT pg_relation_filepath('t_idx')});
$standby->stop;
# The first table 0 page (kind 12) turned into a free page (6): the kind is in its last 8 bytes.
open(my $fh, '+<:raw', $file) or die "open $file: $!";
my $damaged;
for (my $b = 1; !defined $damaged && seek($fh, $b * 8192 + 8184, 0) && read($fh, my $kind, 2) == 2; $b++)
{
    $damaged = $b if unpack('S', $kind) == 12;
}
die 'no table 0 page' unless defined $damaged;
seek($fh, $damaged * 8192 + 8184, 0);
print $fh pack('S', 6);
close($fh);
$standby->start;
my ($ret, $out, $err) = $standby->psql('postgres',
    "SET statement_timeout = '60s'; SELECT * FROM simhash_mih_check('t_idx')");
like($err, qr/index "t_idx" is corrupted.*\n.*Block $damaged: /,
    'the standby reports damage to an index that stands still');

$standby->stop;
$primary->stop;
done_testing();
