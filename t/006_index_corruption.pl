# A damaged simhash_mih index fails fast and clearly: with the server stopped, the index file is
# damaged in one way at a time (a chain that loops, a link past the end, a wrong magic number, a
# table page of another kind, a directory page that claims too many entries, a truncated file, key
# pages of a compact index whose header claims more values than fit, a filter page that claims too
# many words or lost its bits, a hash of table 1 that table 0 does not hold, a hint page that
# claims too many buffers, the last build id given out set back).
# Every operation then either still works or ends with index_corrupted (XX002) naming the index
# and hinting REINDEX — never another error, a hang (statement_timeout is the fence), or a crash —
# and the operations that must read the damaged part do end with XX002. REINDEX repairs it.
# Hints that name wrong buffers are not damage: the index still answers as a sequential scan.
# On every major: the buffer manager, page checks and errors around the damage are the server's.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

use constant BLCKSZ => 8192;
# Page layout (src/pg/index_am/format/mih_format.h): the opaque (kind u16, nitems u16, next u32) ends the
# page; the meta page's fields (MihMeta, layout 3) start after the 24-byte page header.
# last_build follows the 32 runs of 128 bytes.
use constant { OPAQUE => BLCKSZ - 8, META_MAGIC => 24, META_PENDING_HEAD => 48, META_LAST_BUILD => 24 + 88 + 128 * 32 };
use constant { KIND_ROWS => 12, KIND_FENCE => 4, KIND_PENDING => 5, KIND_FREE => 6,
    KIND_KEYS => 8, KIND_FILTER => 9, KIND_HINTS => 10, KIND_HASHES => 11 };
# A key page (src/pg/index_am/format/mih_keys.h) begins with first (u32) and nvalues (u16).
use constant KEYS_NVALUES => 28;
# A table 0 page holds its n rows' hashes (u64) after the page header, then a header of its tids
# (least block u32, offset bits u8, width u8, u16), then the tids packed in width bits each,
# lowest bits first: the block above the least, then the offset in its lowest offset bits.
use constant TIDS_HEADER => 8;
# A page of tables 1..m-1 begins after the page header with its first key (u64: a hash rotated by
# the table's block), then the others' differences from it, packed.
use constant HASHES => 24;

my $node = PostgreSQL::Test::Cluster->new('corruption');
# initdb turns data checksums on from PostgreSQL 18: a damaged page would end in the server's own
# checksum error (XX001) before the index's checks see it, and these tests are about those checks.
$node->init($node->pg_version >= 18 ? (extra => ['--no-data-checksums']) : ());
$node->append_conf('postgresql.conf', "autovacuum = off\n");
$node->start;
$node->safe_psql('postgres', q{
    CREATE EXTENSION simhash;
    CREATE TABLE t (id int, sh simhash) WITH (autovacuum_enabled = off);
    INSERT INTO t SELECT g, ('x' || substr(md5(g::text), 1, 16))::bit(64)::simhash FROM generate_series(1, 20000) g;
    INSERT INTO t SELECT 0, NULL FROM generate_series(1, 5);
});

my $file;

sub build
{
    my ($with) = @_;
    $node->safe_psql('postgres', qq{
        DROP INDEX IF EXISTS t_mih;
        CREATE INDEX t_mih ON t USING simhash_mih (sh) $with;
        INSERT INTO t SELECT 100000 + g, ('x' || substr(md5((100000 + g)::text), 1, 16))::bit(64)::simhash
            FROM generate_series(1, 1500) g;  -- pending rows: a chain of several pages
        DELETE FROM t WHERE id > 100000;
        INSERT INTO t SELECT 100000 + g, ('x' || substr(md5((100000 + g)::text), 1, 16))::bit(64)::simhash
            FROM generate_series(1, 1500) g;
        CHECKPOINT;
    });
    $file = $node->data_dir . '/' . $node->safe_psql('postgres', q{SELECT pg_relation_filepath('t_mih')});
}

sub read_at
{
    my ($offset, $len) = @_;
    open(my $fh, '<:raw', $file) or die "open $file: $!";
    seek($fh, $offset, 0);
    read($fh, my $bytes, $len);
    close($fh);
    return $bytes;
}

sub write_at
{
    my ($offset, $bytes) = @_;
    open(my $fh, '+<:raw', $file) or die "open $file: $!";
    seek($fh, $offset, 0);
    print $fh $bytes;
    close($fh);
}

sub blocks { return (-s $file) / BLCKSZ; }
sub kind_of { my ($b) = @_; return unpack('S', read_at($b * BLCKSZ + OPAQUE, 2)); }
sub next_of { my ($b) = @_; return unpack('L', read_at($b * BLCKSZ + OPAQUE + 4, 4)); }
sub first_of_kind
{
    my ($kind) = @_;
    for my $b (1 .. blocks() - 1) { return $b if kind_of($b) == $kind; }
    die "no page of kind $kind";
}

# Each operation, in a fresh session, bounded by statement_timeout.
my %ops = (
    radius => q{SET enable_seqscan = off; SET enable_bitmapscan = off;
                SELECT count(*) FROM t WHERE hamming(sh, 'ffffffff00000000') <= 20},
    radius_probing => q{SET enable_seqscan = off; SET enable_bitmapscan = off;
                SELECT count(*) FROM t WHERE hamming(sh, 'ffffffff00000000') <= 5},
    knn => q{SET enable_seqscan = off; SELECT id FROM t ORDER BY sh <-> '0123456789abcdef' LIMIT 5},
    keyless => q{SET enable_seqscan = off; SELECT count(*) FROM t},
    insert => q{INSERT INTO t VALUES (-1, 'abcdef0123456789'), (-2, NULL)},
    vacuum => q{VACUUM t},
    merge => q{SELECT simhash_mih_merge('t_mih')},
    check => q{SELECT * FROM simhash_mih_check('t_mih')},
    check_heap => q{SELECT * FROM simhash_mih_check('t_mih', heapallindexed => true)},
);

sub run_op
{
    my ($name) = @_;
    my ($stdout, $stderr);
    $node->psql('postgres', "\\set VERBOSITY verbose\nSET statement_timeout = '10s';\n$ops{$name}",
        stdout => \$stdout, stderr => \$stderr);
    return $stderr // '';
}

# damage => [what it does, operations that must read the damaged part]
my @cases = (
    [ 'pending chain loops back to its head', sub {
        my $head = unpack('L', read_at(META_PENDING_HEAD, 4));
        my $b = $head;
        $b = next_of($b) while next_of($b) != 0xFFFFFFFF;
        write_at($b * BLCKSZ + OPAQUE + 4, pack('L', $head));
      }, [qw(radius knn keyless vacuum check check_heap)] ],
    [ 'pending link past the end of the file', sub {
        my $head = unpack('L', read_at(META_PENDING_HEAD, 4));
        write_at($head * BLCKSZ + OPAQUE + 4, pack('L', 4000000));
      }, [qw(radius knn keyless vacuum check check_heap)] ],
    [ 'wrong magic number in the meta page', sub {
        write_at(META_MAGIC, pack('L', 0x12345678));
      }, [qw(radius knn keyless insert vacuum check check_heap)] ],
    [ 'a table 0 page turned into a free page', sub {
        my $b = first_of_kind(KIND_ROWS);
        write_at($b * BLCKSZ + OPAQUE, pack('S', KIND_FREE));
      }, [qw(knn keyless vacuum check check_heap)] ],
    [ 'a directory page claiming more entries than fit', sub {
        my $b = first_of_kind(KIND_FENCE);
        write_at($b * BLCKSZ + OPAQUE + 2, pack('S', 60000));
      }, [qw(radius knn keyless vacuum check check_heap)] ],
    [ 'the file truncated to its first pages', sub {
        truncate($file, 3 * BLCKSZ) or die "truncate: $!";
      }, [qw(radius knn keyless vacuum check check_heap)] ],
    [ 'key pages claiming more block values than fit', sub {
        for my $b (1 .. blocks() - 1)
        {
            write_at($b * BLCKSZ + KEYS_NVALUES, pack('S', 60000)) if kind_of($b) == KIND_KEYS;
        }
      }, [qw(radius_probing check check_heap)], 'WITH (compact = on)' ],
    [ 'a filter page claiming more words than fit', sub {
        my $b = first_of_kind(KIND_FILTER);
        write_at($b * BLCKSZ + OPAQUE + 2, pack('S', 60000));
      }, [qw(radius radius_probing knn check check_heap)] ],
    [ 'a hint page claiming more buffers than fit', sub {
        my $b = first_of_kind(KIND_HINTS);
        write_at($b * BLCKSZ + OPAQUE + 2, pack('S', 60000));
      }, [qw(radius radius_probing knn keyless check check_heap)] ],
    # A filter page's words cleared: its structure is sound, but probes would skip rows that are
    # there; the check, which tests every row's block value against the filters, finds it.
    [ 'a filter page that lost its bits', sub {
        my $b = first_of_kind(KIND_FILTER);
        write_at($b * BLCKSZ + 24, "\0" x 8000);
      }, [qw(check check_heap)] ],
    # The first row of a table 0 page loses its tid (posid 0: what VACUUM writes for a dead row),
    # so a live row is missing from the index: the structure is sound, only the heap side sees it.
    [ 'a live row missing from table 0', sub {
        my $b = first_of_kind(KIND_ROWS);
        my $n = unpack('S', read_at($b * BLCKSZ + OPAQUE + 2, 2));
        my $tids = $b * BLCKSZ + 24 + 8 * $n;
        my $offset_bits = unpack('C', read_at($tids + 4, 1));
        my $first = unpack('Q<', read_at($tids + TIDS_HEADER, 8));
        write_at($tids + TIDS_HEADER, pack('Q<', $first & ~((1 << $offset_bits) - 1)));
      }, [qw(check_heap)] ],
    # Pages of tables 1..m-1 packed 60 bits wide, which no page is (57 at most, or 64): every
    # visit refuses them, rather than read wrong keys; the check visits all.
    [ 'pages of tables 1..m-1 with a width no entry has', sub {
        for my $b (1 .. blocks() - 1)
        {
            write_at($b * BLCKSZ + HASHES + 8, pack('S', 60)) if kind_of($b) == KIND_HASHES;
        }
      }, [qw(check check_heap)] ],
    # Pages of table 0 whose tids claim to be 200 bits wide: read as such, a tid's load would
    # leave the page. Every visit refuses them, so whatever reads table 0 fails.
    [ 'pages of table 0 with tids wider than a load reads', sub {
        for my $b (1 .. blocks() - 1)
        {
            next unless kind_of($b) == KIND_ROWS;
            my $n = unpack('S', read_at($b * BLCKSZ + OPAQUE + 2, 2));
            write_at($b * BLCKSZ + 24 + 8 * $n + 5, pack('C', 200));
        }
      }, [qw(radius knn keyless vacuum check check_heap)] ],
    # A page of table 0 claiming more rows than any holds (1,002 with 1-bit tids).
    [ 'a page of table 0 claiming more rows than fit', sub {
        my $b = first_of_kind(KIND_ROWS);
        write_at($b * BLCKSZ + OPAQUE + 2, pack('S', 1003));
      }, [qw(keyless vacuum check check_heap)] ],
    # A run whose build id was never given out: the next run written could get its id.
    [ 'the last build id given out set back before the run\'s', sub {
        write_at(META_LAST_BUILD, pack('Q', 0));
      }, [qw(check check_heap)] ],
    # The first key of a table 1 page with its lowest bit flipped: every key of the page is the
    # difference from it, so each moves by one in a low bit (of block 2 at 3 tables): the table
    # stays in order, but table 0 holds none of the page's hashes. A scan that finds them reaches
    # no row through table 0; the check compares every table with table 0's hashes.
    [ 'a hash of table 1 that table 0 does not hold', sub {
        my $b = first_of_kind(KIND_HASHES);
        my ($lo, $hi) = unpack('LL', read_at($b * BLCKSZ + HASHES, 8));
        write_at($b * BLCKSZ + HASHES, pack('LL', $lo ^ 1, $hi));
      }, [qw(check check_heap)] ],
);

for my $case (@cases)
{
    my ($what, $damage, $must_fail, $with) = @$case;
    build($with // '');
    $node->stop;
    $damage->();
    $node->start;
    my %must = map { $_ => 1 } @$must_fail;
    # The merge last: it rewrites every run from table 0, so damage elsewhere that it does not read
    # would be gone for the operations after it.
    for my $op ((grep { $_ ne 'merge' } sort keys %ops), 'merge')
    {
        my $err = run_op($op);
        if ($err =~ /ERROR/)
        {
            like($err, qr/ERROR:\s+XX002: index "t_mih" is (corrupted|not a simhash_mih index of layout).*HINT:\s+REINDEX/s,
                "$what: $op ends with index_corrupted and a REINDEX hint");
        }
        else
        {
            ok(!$must{$op}, "$what: $op does not read the damaged part and works")
              or diag("expected XX002, got: $err");
        }
    }
    $node->safe_psql('postgres', 'REINDEX INDEX t_mih');
    is($node->safe_psql('postgres',
        q{SET enable_seqscan = off; SET enable_bitmapscan = off; SELECT count(*) FROM t WHERE hamming(sh, 'ffffffff00000000') <= 20}),
        $node->safe_psql('postgres',
        q{SET enable_indexscan = off; SET enable_bitmapscan = off; SELECT count(*) FROM t WHERE hamming(sh, 'ffffffff00000000') <= 20}),
        "$what: after REINDEX the index answers as a sequential scan");
    # REINDEX writes every row into a run: no pending row is left.
    is($node->safe_psql('postgres', q{SELECT pending_rows FROM simhash_mih_check('t_mih')}), '0',
        "$what: after REINDEX the index checks clean");
}

# The hints of a run's pages name the buffers its writer put them in. Here every hint page's
# buffers are reversed, so that once the index is read again many name buffers holding other pages
# of it, and three are replaced by one past shared_buffers, a negative one and none: each is only
# a hint, and the index answers radius and nearest-neighbour queries as a sequential scan.
build('');
$node->stop;
my $hint_pages = 0;
for my $b (1 .. blocks() - 1)
{
    next unless kind_of($b) == KIND_HINTS;
    my $n = unpack('S', read_at($b * BLCKSZ + OPAQUE + 2, 2));
    my @hints = reverse unpack("l$n", read_at($b * BLCKSZ + 24, 4 * $n));
    @hints[0 .. 2] = (0x7FFFFFFF, -5, 0) if $n >= 3;
    write_at($b * BLCKSZ + 24, pack("l$n", @hints));
    $hint_pages++;
}
ok($hint_pages >= 3, "every table of the run has hints ($hint_pages pages)");
$node->start;
my $answers = q{
    SELECT k, q.id, array(SELECT id FROM t WHERE hamming(sh, q.sh) <= k ORDER BY id),
           array(SELECT hamming(sh, q.sh) FROM t ORDER BY sh <-> q.sh LIMIT 10)
    FROM t q, (VALUES (3), (5), (8), (20)) ks(k) WHERE q.id BETWEEN 1 AND 300 ORDER BY 1, 2};
# The first pass reads the index into other buffers than the build's; the second uses the hints.
$node->safe_psql('postgres', "SET enable_seqscan = off; SET enable_bitmapscan = off; $answers");
my $by_index = $node->safe_psql('postgres', "SET enable_seqscan = off; SET enable_bitmapscan = off; $answers");
like($node->safe_psql('postgres', "SET enable_seqscan = off; SET enable_bitmapscan = off; EXPLAIN $answers"),
    qr/Index Scan using t_mih.*Index Scan using t_mih/s, 'both subqueries scan the index');
is($by_index, $node->safe_psql('postgres', "SET enable_indexscan = off; SET enable_bitmapscan = off; $answers"),
    'with wrong hints the index answers as a sequential scan');
# build's 3,000 pending rows, 1,500 of them deleted (fewer if autovacuum marked those dead).
is($node->safe_psql('postgres', q{SELECT pending_rows BETWEEN 1500 AND 3000 FROM simhash_mih_check('t_mih')}), 't',
    'wrong hints are not damage');

$node->stop;
done_testing();
