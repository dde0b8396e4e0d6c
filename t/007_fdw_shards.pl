# Sharding over postgres_fdw: a coordinator whose partitions are foreign tables on two shard
# servers. Radius and nearest-neighbour queries are sent to the shards (the Remote SQL carries the
# condition and the ORDER BY) and answer as a local table does; the distributed all-pairs recipe
# (README "Scaling out") finds exactly simhash_pairs's pairs with the work done on the shards.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my @shards;
for my $s (1 .. 2)
{
	my $node = PostgreSQL::Test::Cluster->new("shard$s");
	$node->init;
	$node->start;
	$node->safe_psql('postgres', q{
		CREATE EXTENSION simhash;
		CREATE TABLE pages_part (id bigint PRIMARY KEY, sh simhash);
		CREATE INDEX ON pages_part USING simhash_mih (sh);
		CREATE TABLE page_keys_part (key bigint, id bigint, sh simhash);
		-- The distributed all-pairs step that runs here, on this shard's key groups only.
		CREATE VIEW shard_pairs AS
		SELECT p.* FROM (SELECT key, array_agg(id) AS ids, array_agg(sh) AS shs
		                 FROM page_keys_part GROUP BY key) g,
		                simhash_group_pairs(g.key, g.ids, g.shs, 5, 6) p;
	});
	push @shards, $node;
}

my $coord = PostgreSQL::Test::Cluster->new('coordinator');
$coord->init;
$coord->start;
$coord->safe_psql('postgres', q{CREATE EXTENSION simhash; CREATE EXTENSION postgres_fdw;});
my $setup = q{
	CREATE TABLE pages (id bigint, sh simhash) PARTITION BY HASH (id);
	CREATE TABLE page_keys (key bigint, id bigint, sh simhash) PARTITION BY HASH (key);
};
for my $s (0 .. 1)
{
	my ($host, $port) = ($shards[$s]->host, $shards[$s]->port);
	my $n = $s + 1;
	$setup .= qq{
		CREATE SERVER shard$n FOREIGN DATA WRAPPER postgres_fdw
			OPTIONS (host '$host', port '$port', dbname 'postgres',
			         extensions 'simhash', fetch_size '1000', use_remote_estimate 'true');
		CREATE USER MAPPING FOR CURRENT_USER SERVER shard$n;
		CREATE FOREIGN TABLE pages_$n PARTITION OF pages FOR VALUES WITH (MODULUS 2, REMAINDER $s)
			SERVER shard$n OPTIONS (table_name 'pages_part');
		CREATE FOREIGN TABLE page_keys_$n PARTITION OF page_keys FOR VALUES WITH (MODULUS 2, REMAINDER $s)
			SERVER shard$n OPTIONS (table_name 'page_keys_part');
		CREATE FOREIGN TABLE pairs_$n (id_a bigint, id_b bigint, distance integer)
			SERVER shard$n OPTIONS (table_name 'shard_pairs');
	};
}
$coord->safe_psql('postgres', $setup);

# Random pages and clusters of near copies, seeded, loaded through the coordinator; the same rows
# in a local table for the answers to compare with.
$coord->safe_psql('postgres', q{
	CREATE TABLE local_pages (id bigint, sh simhash);
	INSERT INTO local_pages
	SELECT i, ('x' || substr(md5(i::text), 1, 16))::bit(64)::simhash FROM generate_series(1, 4000) i;
	INSERT INTO local_pages
	SELECT 100000 + b * 100 + m,
	       base # ((1::bigint << (m * 7 % 64)::int) | (CASE WHEN m % 2 = 0 THEN 1::bigint << (m * 13 % 64)::int ELSE 0 END))::simhash
	FROM (SELECT b, ('x' || substr(md5('base' || b), 1, 16))::bit(64)::simhash AS base FROM generate_series(1, 200) b) bases,
	     generate_series(1, 1 + b % 7) m;
	INSERT INTO pages SELECT * FROM local_pages;
	CREATE INDEX ON local_pages USING simhash_mih (sh);
	ANALYZE local_pages;
});
$_->safe_psql('postgres', 'ANALYZE pages_part') for @shards;
is($coord->safe_psql('postgres', 'SELECT count(*) FROM pages'),
	$coord->safe_psql('postgres', 'SELECT count(*) FROM local_pages'), 'every row reached a shard');
isnt($shards[0]->safe_psql('postgres', 'SELECT count(*) FROM pages_part'), '0', 'shard 1 holds rows');
isnt($shards[1]->safe_psql('postgres', 'SELECT count(*) FROM pages_part'), '0', 'shard 2 holds rows');

# Radius: the condition goes to each shard, whose simhash_mih index answers it.
my $q = "('x' || substr(md5('base7'), 1, 16))::bit(64)::simhash";
my $plan = $coord->safe_psql('postgres', "EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM pages WHERE hamming(sh, $q) <= 5");
my @remote = ($plan =~ /Remote SQL: (.*)/g);
is(scalar(@remote), 2, 'radius: one remote query per shard');
# (The planner's support function has turned hamming(sh, q) <= 5 into hamming_within(sh, q, 5).)
ok((grep { /WHERE \(public\.hamming_within\(sh, '[0-9a-f]{16}'::public\.simhash, 5\)\)/ } @remote) == 2,
	'radius: each remote query carries the condition')
	or diag($plan);
my ($remote_radius) = $remote[0] =~ /^(SELECT .*)$/;
like($shards[0]->safe_psql('postgres', "EXPLAIN (COSTS OFF) $remote_radius"),
	qr/pages_part_sh_idx/, 'radius: the shard answers the remote query with its simhash_mih index');
for my $k (0, 3, 5, 8)
{
	my $sql = "SELECT string_agg(id::text, ',' ORDER BY id) FROM %s WHERE hamming(sh, q) <= $k";
	my $cmp = qq{SELECT count(*) FROM generate_series(1, 40) i,
		LATERAL (SELECT ('x' || substr(md5('base' || i), 1, 16))::bit(64)::simhash AS q) qq
		WHERE (SELECT string_agg(id::text, ',' ORDER BY id) FROM pages WHERE hamming(sh, q) <= $k)
		      IS DISTINCT FROM
		      (SELECT string_agg(id::text, ',' ORDER BY id) FROM local_pages WHERE hamming(sh, q) <= $k)};
	is($coord->safe_psql('postgres', $cmp), '0', "radius $k: 40 queries answer as the local table");
}

# Nearest neighbours: each shard sends its rows in distance order from its index (the remote
# query has no LIMIT, so it stops after fetch_size rows); the coordinator merges the streams.
# Ties at the last distance may differ between plans: compare the distances, and the ids closer
# than the last one.
$plan = $coord->safe_psql('postgres', "EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM pages ORDER BY sh <-> $q LIMIT 10");
@remote = ($plan =~ /Remote SQL: (.*)/g);
ok(@remote == 2 && (grep { /ORDER BY \(sh OPERATOR\(public\.<->\) '[0-9a-f]{16}'(::public\.simhash)?\) ASC/ } @remote) == 2,
	'nearest: each remote query is ordered by distance') or diag($plan);
like($plan, qr/Merge Append/, 'nearest: the coordinator merges the shards\' ordered streams');
my ($remote_nearest) = $remote[0] =~ /^(SELECT .*)$/;
like($shards[0]->safe_psql('postgres', "EXPLAIN (COSTS OFF) $remote_nearest"),
	qr/Index Scan using pages_part_sh_idx/, 'nearest: the shard orders by distance through its index');
is($coord->safe_psql('postgres', q{
	SELECT count(*) FROM generate_series(1, 40) i,
		LATERAL (SELECT ('x' || substr(md5('q' || i), 1, 16))::bit(64)::simhash AS q) qq,
		LATERAL (SELECT array_agg(d ORDER BY d) AS ds, max(d) AS last FROM
		         (SELECT sh <-> q AS d FROM pages ORDER BY sh <-> q LIMIT 10) s) far,
		LATERAL (SELECT array_agg(d ORDER BY d) AS ds FROM
		         (SELECT sh <-> q AS d FROM local_pages ORDER BY sh <-> q LIMIT 10) s) near
	WHERE far.ds IS DISTINCT FROM near.ds
	   OR (SELECT array_agg(id ORDER BY id) FROM (SELECT id FROM pages ORDER BY sh <-> q LIMIT 10) s
	       WHERE (SELECT min(x.sh <-> q) FROM pages x WHERE x.id = s.id) < far.last)
	      IS DISTINCT FROM
	      (SELECT array_agg(id ORDER BY id) FROM local_pages WHERE sh <-> q < far.last)}),
	'0', 'nearest: 40 queries answer as the local table');

# Distributed all-pairs: every row goes to its 6 keys' shards; each shard pairs its own key
# groups; the union is simhash_pairs's answer, each pair once.
$coord->safe_psql('postgres', q{
	INSERT INTO page_keys SELECT key, id, sh FROM pages, unnest(simhash_table_keys(sh, 5, 6)) key});
is($coord->safe_psql('postgres', 'SELECT count(*) FROM page_keys'),
	$coord->safe_psql('postgres', 'SELECT 6 * count(*) FROM pages'), 'all-pairs: six keys a row on the shards');
my $pairs = q{(SELECT * FROM pairs_1 UNION ALL SELECT * FROM pairs_2)};
is($coord->safe_psql('postgres', qq{
	SELECT (SELECT count(*) FROM (SELECT * FROM $pairs p
	                              EXCEPT ALL SELECT * FROM simhash_pairs('SELECT id, sh FROM local_pages', 5)) d)
	       || ' ' ||
	       (SELECT count(*) FROM (SELECT * FROM simhash_pairs('SELECT id, sh FROM local_pages', 5)
	                              EXCEPT ALL SELECT * FROM $pairs p) d)}),
	'0 0', 'all-pairs: the shards\' pairs are exactly simhash_pairs\'s (no extra, none missing)');
cmp_ok($coord->safe_psql('postgres', "SELECT count(*) FROM $pairs p"), '>', 500, 'all-pairs: the data has pairs');
like($coord->safe_psql('postgres', "EXPLAIN (VERBOSE, COSTS OFF) SELECT * FROM pairs_1"),
	qr/Remote SQL: SELECT id_a, id_b, distance FROM public\.shard_pairs/, 'all-pairs: the pairing runs on the shard');

$_->stop for ($coord, @shards);
done_testing();
