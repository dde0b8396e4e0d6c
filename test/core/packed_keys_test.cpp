#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "packed_keys.h"

namespace {

// A data area as large as a simhash_mih page's (8,192 bytes less headers).
constexpr size_t kBytes = 8144;

// n distinct sorted keys spread over [base, base + span].
std::vector<uint64_t> SortedKeys(size_t n, uint64_t base, uint64_t span, uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::vector<uint64_t> keys;
    keys.push_back(base);
    while (keys.size() < n) {
        uint64_t offset = span == UINT64_MAX ? rng() : rng() % (span + 1);
        keys.push_back(base + offset);
        if (keys.size() == n) {
            std::sort(keys.begin(), keys.end());
            keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
        }
    }
    std::sort(keys.begin(), keys.end());
    return keys;
}

// Packs keys into pages as the index writes them; returns each page's (first, width, count, data).
struct Page {
    uint64_t first;
    int width;
    size_t count;
    std::vector<uint8_t> data;
};

std::vector<Page> Pack(const std::vector<uint64_t> &keys)
{
    std::vector<Page> pages;
    for (size_t at = 0; at < keys.size();) {
        Page page;
        page.count = sh_packed_count(&keys[at], keys.size() - at, kBytes, &page.width);
        page.first = keys[at];
        page.data.assign(kBytes, 0xAB);
        sh_packed_write(page.data.data(), kBytes, &keys[at], page.count, page.width);
        pages.push_back(std::move(page));
        at += pages.back().count;
    }
    return pages;
}

}  // namespace

TEST(PackedKeys, WidthIsTheSpansBitsUpTo57ThenWhole)
{
    EXPECT_EQ(sh_packed_width(0), 0);
    EXPECT_EQ(sh_packed_width(1), 1);
    EXPECT_EQ(sh_packed_width(2), 2);
    EXPECT_EQ(sh_packed_width((UINT64_C(1) << 52) - 1), 52);
    EXPECT_EQ(sh_packed_width(UINT64_C(1) << 52), 53);
    EXPECT_EQ(sh_packed_width((UINT64_C(1) << 57) - 1), 57);
    EXPECT_EQ(sh_packed_width(UINT64_C(1) << 57), SH_PACKED_WHOLE);
    EXPECT_EQ(sh_packed_width(UINT64_MAX), SH_PACKED_WHOLE);
}

TEST(PackedKeys, FitsLeavesTheLastLoadsEightBytes)
{
    EXPECT_TRUE(sh_packed_fits(1017, 64, kBytes));
    EXPECT_FALSE(sh_packed_fits(1018, 64, kBytes));
    EXPECT_EQ(sh_packed_min_entries(kBytes), 1017u);
    EXPECT_TRUE(sh_packed_fits(1251, 52, kBytes));
    EXPECT_FALSE(sh_packed_fits(1252, 52, kBytes));
    EXPECT_FALSE(sh_packed_fits(1, 1, 7));
}

// Every key comes back from every page, at widths from 0 to whole, and no read leaves the area.
TEST(PackedKeys, RoundTripsAtEveryWidth)
{
    std::vector<std::pair<size_t, uint64_t>> cases = {
        {1, 0}, {2, 1}, {5000, 9000}, {20000, UINT64_C(1) << 30}, {20000, UINT64_C(1) << 52},
        {5000, UINT64_C(1) << 57}, {5000, UINT64_C(1) << 60}, {3000, UINT64_MAX}};
    for (auto [n, span] : cases) {
        uint64_t base = span == UINT64_MAX ? 0 : UINT64_C(0x0123456789abcdef) & ~span;
        std::vector<uint64_t> keys = SortedKeys(n, base, span, n ^ span);
        std::vector<Page> pages = Pack(keys);
        size_t k = 0;
        for (const Page &page : pages) {
            ASSERT_GE(page.count, 1u);
            ASSERT_TRUE(page.width <= SH_PACKED_MAX_WIDTH || page.width == SH_PACKED_WHOLE);
            ASSERT_TRUE(sh_packed_fits(page.count, page.width, kBytes));
            ASSERT_GE(page.count, std::min(sh_packed_min_entries(kBytes), keys.size() - k));
            EXPECT_EQ(page.width, page.count == 1 ? 0 : sh_packed_width(keys[k + page.count - 1] - page.first));
            for (size_t i = 0; i < page.count; ++i, ++k)
                ASSERT_EQ(page.first + sh_packed_get(page.data.data(), page.width, uint32_t(i)), keys[k])
                    << "n=" << n << " span=" << span << " entry " << i;
            // The area past the entries is zero: nothing of the caller's buffer is left.
            size_t used = page.width == SH_PACKED_WHOLE ? page.count * 8 : (page.count * page.width + 7) / 8;
            for (size_t b = used; b < kBytes; ++b)
                ASSERT_EQ(page.data[b], 0) << "byte " << b;
        }
        EXPECT_EQ(k, keys.size());
    }
}

// A page ends where the next key would not fit at its span's width: pages are as full as they can be.
TEST(PackedKeys, PagesAreFull)
{
    std::vector<uint64_t> keys = SortedKeys(100000, 0, UINT64_MAX, 7);
    std::vector<Page> pages = Pack(keys);
    size_t k = 0;
    for (size_t p = 0; p + 1 < pages.size(); ++p) {
        k += pages[p].count;
        EXPECT_FALSE(sh_packed_fits(pages[p].count + 1, sh_packed_width(keys[k] - pages[p].first), kBytes));
    }
    // 100,000 random 64-bit keys: a page's span passes 2^57 after ~780 keys, so pages are whole.
    EXPECT_LE(pages.size(), 100000 / sh_packed_min_entries(kBytes) + 1);
}

// At 10M rows keys lie ~2^40.7 apart and a page spans about 2^51: 52-bit entries, ~1,250 a page
// instead of 1,017 whole.
TEST(PackedKeys, TenMillionKeysTakeFiftyTwoBits)
{
    std::vector<uint64_t> keys = SortedKeys(30000, 0, UINT64_C(30000) << 41, 11);
    std::vector<Page> pages = Pack(keys);
    for (size_t p = 0; p + 1 < pages.size(); ++p)
        EXPECT_LE(pages[p].width, 53);
    EXPECT_LE(pages.size(), 30000 / 1180 + 1);
}

// The lower bound from any guess is std::lower_bound's, for targets on, between and beyond entries.
TEST(PackedKeys, LowerBoundFromAnyGuess)
{
    for (uint64_t span : {uint64_t(5000), UINT64_C(1) << 40, UINT64_MAX}) {
        std::vector<uint64_t> keys = SortedKeys(span == 5000 ? 1500 : 3000, 0, span, span);
        std::vector<Page> pages = Pack(keys);
        const Page &page = pages[0];
        std::vector<uint64_t> deltas;
        for (size_t i = 0; i < page.count; ++i)
            deltas.push_back(keys[i] - page.first);
        std::vector<uint64_t> targets = {0, deltas.back(), deltas.back() + 1};
        for (size_t i = 1; i < deltas.size(); i += 37) {
            targets.push_back(deltas[i]);
            targets.push_back(deltas[i] - 1);
            targets.push_back(deltas[i] + 1);
        }
        for (uint64_t target : targets)
            for (uint32_t guess : {0u, 1u, uint32_t(page.count / 2), uint32_t(page.count - 1), uint32_t(page.count + 5)}) {
                uint32_t expect = uint32_t(std::lower_bound(deltas.begin(), deltas.end(), target) - deltas.begin());
                ASSERT_EQ(sh_packed_lower_bound(page.data.data(), page.width, uint32_t(page.count), target, guess), expect)
                    << "span=" << span << " target=" << target << " guess=" << guess;
            }
    }
    EXPECT_EQ(sh_packed_lower_bound(nullptr, 5, 0, 3, 0), 0u);
}

// Setting one entry in place leaves its neighbours, at every width a page can have.
TEST(PackedKeys, SetChangesOnlyItsEntry)
{
    std::mt19937_64 rng(5);
    for (int width : {1, 7, 24, 48, 52, 57, SH_PACKED_WHOLE}) {
        uint64_t mask = width == 64 ? UINT64_MAX : (UINT64_C(1) << width) - 1;
        uint32_t n = uint32_t((kBytes - 8) * 8 / width);
        std::vector<uint8_t> data(kBytes, 0);
        std::vector<uint64_t> values(n);
        for (uint32_t i = 0; i < n; ++i) {
            values[i] = rng() & mask;
            sh_packed_set(data.data(), width, i, values[i]);
        }
        for (uint32_t i = 0; i < n; i += 3) {
            values[i] = i % 2 ? 0 : mask;
            sh_packed_set(data.data(), width, i, values[i]);
        }
        for (uint32_t i = 0; i < n; ++i)
            ASSERT_EQ(sh_packed_get(data.data(), width, i), values[i]) << "width " << width << " entry " << i;
        for (size_t b = kBytes - 8; b < kBytes; ++b)
            ASSERT_EQ(data[b], 0) << "width " << width << ": the last load's room was written";
    }
}
