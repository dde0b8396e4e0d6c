# What the TAP tests of simhash_mih share: the check that an index answers like a sequential scan.
package t::MihScans;

use strict;
use warnings;
use Exporter 'import';

our @EXPORT = qw(create_mismatches);

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

1;
