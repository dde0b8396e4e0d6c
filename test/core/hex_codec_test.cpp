#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>

#include "hamming.h"
#include "hex_bridge.h"
#include "hex_codec.hpp"

using simhash::HexError;
using simhash::parse_hex;

namespace {

std::string format(uint64_t v)
{
    char buf[16];
    simhash::format_hex(v, buf);
    return std::string(buf, 16);
}

}  // namespace

TEST(HexCodec, FormatsFixedWidthLowercase)
{
    EXPECT_EQ(format(0), "0000000000000000");
    EXPECT_EQ(format(1), "0000000000000001");
    EXPECT_EQ(format(0x7fffffffffffffffULL), "7fffffffffffffff");
    EXPECT_EQ(format(0x8000000000000000ULL), "8000000000000000");
    EXPECT_EQ(format(~0ULL), "ffffffffffffffff");
    EXPECT_EQ(format(0xDEADBEEFULL), "00000000deadbeef");
}

TEST(HexCodec, ParsesShortPrefixedMixedCaseAndPadded)
{
    EXPECT_EQ(parse_hex("1").value, 1u);
    EXPECT_EQ(parse_hex("0x1F").value, 0x1fu);
    EXPECT_EQ(parse_hex("0XaBc").value, 0xabcu);
    EXPECT_EQ(parse_hex("  \t ff \n").value, 0xffu);
    EXPECT_EQ(parse_hex("FFFFFFFFFFFFFFFF").value, ~0ULL);
    EXPECT_EQ(parse_hex("0000000000000000000000001").value, 1u);  // leading zeros are not significant
    EXPECT_EQ(parse_hex("0x0").error, HexError::none);
}

TEST(HexCodec, RejectsMalformedInput)
{
    EXPECT_EQ(parse_hex("").error, HexError::empty);
    EXPECT_EQ(parse_hex("   ").error, HexError::empty);
    EXPECT_EQ(parse_hex("0x").error, HexError::no_digits_after_prefix);
    EXPECT_EQ(parse_hex(" 0x ").error, HexError::no_digits_after_prefix);

    auto tooLong = parse_hex("10000000000000000");
    EXPECT_EQ(tooLong.error, HexError::too_many_digits);
    EXPECT_EQ(tooLong.detail, 17u);

    auto sign = parse_hex("-1");
    EXPECT_EQ(sign.error, HexError::bad_character);
    EXPECT_EQ(sign.detail, 0u);
    EXPECT_EQ(parse_hex("+1").error, HexError::bad_character);
    EXPECT_EQ(parse_hex("12 34").error, HexError::bad_character);
    EXPECT_EQ(parse_hex("12 34").detail, 2u);
    EXPECT_EQ(parse_hex("xyz").error, HexError::bad_character);
    EXPECT_EQ(parse_hex("0x0x1").error, HexError::bad_character);
    EXPECT_EQ(parse_hex(std::string_view("1\0" "2", 3)).error, HexError::bad_character);
}

TEST(HexCodec, RoundTripsRandomValuesThroughTheBridge)
{
    std::mt19937_64 rng(7);
    for (int i = 0; i < 10000; ++i) {
        uint64_t v = rng() >> (rng() % 64);
        char buf[17];
        sh_format_hex(v, buf);
        ASSERT_EQ(std::strlen(buf), 16u);
        uint64_t back = 0;
        size_t detail = 0;
        ASSERT_EQ(sh_parse_hex(buf, 16, &back, &detail), SH_HEX_OK);
        ASSERT_EQ(back, v);
    }
}

TEST(Hamming, MatchesBitByBitReference)
{
    std::mt19937_64 rng(11);
    for (int i = 0; i < 10000; ++i) {
        uint64_t a = rng(), b = rng();
        if (i % 3 == 0) b = a ^ (1ULL << (rng() % 64));
        int expected = 0;
        for (int bit = 0; bit < 64; ++bit) expected += ((a ^ b) >> bit) & 1;
        ASSERT_EQ(sh_hamming(a, b), expected);
    }
    EXPECT_EQ(sh_hamming(0, ~0ULL), 64);
    EXPECT_EQ(sh_popcount64(0x8000000000000001ULL), 2);
}
