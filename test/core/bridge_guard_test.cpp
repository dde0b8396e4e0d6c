#include <gtest/gtest.h>

#include <string>

#include "bridge_guard.hpp"

using simhash::guarded;

TEST(BridgeGuard, MapsEachExceptionToAStatusAndMessage)
{
    sh_error err{};
    EXPECT_EQ(guarded(&err, [] {}), SH_OK);
    EXPECT_EQ(guarded(&err, [] { throw std::bad_alloc(); }), SH_ERR_OUT_OF_MEMORY);
    EXPECT_STREQ(err.message, "out of memory");
    EXPECT_EQ(guarded(&err, [] { throw simhash::InvalidArgument("bad weight"); }),
              SH_ERR_INVALID_ARGUMENT);
    EXPECT_STREQ(err.message, "bad weight");
    EXPECT_EQ(guarded(&err, [] { throw simhash::LimitExceeded("too big"); }), SH_ERR_LIMIT_EXCEEDED);
    EXPECT_EQ(guarded(&err, [] { throw std::runtime_error("boom"); }), SH_ERR_INTERNAL);
    EXPECT_STREQ(err.message, "boom");
    EXPECT_EQ(guarded(&err, [] { throw 42; }), SH_ERR_INTERNAL);
}

TEST(BridgeGuard, TruncatesLongMessagesSafely)
{
    sh_error err{};
    std::string longText(1000, 'x');
    EXPECT_EQ(guarded(&err, [&] { throw std::runtime_error(longText); }), SH_ERR_INTERNAL);
    EXPECT_EQ(std::string(err.message).size(), SH_ERROR_MESSAGE_LEN - 1u);
}
