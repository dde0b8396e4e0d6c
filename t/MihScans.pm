# What the TAP tests of simhash_mih share: the check that an index answers like a sequential scan.
package t::MihScans;

use strict;
use warnings;
use Exporter 'import';
use IPC::Run;
use PostgreSQL::Test::Utils;
use Test::More;

our @EXPORT = qw(create_mismatches standby_scans_while);

# Creates, in the node's database postgres, the function mismatches(n): of n random queries, how
# many got other radius-9 or nearest-10 answers through the index on table t (id, sh) than from a
# sequential scan, in the caller's snapshot (run it in a REPEATABLE READ transaction while others
# write).
sub create_mismatches
{
	my ($node) = @_;
	$node->safe_psql('postgres', q{
    CREATE FUNCTION mismatches(n int) RETURNS bigint LANGUAGE sql AS $$
        SELECT count(*) FROM generate_series(1, n) q,
        LATERAL (SELECT ('x' || substr(md5((q * random())::text), 1, 16))::bit(64)::simhash AS h) qh,
        LATERAL (SELECT array_agg(id ORDER BY id) AS ids FROM t WHERE hamming(sh, qh.h) <= 9) i,
        LATERAL (SELECT array_agg(id ORDER BY id) AS ids FROM t WHERE hamming(sh::bigint, qh.h::bigint) <= 9) s,
        LATERAL (SELECT array_agg(d) AS ds FROM (SELECT (sh <-> qh.h)::int AS d FROM t ORDER BY sh <-> qh.h LIMIT 10) x) ki,
        LATERAL (SELECT array_agg(d ORDER BY d) AS ds FROM (SELECT hamming(sh::bigint, qh.h::bigint)::int AS d FROM t
                 ORDER BY 1 LIMIT 10) y) ks
        WHERE i.ids IS DISTINCT FROM s.ids OR ki.ds IS DISTINCT FROM ks.ds
    $$ SET enable_seqscan = off SET enable_bitmapscan = off;});
	return;
}

# Runs the SQL script $write on the primary for 14 s ($clients pgbench clients) while two new
# connections to the standby at a time (each reads every run's directory afresh) compare the
# index's answers on table t with a sequential scan's in one snapshot (mismatches, above: create
# it on the primary first) and run simhash_mih_check and simhash_mih_state on $index, for 12 s;
# both sides must have run, and no scan may find a mismatch or an error. $what names the primary's
# work in the tests' names.
sub standby_scans_while
{
	my ($primary, $standby, $clients, $write, $index, $what) = @_;
	my $script = PostgreSQL::Test::Utils::tempdir() . '/write.sql';
	PostgreSQL::Test::Utils::append_to_file($script, $write);
	my ($out, $err) = ('', '');
	my $writers = IPC::Run::start(
		[ 'pgbench', '--no-vacuum', "--client=$clients", "--jobs=$clients", '--time=14', '--file', $script,
		  $primary->connstr('postgres') ],
		'>', \$out, '2>', \$err);
	$standby->pgbench(
		'--no-vacuum --connect --client=2 --jobs=2 --time=12 --random-seed=5',
		0,
		[qr{processed: [1-9]}],
		[qr{^(?:pgbench: setting random seed to 5\n)?$}],
		"standby: radius and nearest-neighbour scans while it replays $what",
		{
			'scan@2' => q{
				BEGIN ISOLATION LEVEL REPEATABLE READ;
				SELECT 1 / (mismatches(2) = 0)::int;
				COMMIT;
			},
			'check@1' => qq{
				SELECT live_sorted_rows FROM simhash_mih_check('$index');
			},
			# counts the pending chain's tail page, which a replayed flush recycles (the scans run twice as often)
			'state@1' => qq{
				SELECT pending_rows FROM simhash_mih_state('$index');
			},
		});
	$writers->finish;
	like($out, qr{processed: [1-9]}, "the primary did $what meanwhile") or diag($err);
	return;
}

1;
