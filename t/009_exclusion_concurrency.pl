# "No two rows within 5 bits" (EXCLUDE USING gist (hamming_ball(sh, 5) WITH &&)) under concurrent
# inserts: a session inserting a near-duplicate of another's uncommitted row waits for it, then
# fails with 23P01 if it committed and succeeds if it rolled back; many clients inserting near
# copies with ON CONFLICT DO NOTHING leave exactly one page of each group.
use strict;
use warnings;
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);

my $node = PostgreSQL::Test::Cluster->new('exclusion');
$node->init;
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION simhash;
	CREATE TABLE pages (id bigserial, base int, sh simhash,
	                    EXCLUDE USING gist (hamming_ball(sh, 5) WITH &&));
	CREATE FUNCTION copy_of(base int, f1 int, f2 int) RETURNS simhash LANGUAGE sql IMMUTABLE AS $$
		SELECT ('x' || substr(md5('base' || base), 1, 16))::bit(64)::simhash
		       # ((1::bigint << f1) | (1::bigint << f2))::simhash $$;
});

# Session A holds an uncommitted page; session B inserts a page 2 bits from it and must wait.
sub race
{
	my ($base, $finish) = @_;
	my ($a_in, $a_out, $b_out, $b_err) = ('', '', '', '');
	my $a = IPC::Run::start([ 'psql', '-X', '-At', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('postgres') ],
		'<', \$a_in, '>', \$a_out, '2>', \$a_out);
	$a_in .= "BEGIN; INSERT INTO pages (base, sh) VALUES ($base, copy_of($base, 0, 0)); SELECT 'inserted';\n";
	$a->pump until $a_out =~ /inserted/;
	my $b = IPC::Run::start(
		[ 'psql', '-X', '-At', '-v', 'VERBOSITY=verbose', '-d', $node->connstr('postgres'),
		  '-c', "INSERT INTO pages (base, sh) VALUES ($base, copy_of($base, 1, 2))" ],
		'>', \$b_out, '2>', \$b_err);
	my $waited = 0;
	for (1 .. 200)
	{
		$waited = $node->safe_psql('postgres',
			q{SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'INSERT INTO pages%'});
		last if $waited;
		usleep(25_000);
	}
	$a_in .= "$finish;\n\\q\n";
	$a->finish;
	$b->finish;
	return ($waited, $b_err);
}

my ($waited, $err) = race(1, 'COMMIT');
is($waited, '1', 'the second insert waits for the uncommitted near-duplicate');
like($err, qr/23P01/, 'then fails with 23P01 exclusion_violation once it commits');
($waited, $err) = race(2, 'ROLLBACK');
is($waited, '1', 'it waits again');
is($err, '', 'and succeeds once the first rolls back');
is($node->safe_psql('postgres', 'SELECT count(*) FROM pages'), '2', 'one page of each race is stored');

# Six clients insert near copies of 25 pages at once; conflicts are skipped, not errors.
$node->pgbench(
	'--no-vacuum --client=6 --jobs=3 --transactions=100 --random-seed=5',
	0,
	[qr{processed: 600/600}],
	[qr{^(?:pgbench: setting random seed to 5\n)?$}],
	'600 concurrent inserts with ON CONFLICT DO NOTHING',
	{ 'insert_or_skip' => q{
		\set base random(3, 27)
		\set f1 random(0, 63)
		\set f2 random(0, 63)
		INSERT INTO pages (base, sh) VALUES (:base, copy_of(:base, :f1, :f2)) ON CONFLICT DO NOTHING;
	} });
is($node->safe_psql('postgres', 'SELECT count(*) FROM pages WHERE base >= 3'), '25', 'exactly one page of each of the 25 groups');
is($node->safe_psql('postgres', q{
	SET enable_indexscan = off; SET enable_bitmapscan = off;
	SELECT count(*) FROM pages a JOIN pages b ON a.id < b.id AND hamming(a.sh, b.sh) <= 5}),
	'0', 'no two stored pages within 5 bits (by sequential scan)');

$node->stop;
done_testing();
