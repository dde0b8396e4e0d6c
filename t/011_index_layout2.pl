# A simhash_mih index of layout 2 (simhash 1.2: one set of sorted tables, their fields in the meta
# page) keeps working: it is read as an index of one run, answers like a sequential scan, takes
# inserts (the first change of its meta page writes it as layout 3), flushes, VACUUM and merges.
# The layout 2 index is made here from a freshly built single-run index, with the server stopped:
# the pending and NULL chains are the same in both layouts; table 0 of layout 2 held whole tids,
# 582 rows a page, and tables 1..m-1 (hash, ordinal in table 0) entries instead of distinct
# hashes, so both are written again as 1.2 wrote them (appended to the file; the pages of layout
# 3's are left unused), and the meta page is rewritten.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

use constant { BLCKSZ => 8192, META => 24 };	# MihMeta starts after the page header
# The page's opaque (kind u16, nitems u16, next u32) ends it; layout 2's table j pages held 680
# hashes (u64), then their ordinals (u32); a fence page (first block value u32, block u32) pairs.
use constant { OPAQUE => BLCKSZ - 8, KIND_TABLE0 => 2, KIND_TABLEJ => 3, KIND_FENCE => 4, KIND_ROWS => 12,
    ROWS_PER_PAGE => 582, REFS_PER_PAGE => 680,
    FENCES_PER_PAGE => 1020, NO_BLOCK => 0xFFFFFFFF, RUN => META + 88 };

my $node = PostgreSQL::Test::Cluster->new('layout2');
# initdb turns data checksums on from PostgreSQL 18; the meta page is rewritten here by hand.
$node->init($node->pg_version >= 18 ? (extra => ['--no-data-checksums']) : ());
# The runs checked are the flushes' and merges', not those of a settle once the writers paused (t/014).
$node->append_conf('postgresql.conf', "autovacuum = off\nsimhash.settle_delay = -1\n");
$node->start;
$node->safe_psql('postgres', q{
    CREATE EXTENSION simhash;
    CREATE TABLE t (id serial, sh simhash);
    INSERT INTO t (sh) SELECT ('x' || substr(md5(g::text), 1, 16))::bit(64)::simhash FROM generate_series(1, 30000) g;
    INSERT INTO t (sh) SELECT NULL FROM generate_series(1, 5);
    CREATE INDEX t_plain ON t USING simhash_mih (sh);
    CREATE INDEX t_five ON t USING simhash_mih (sh) WITH (blocks = 5, compact = on);
    INSERT INTO t (sh) SELECT ('x' || substr(md5('p' || g), 1, 16))::bit(64)::simhash FROM generate_series(1, 1000) g;
    DELETE FROM t WHERE id % 10 = 0;
    CHECKPOINT;
});

my $compare = q{
    SET enable_seqscan = off; SET enable_bitmapscan = off;
    SELECT count(*) FROM generate_series(0, 20) q,
    LATERAL (SELECT ('x' || substr(md5(q::text), 1, 16))::bit(64)::simhash AS h) qh,
    LATERAL (SELECT array_agg(id ORDER BY id) AS ids FROM t WHERE hamming(sh, qh.h) <= 8) i,
    LATERAL (SELECT array_agg(id ORDER BY id) AS ids FROM t WHERE hamming(sh::bigint, qh.h::bigint) <= 8) s,
    LATERAL (SELECT array_agg(d) AS ds FROM (SELECT (sh <-> qh.h)::int AS d FROM t ORDER BY sh <-> qh.h LIMIT 20) x) ki,
    LATERAL (SELECT array_agg(d ORDER BY d) AS ds FROM (SELECT hamming(sh::bigint, qh.h::bigint)::int AS d FROM t
             WHERE sh IS NOT NULL ORDER BY 1 LIMIT 20) y) ks
    WHERE i.ids IS DISTINCT FROM s.ids OR ki.ds IS DISTINCT FROM ks.ds};

my %file = map { $_ => $node->data_dir . '/' . $node->safe_psql('postgres', "SELECT pg_relation_filepath('$_')") }
  qw(t_plain t_five);
$node->stop;

sub meta_version
{
    my ($path) = @_;
    open(my $fh, '<:raw', $path) or die "open $path: $!";
    seek($fh, META, 0);
    read($fh, my $bytes, 8);
    close($fh);
    return (unpack('L L', $bytes))[1];
}

# Rewrites a layout 3 meta page of one run as the layout 2 meta page 1.2 wrote.
sub to_layout2
{
    my ($path) = @_;
    open(my $fh, '+<:raw', $path) or die "open $path: $!";
    seek($fh, META, 0);
    read($fh, my $m, 88 + 64);
    my ($magic, $version, $ntables, $flags, $generation, $pending_head, $pending_tail, $npending,
        $sealed_head, $nruns, $nsealed, $nulls_head, $nulls_tail, $inserted, $written, $slices)
      = unpack('L L l L Q L L Q L L Q L L Q Q Q', substr($m, 0, 88));
    my ($build_id, $nrows, @tables) = unpack('Q Q L6 L6', substr($m, 88, 64));
    my @pages = @tables[0 .. 5];
    my @fences = @tables[6 .. 11];
    die "not one run of layout 3" unless $version == 3 && $nruns == 1 && $sealed_head == 0xFFFFFFFF;
    my $v2 = pack('L L Q l L Q L4 L4 L L Q L L L2 L2', $magic, 2, $build_id, $ntables, $flags, $nrows,
        @pages[0 .. 3], @fences[0 .. 3], $pending_head, $pending_tail, $npending, $nulls_head, $nulls_tail,
        @pages[4 .. 5], @fences[4 .. 5]);
    seek($fh, META, 0);
    print $fh $v2 . ("\0" x (88 + 128 * 32 + 8 - length($v2)));
    close($fh);
}

sub block_len { my ($m, $b) = @_; return int(64 / $m) + ($b < 64 % $m ? 1 : 0); }
sub block_start { my ($m, $b) = @_; my $s = 0; $s += block_len($m, $_) for 0 .. $b - 1; return $s; }

# Block b moved to the top bits: the order of table b (sh_mih_rotate_block_to_top).
sub rotate
{
    my ($h, $m, $b) = @_;
    my $shift = 64 - block_start($m, $b) - block_len($m, $b);
    return $shift == 0 ? $h : (($h << $shift) | ($h >> (64 - $shift)));
}

# Rewrites table 0 of the one run of a layout 3 index as layout 2's: its rows, whose tids are
# packed (a header of least block u32, offset bits u8, width u8, u16 after the page's hashes, then
# each tid in width bits: the block above the least, then the offset), 582 to a page with whole
# tids (block as two u16, high first, offset u16) at a fixed place; and a new directory.
sub table0_to_layout2
{
    my ($path) = @_;
    open(my $fh, '+<:raw', $path) or die "open $path: $!";
    my $page = sub { my ($b) = @_; seek($fh, $b * BLCKSZ, 0); read($fh, my $p, BLCKSZ); return $p; };
    my ($build_id) = unpack('Q', substr($page->(0), RUN, 8));
    my $ntables = unpack('l', substr($page->(0), META + 8, 4));
    my $tag = $build_id & 0xFFFFFFFF;
    my $fence_head = unpack('L', substr($page->(0), RUN + 40, 4));
    my (@hashes, @tids, $header);
    for (my $b = $fence_head; $b != NO_BLOCK;)
    {
        my $f = $page->($b);
        my ($kind, $n, $next) = unpack('S S L', substr($f, OPAQUE, 8));
        for my $t (map { (unpack('L L', substr($f, 24 + 8 * $_, 8)))[1] } 0 .. $n - 1)
        {
            my $p = $page->($t);
            my ($k, $rows) = unpack('S S', substr($p, OPAQUE, 4));
            die "page $t is of kind $k, not table 0's" unless $k == KIND_ROWS;
            $header //= substr($p, 0, 24);
            push @hashes, unpack("Q$rows", substr($p, 24, 8 * $rows));
            my ($least, $offset_bits, $width) = unpack('L C C', substr($p, 24 + 8 * $rows, 6));
            my $bits = unpack('b*', substr($p, 24 + 8 * $rows + 8));
            for my $i (0 .. $rows - 1)
            {
                my $v = oct('0b' . reverse(substr($bits, $i * $width, $width)));
                my $block = $least + ($v >> $offset_bits);
                push @tids, [ $block, $v & ((1 << $offset_bits) - 1) ];
            }
        }
        $b = $next;
    }
    my $next_block = (-s $path) / BLCKSZ;
    my @dir;
    for (my $i = 0; $i < @hashes; $i += ROWS_PER_PAGE)
    {
        my $last = $i + ROWS_PER_PAGE > @hashes ? $#hashes : $i + ROWS_PER_PAGE - 1;
        my $data = pack('Q*', @hashes[$i .. $last]);
        $data .= "\0" x (8 * ROWS_PER_PAGE - length($data));
        $data .= join('', map { pack('S S S', $_->[0] >> 16, $_->[0] & 0xFFFF, $_->[1]) } @tids[$i .. $last]);
        my $b = $next_block++;
        seek($fh, $b * BLCKSZ, 0);
        print $fh $header . $data . ("\0" x (OPAQUE - 24 - length($data))) . pack('S S L', KIND_TABLE0, $last - $i + 1, $tag);
        push @dir, [ $hashes[$i] & ((1 << block_len($ntables, 0)) - 1), $b ];
    }
    die "more fences than a page holds" if @dir > FENCES_PER_PAGE;
    my $fences = $next_block++;
    seek($fh, $fences * BLCKSZ, 0);
    my $data = pack('L*', map { @$_ } @dir);
    print $fh $header . $data . ("\0" x (OPAQUE - 24 - length($data))) . pack('S S L', KIND_FENCE, scalar(@dir), NO_BLOCK);
    seek($fh, RUN + 16, 0);
    print $fh pack('L', scalar(@dir));
    seek($fh, RUN + 40, 0);
    print $fh pack('L', $fences);
    close($fh);
}

# Rewrites tables 1..m-1 of the one run of a layout 3 index (not compact) as layout 2's.
sub tables_to_layout2
{
    my ($path) = @_;
    open(my $fh, '+<:raw', $path) or die "open $path: $!";
    my $page = sub { my ($b) = @_; seek($fh, $b * BLCKSZ, 0); read($fh, my $p, BLCKSZ); return $p; };
    my $meta = $page->(0);
    my ($ntables, $flags) = unpack('l L', substr($meta, META + 8, 8));
    die "a compact index" if $flags;
    my ($build_id, $nrows, @f) = unpack('Q Q L6 L6', substr($meta, RUN, 64));
    my $tag = $build_id & 0xFFFFFFFF;
    my @fence_head = @f[6 .. 11];
    # table 0's pages, in order, from its fence chain; then its hashes
    my @table0;
    for (my $b = $fence_head[0]; $b != NO_BLOCK;)
    {
        my $p = $page->($b);
        my ($kind, $n, $next) = unpack('S S L', substr($p, OPAQUE, 8));
        push @table0, map { (unpack('L L', substr($p, 24 + 8 * $_, 8)))[1] } 0 .. $n - 1;
        $b = $next;
    }
    my @hashes;
    for my $b (@table0)
    {
        my $p = $page->($b);
        my $n = unpack('S', substr($p, OPAQUE + 2, 2));
        push @hashes, unpack("Q$n", substr($p, 24, 8 * $n));
    }
    die "table 0 holds " . scalar(@hashes) . " rows, not $nrows" unless @hashes == $nrows;
    my $header = substr($page->($table0[0]), 0, 24);
    my $next_block = (-s $path) / BLCKSZ;
    my $write = sub {
        my ($kind, $n, $next, $data) = @_;
        my $b = $next_block++;
        seek($fh, $b * BLCKSZ, 0);
        print $fh $header . $data . ("\0" x (OPAQUE - 24 - length($data))) . pack('S S L', $kind, $n, $next);
        return $b;
    };
    my (@pages, @fences);
    for my $j (1 .. $ntables - 1)
    {
        my @keys = map { rotate($hashes[$_], $ntables, $j) } 0 .. $#hashes;
        my @order = sort { $keys[$a] <=> $keys[$b] } 0 .. $#hashes;
        my @dir;
        for (my $i = 0; $i < @order; $i += REFS_PER_PAGE)
        {
            my @ords = @order[$i .. ($i + REFS_PER_PAGE > @order ? $#order : $i + REFS_PER_PAGE - 1)];
            my $data = pack('Q*', map { $hashes[$_] } @ords);
            $data .= "\0" x (8 * REFS_PER_PAGE - length($data));
            $data .= pack('L*', @ords);
            my $first = ($hashes[$ords[0]] >> block_start($ntables, $j)) & ((1 << block_len($ntables, $j)) - 1);
            push @dir, [ $first, $write->(KIND_TABLEJ, scalar(@ords), $tag, $data) ];
        }
        die "more fences than a page holds" if @dir > FENCES_PER_PAGE;
        $pages[$j] = scalar(@dir);
        $fences[$j] = $write->(KIND_FENCE, scalar(@dir), NO_BLOCK, pack('L*', map { @$_ } @dir));
    }
    for my $j (1 .. $ntables - 1)
    {
        seek($fh, RUN + 16 + 4 * $j, 0);
        print $fh pack('L', $pages[$j]);
        seek($fh, RUN + 40 + 4 * $j, 0);
        print $fh pack('L', $fences[$j]);
    }
    close($fh);
}

sub pages_of_kind
{
    my ($path, $kind) = @_;
    open(my $fh, '<:raw', $path) or die "open $path: $!";
    my $n = 0;
    for my $b (1 .. (-s $path) / BLCKSZ - 1)
    {
        seek($fh, $b * BLCKSZ + OPAQUE, 0);
        read($fh, my $k, 2);
        $n++ if unpack('S', $k) == $kind;
    }
    close($fh);
    return $n;
}

table0_to_layout2($file{$_}) for sort keys %file;
tables_to_layout2($file{t_plain});
to_layout2($file{$_}) for sort keys %file;
is(meta_version($file{t_plain}), 2, 'the meta page is of layout 2');
is(pages_of_kind($file{t_plain}, KIND_TABLEJ), 2 * 45, 'tables 1 and 2 hold (hash, ordinal) entries, 680 a page');
$node->start;
is($node->safe_psql('postgres', "BEGIN; DROP INDEX t_plain; $compare; ROLLBACK"), '0',
    'layout 2, blocks = 5, compact: answers like a sequential scan');
$node->safe_psql('postgres', 'DROP INDEX t_five');
is($node->safe_psql('postgres', $compare), '0', 'layout 2: answers like a sequential scan');
is($node->safe_psql('postgres', q{SELECT sorted_rows, pending_rows FROM simhash_mih_check('t_plain')}),
    '30000|1000', 'layout 2: simhash_mih_check reads it as one run and its pending rows');

# Inserts past the pending limit flush a run: the meta page is written as layout 3. One flush, at
# any default limit: just enough rows to reach it.
$node->safe_psql('postgres', q{
    INSERT INTO t (sh) SELECT ('x' || substr(md5('n' || g), 1, 16))::bit(64)::simhash
        FROM generate_series(1, (SELECT pending_limit_rows - pending_rows + 1 FROM simhash_mih_state('t_plain'))) g;
    CHECKPOINT;});
is($node->safe_psql('postgres', q{SELECT runs FROM simhash_mih_state('t_plain')}), '2', 'a flush added a second run');
is(meta_version($file{t_plain}), 3, 'the meta page is now of layout 3');
is($node->safe_psql('postgres', $compare), '0', 'after the flush: answers like a sequential scan');
$node->safe_psql('postgres', q{DELETE FROM t WHERE id % 7 = 0; VACUUM t; SELECT simhash_mih_merge('t_plain');});
is($node->safe_psql('postgres', $compare), '0', 'after VACUUM and a merge: answers like a sequential scan');
is($node->safe_psql('postgres', q{
    SELECT c.live_sorted_rows = (SELECT count(sh) FROM t) AND s.runs = 1
    FROM simhash_mih_check('t_plain') c, simhash_mih_state('t_plain') s}), 't',
    'after the merge: one run of the live rows, and it passes its check');

$node->stop;
done_testing();
