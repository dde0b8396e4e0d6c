# pg_dump / pg_restore of a crawl table with simhash columns and indexes restores identical values,
# in both the custom and the plain format.
# On every major: pg_dump and pg_restore are the server's own.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('dump');
$node->init;
$node->start;

$node->safe_psql('postgres', 'CREATE DATABASE crawl');
$node->safe_psql('crawl', q{
    CREATE EXTENSION simhash;
    CREATE TABLE pages (id int PRIMARY KEY, sh simhash UNIQUE, legacy bigint, d hamming_distance);
    INSERT INTO pages VALUES
        (1, '0', 0, 0), (2, '1', 1, 1), (3, '7fffffffffffffff', 9223372036854775807, 63),
        (4, '8000000000000000', -9223372036854775808, 1), (5, 'ffffffffffffffff', -1, 64),
        (6, NULL, NULL, NULL);
    INSERT INTO pages
    SELECT i, ('x' || substr(md5(i::text), 1, 16))::bit(64)::simhash, i, i % 65
    FROM generate_series(7, 5000) i;
    CREATE VIEW near_first AS SELECT id FROM pages WHERE hamming(sh, '0') <= 5;
});

my $fingerprint = q{SELECT md5(string_agg(id || ':' || coalesce(sh::text, 'null') || ':' ||
                                          coalesce(legacy::text, 'null'), ',' ORDER BY id)) FROM pages};
my $before = $node->safe_psql('crawl', $fingerprint);
my $view_before = $node->safe_psql('crawl', 'SELECT count(*) FROM near_first');

my $custom = "$PostgreSQL::Test::Utils::tmp_check/crawl.dump";
$node->command_ok([ 'pg_dump', '-Fc', '-f', $custom, '-d', $node->connstr('crawl') ], 'pg_dump -Fc');
$node->safe_psql('postgres', 'CREATE DATABASE restored_custom');
$node->command_ok([ 'pg_restore', '--exit-on-error', '-d', $node->connstr('restored_custom'), $custom ],
    'pg_restore');
is($node->safe_psql('restored_custom', $fingerprint), $before, 'custom-format restore has identical values');
is($node->safe_psql('restored_custom', 'SELECT count(*) FROM near_first'), $view_before,
    'a view using hamming() restores and answers the same');

my $plain = "$PostgreSQL::Test::Utils::tmp_check/crawl.sql";
$node->command_ok([ 'pg_dump', '-f', $plain, '-d', $node->connstr('crawl') ], 'pg_dump plain');
$node->safe_psql('postgres', 'CREATE DATABASE restored_plain');
$node->command_ok([ 'psql', '-X', '-v', 'ON_ERROR_STOP=1', '-q', '-f', $plain, '-d', $node->connstr('restored_plain') ],
    'plain dump replays with psql');
is($node->safe_psql('restored_plain', $fingerprint), $before, 'plain-format restore has identical values');

# The restored unique index on simhash still rejects duplicates.
my ($ret, $out, $err) = $node->psql('restored_custom', q{INSERT INTO pages VALUES (99999, 'ffffffffffffffff', 0, 0)});
isnt($ret, 0, 'restored unique index rejects a duplicate simhash');
like($err, qr/duplicate key value/, 'with a unique-violation error');

$node->stop;
done_testing();
