# pg_cancel_backend stops a long simhash_pairs job within a second, and the backend it ran in is
# left with no worker threads and runs the next job normally.
use strict;
use warnings;
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time usleep);

my $node = PostgreSQL::Test::Cluster->new('cancel');
$node->init;
$node->start;
$node->safe_psql('postgres', q{
    CREATE EXTENSION simhash;
    CREATE TABLE huge AS SELECT i AS id, ('x' || substr(md5(i::text), 1, 16))::bit(64)::simhash AS sh
    FROM generate_series(1, 300000) i;
});

# Radius 20 on 300,000 random hashes: tens of millions of pairs, far more than a second of work.
my ($stdout, $stderr) = ('', '');
my $session = IPC::Run::start(
    [ 'psql', '-X', '-At', '-d', $node->connstr('postgres'),
      '-c', q{SELECT count(*) FROM simhash_pairs('SELECT id, sh FROM huge', 20)},
      '-c', q{SELECT pg_sleep(2)},
      '-c', q{SELECT count(*) FROM simhash_pairs('SELECT id, sh FROM huge WHERE id <= 20000', 3)} ],
    '>', \$stdout, '2>', \$stderr);

my $pid = '';
for (1 .. 200)
{
    $pid = $node->safe_psql('postgres',
        q{SELECT pid FROM pg_stat_activity WHERE query LIKE '%simhash_pairs(''SELECT id, sh FROM huge'', 20)%' AND pid <> pg_backend_pid()});
    last if $pid ne '';
    usleep(50_000);
}
isnt($pid, '', 'the job is running');
usleep(1_500_000);    # well inside the job
my $threads = () = glob("/proc/$pid/task/*");
cmp_ok($threads, '>', 1, 'the job runs on worker threads');

my $cancelled_at = time();
$node->safe_psql('postgres', "SELECT pg_cancel_backend($pid)");
my $stopped = 0;
for (1 .. 100)
{
    my $state = $node->safe_psql('postgres', "SELECT query FROM pg_stat_activity WHERE pid = $pid");
    if ($state !~ /huge', 20\)/) { $stopped = 1; last; }
    usleep(20_000);
}
my $latency = time() - $cancelled_at;
ok($stopped, 'the cancel reached the job');
cmp_ok($latency, '<', 1.0, sprintf('the job stopped %.3f s after the cancel', $latency));

usleep(300_000);    # the session is in pg_sleep now
$threads = () = glob("/proc/$pid/task/*");
is($threads, 1, 'no worker thread outlives the cancelled job');

$session->finish;
like($stderr, qr/canceling statement due to user request/, 'the client saw the cancel');
like($stdout, qr/^\s*\n?\d+\s*$/m, 'the same backend ran the next job');
is($node->safe_psql('postgres', q{SELECT count(*) FROM simhash_pairs('SELECT id, sh FROM huge WHERE id <= 20000', 3)}),
   (split /\n/, $stdout)[-1], 'and its answer is right');

$node->stop;
done_testing();
