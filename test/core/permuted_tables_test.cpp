#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <tuple>
#include <vector>

#include "all_pairs.hpp"
#include "core_errors.hpp"
#include "hamming.h"
#include "permuted_tables.hpp"

using namespace simhash;

namespace {

using Triple = std::tuple<int64_t, int64_t, int>;

struct Rows {
    std::vector<int64_t> ids;
    std::vector<uint64_t> hashes;
};

// Random hashes, clusters of near copies, exact duplicates and one large group of identical rows
// (so some key groups are past the brute-force size and run the in-memory job).
Rows crawl_like(std::size_t n, unsigned seed)
{
    std::mt19937_64 rng(seed);
    Rows r;
    const uint64_t popular = rng();
    while (r.hashes.size() < n) {
        const unsigned kind = unsigned(rng() % 10);
        if (kind < 6) {
            r.hashes.push_back(rng());
        } else if (kind < 9) {
            const uint64_t base = rng();
            for (std::size_t m = 2 + rng() % 6; m > 0; --m) {
                uint64_t h = base;
                for (int f = int(rng() % 10); f > 0; --f) h ^= 1ULL << (rng() % 64);
                r.hashes.push_back(h);
            }
        } else {
            uint64_t h = popular;
            if (rng() % 2) h ^= 1ULL << (rng() % 64);
            r.hashes.push_back(h);
        }
    }
    r.hashes.resize(n);
    for (std::size_t i = 0; i < n; ++i) r.ids.push_back(int64_t(i * 3 + 1));
    return r;
}

std::vector<Triple> in_memory(const Rows &r, int k)
{
    AllPairsJob job(r.ids, r.hashes, k, 1);
    std::vector<Pair> pairs;
    while (job.step(pairs)) {
    }
    std::vector<Triple> out;
    for (const auto &p : pairs) out.emplace_back(p.id_a, p.id_b, p.distance);
    std::sort(out.begin(), out.end());
    return out;
}

// What a cluster does: every row goes to each of its keys' groups; each group runs alone.
std::vector<Triple> by_groups(const Rows &r, const PermutedTables &tables, std::size_t *compared = nullptr)
{
    std::map<int64_t, Rows> groups;
    for (std::size_t i = 0; i < r.ids.size(); ++i)
        for (int64_t key : tables.keys(r.hashes[i])) {
            groups[key].ids.push_back(r.ids[i]);
            groups[key].hashes.push_back(r.hashes[i]);
        }
    std::vector<Triple> out;
    if (compared) *compared = 0;
    for (const auto &[key, g] : groups) {
        std::size_t c = 0;
        for (const auto &p : group_pairs(tables, key, g.ids, g.hashes, &c)) out.emplace_back(p.id_a, p.id_b, p.distance);
        if (compared) *compared += c;
    }
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace

TEST(PermutedTables, KeysNameTheirTableAndCountTheChoices)
{
    const PermutedTables t(5, 8);  // agree on 3 of 8 blocks: C(8, 3) tables
    EXPECT_EQ(t.agree(), 3);
    EXPECT_EQ(t.tables(), 56u);
    const auto keys = t.keys(0x0123456789abcdefULL);
    ASSERT_EQ(keys.size(), 56u);
    for (std::size_t i = 0; i < keys.size(); ++i) {
        EXPECT_GE(keys[i], 0);
        EXPECT_EQ(PermutedTables::key_table(keys[i]), int(i));
    }
    EXPECT_EQ(PermutedTables(5, 5).tables(), 1u);  // blocks <= k: one table, one key for all rows
    EXPECT_EQ(PermutedTables(5, 5).keys(~0ULL), PermutedTables(5, 5).keys(0));
    EXPECT_EQ(PermutedTables(0, 1).tables(), 1u);  // k = 0: the whole hash (mixed) is the key
    EXPECT_NE(PermutedTables(0, 1).keys(1), PermutedTables(0, 1).keys(2));
}

TEST(PermutedTables, TheOwnerIsTheFirstTableTheyAgreeOnAndBothHaveItsKey)
{
    std::mt19937_64 rng(7);
    for (int k : {0, 1, 3, 5, 8}) {
        for (int blocks : {k + 1, k + 2, k + 3}) {
            const PermutedTables t(k, blocks);
            for (int trial = 0; trial < 2000; ++trial) {
                const uint64_t a = rng();
                uint64_t b = a;
                for (int f = int(rng() % (2 * k + 3)); f > 0; --f) b ^= 1ULL << (rng() % 64);
                const int owner = t.owner(a, b);
                ASSERT_EQ(owner, t.owner(b, a));
                const auto ka = t.keys(a), kb = t.keys(b);
                int first_shared = -1;
                for (std::size_t i = 0; i < ka.size() && first_shared < 0; ++i)
                    if (ka[i] == kb[i]) first_shared = int(i);
                ASSERT_EQ(owner, first_shared) << "k=" << k << " blocks=" << blocks;
                if (sh_hamming(a, b) <= k) {
                    ASSERT_GE(owner, 0);  // pigeonhole
                }
            }
        }
    }
}

TEST(PermutedTables, GroupsFindExactlyTheInMemoryPairsOnce)
{
    const Rows r = crawl_like(4000, 11);
    for (int k : {0, 1, 2, 3, 5, 6, 8}) {
        const auto expected = in_memory(r, k);
        for (int blocks : {k + 1, k + 2, k + 3}) {
            if (blocks > 64) continue;
            ASSERT_EQ(by_groups(r, PermutedTables(k, blocks)), expected) << "k=" << k << " blocks=" << blocks;
        }
    }
    // Radius past the blocks: one group holding every row.
    ASSERT_EQ(by_groups(r, PermutedTables(10, 4)), in_memory(r, 10));
}

// The rows of group g, unpacked.
Rows group_rows(const KeyGroups &g, std::size_t i)
{
    Rows r;
    unpack_rows(g.packed.data() + g.starts[i] * kPackedRowBytes, (g.starts[i + 1] - g.starts[i]) * kPackedRowBytes,
                r.ids, r.hashes);
    return r;
}

// Grouping is what the per-row keys say: each key's rows, in the part's order.
void expect_groups_of_keys(const PermutedTables &tables, const Rows &part, const KeyGroups &g)
{
    std::map<int64_t, Rows> expected;
    for (std::size_t i = 0; i < part.ids.size(); ++i)
        for (int64_t key : tables.keys(part.hashes[i])) {
            expected[key].ids.push_back(part.ids[i]);
            expected[key].hashes.push_back(part.hashes[i]);
        }
    ASSERT_EQ(g.keys.size(), expected.size());
    ASSERT_EQ(g.starts.size(), g.keys.size() + 1);
    ASSERT_EQ(g.packed.size(), part.ids.size() * tables.tables() * kPackedRowBytes);
    std::size_t i = 0;
    for (const auto &[key, rows] : expected) {
        ASSERT_EQ(g.keys[i], key);
        const Rows got = group_rows(g, i);
        ASSERT_EQ(got.ids, rows.ids) << "key " << key;
        ASSERT_EQ(got.hashes, rows.hashes) << "key " << key;
        ++i;
    }
}

// What a cluster does with parts grouped where they live: each part's key groups travel to the
// key's node, which joins the parts of a key (in part order) and runs the group.
TEST(PermutedTables, PartsGroupedByKeyAndJoinedFindExactlyThePairs)
{
    const Rows r = crawl_like(3000, 5);
    const std::size_t cuts[] = {0, 700, 701, 2100, 3000};  // one part of a single row
    for (int k : {0, 3, 5}) {
        const PermutedTables tables(k, k + 1);
        std::map<int64_t, Rows> joined;
        for (std::size_t p = 0; p + 1 < std::size(cuts); ++p) {
            Rows part;
            part.ids.assign(r.ids.begin() + long(cuts[p]), r.ids.begin() + long(cuts[p + 1]));
            part.hashes.assign(r.hashes.begin() + long(cuts[p]), r.hashes.begin() + long(cuts[p + 1]));
            const KeyGroups g = group_by_key(tables, part.ids.data(), part.hashes.data(), part.ids.size());
            expect_groups_of_keys(tables, part, g);
            for (std::size_t i = 0; i < g.keys.size(); ++i) {
                const Rows got = group_rows(g, i);
                joined[g.keys[i]].ids.insert(joined[g.keys[i]].ids.end(), got.ids.begin(), got.ids.end());
                joined[g.keys[i]].hashes.insert(joined[g.keys[i]].hashes.end(), got.hashes.begin(), got.hashes.end());
            }
        }
        std::vector<Triple> found;
        for (const auto &[key, g] : joined)
            for (const auto &p : group_pairs(tables, key, g.ids, g.hashes)) found.emplace_back(p.id_a, p.id_b, p.distance);
        std::sort(found.begin(), found.end());
        ASSERT_EQ(found, in_memory(r, k)) << "k=" << k;
    }
    EXPECT_TRUE(group_by_key(PermutedTables(5, 6), nullptr, nullptr, 0).keys.empty());
}

// Keys of more than 20 bits (three blocks of 7 blocks at radius 4: 27 bits) take the comparison sort.
TEST(PermutedTables, WideKeysGroupLikeNarrowOnes)
{
    const Rows r = crawl_like(2000, 9);
    const PermutedTables tables(4, 7);
    ASSERT_GT(tables.key_bits(0), 20);
    expect_groups_of_keys(tables, r, group_by_key(tables, r.ids.data(), r.hashes.data(), r.ids.size()));
}

TEST(PermutedTables, PackedRowsRoundTripLittleEndian)
{
    unsigned char bytes[2 * kPackedRowBytes];
    pack_row(-2, 0x0102030405060708ULL, bytes);
    pack_row(INT64_MAX, ~0ULL, bytes + kPackedRowBytes);
    EXPECT_EQ(bytes[0], 0xfe);
    EXPECT_EQ(bytes[7], 0xff);
    EXPECT_EQ(bytes[8], 0x08);
    EXPECT_EQ(bytes[15], 0x01);
    std::vector<int64_t> ids;
    std::vector<uint64_t> hashes;
    unpack_rows(bytes, sizeof bytes, ids, hashes);
    EXPECT_EQ(ids, (std::vector<int64_t>{-2, INT64_MAX}));
    EXPECT_EQ(hashes, (std::vector<uint64_t>{0x0102030405060708ULL, ~0ULL}));
    EXPECT_THROW(unpack_rows(bytes, 17, ids, hashes), InvalidArgument);
    unpack_rows(bytes, 0, ids, hashes);
    EXPECT_TRUE(ids.empty());
}

TEST(PermutedTables, RefusesWhatItCannotServe)
{
    EXPECT_THROW(PermutedTables(-1, 6), InvalidArgument);
    EXPECT_THROW(PermutedTables(65, 6), InvalidArgument);
    EXPECT_THROW(PermutedTables(5, 0), InvalidArgument);
    EXPECT_THROW(PermutedTables(5, 65), InvalidArgument);
    EXPECT_THROW(PermutedTables(8, 24), InvalidArgument);  // C(24, 16) tables
    const PermutedTables t(5, 6);
    const uint64_t h = 0xfeedULL;
    const int64_t key = t.keys(h)[2];
    EXPECT_THROW(group_pairs(t, key, {1, 2}, {h, ~h}), InvalidArgument);     // row 2 lacks the key
    EXPECT_THROW(group_pairs(t, key, {1, 1}, {h, h}), InvalidArgument);      // id twice
    EXPECT_THROW(group_pairs(t, int64_t(6) << 48, {1}, {h}), InvalidArgument);  // no table 6
    EXPECT_THROW(group_pairs(t, -1, {1}, {h}), InvalidArgument);
    EXPECT_EQ(group_pairs(t, key, {}, {}).size(), 0u);
}
